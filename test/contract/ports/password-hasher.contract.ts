import type { PasswordHasher } from '../../../src/application/ports/password-hasher';
import { useAdapter, type AdapterFactory } from './harness';

/** The behaviour every PasswordHasher must show. */
export function passwordHasherContract(name: string, makeAdapter: AdapterFactory<PasswordHasher>): void {
  describe(`PasswordHasher contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const hasher = (): PasswordHasher => subject.adapter();

    it('verifies a password against its own hash', async () => {
      const hash = await hasher().hash('correct horse battery staple');
      expect(await hasher().verify('correct horse battery staple', hash)).toBe(true);
    });

    it('refuses a different password', async () => {
      const hash = await hasher().hash('correct horse');
      for (const wrong of ['correct horsE', 'correct horse ', '', 'Correct horse', 'correct']) {
        expect(await hasher().verify(wrong, hash)).toBe(false);
      }
    });

    it('never stores the password as its own hash', async () => {
      expect(await hasher().hash('s3cret-value')).not.toBe('s3cret-value');
    });

    it('round-trips non-ASCII passwords', async () => {
      const hash = await hasher().hash('pässwörd 🔑 パスワード');
      expect(await hasher().verify('pässwörd 🔑 パスワード', hash)).toBe(true);
      expect(await hasher().verify('passwort 🔑 パスワード', hash)).toBe(false);
    });

    it('resolves false for a malformed hash instead of throwing', async () => {
      for (const hash of ['', 'not-a-hash', '$2b$04$short', '$2b$99$' + 'a'.repeat(53), 'fake:', '\u0000']) {
        await expect(hasher().verify('anything', hash)).resolves.toBe(false);
      }
    });

    it('answers the decoy check with false, whatever the password', async () => {
      for (const password of ['', 'guess', 'x'.repeat(5000), 'ünï 🔑']) {
        await expect(hasher().verifyDecoy(password)).resolves.toBe(false);
      }
    });
  });
}
