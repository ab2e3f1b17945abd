import type { EnrolledTotpSecrets } from '../../../src/application/totp/enrolled-totp-secrets';
import { eventually } from '../../support/wait';
import { unique, useAdapter, type AdapterFactory } from './harness';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const OTHER = 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU';

/**
 * `store` once its first load is done. The adapters on a shared store (Redis, PostgreSQL) answer
 * from a mirror in memory and fail closed (they throw) until they have read it once: a test that asks
 * earlier would see an outage, not the behaviour it checks.
 */
export async function untilLoaded<T extends EnrolledTotpSecrets>(store: T): Promise<T> {
  const ready = await eventually(async () => {
    try {
      store.secretOf('probe');
      return true;
    } catch {
      return false;
    }
  });
  if (!ready) throw new Error('the enrolments never loaded');
  return store;
}

/** The behaviour every EnrolledTotpSecrets adapter must show. */
export function enrolledTotpSecretsContract(name: string, makeAdapter: AdapterFactory<EnrolledTotpSecrets>): void {
  describe(`EnrolledTotpSecrets contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const store = (): EnrolledTotpSecrets => subject.adapter();

    it('knows no secret for an account that set none up', () => {
      expect(store().secretOf(unique('nobody'))).toBeNull();
    });

    it('answers the secret it stored, at once (not a promise: forward auth asks)', async () => {
      const alice = unique('alice');
      expect(await store().enrol(alice, SECRET)).toBe(true);
      expect(store().secretOf(alice)).toBe(SECRET);
    });

    it('refuses a second secret for the same account and keeps the first', async () => {
      const alice = unique('alice');
      await store().enrol(alice, SECRET);
      expect(await store().enrol(alice, OTHER)).toBe(false);
      expect(store().secretOf(alice)).toBe(SECRET);
    });

    it('keeps accounts apart, by their exact spelling', async () => {
      const alice = unique('alice');
      await store().enrol(alice, SECRET);
      expect(store().secretOf(alice.toUpperCase())).toBeNull();
      expect(await store().enrol(alice.toUpperCase(), OTHER)).toBe(true);
      expect(store().secretOf(alice)).toBe(SECRET);
    });

    it('removes a secret only while it is still the one named (compare and delete)', async () => {
      const alice = unique('alice');
      await store().enrol(alice, SECRET);
      expect(await store().remove(alice, OTHER)).toBe(false);
      expect(store().secretOf(alice)).toBe(SECRET);
      expect(await store().remove(alice, SECRET)).toBe(true);
      expect(store().secretOf(alice)).toBeNull();
      expect(await store().remove(alice, SECRET)).toBe(false);
    });

    it('takes a new secret after the old one was removed', async () => {
      const alice = unique('alice');
      await store().enrol(alice, SECRET);
      await store().remove(alice, SECRET);
      expect(await store().enrol(alice, OTHER)).toBe(true);
      expect(store().secretOf(alice)).toBe(OTHER);
    });
  });
}
