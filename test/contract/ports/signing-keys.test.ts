import { AesGcmSigningKeys, SigningKeysUnreadableError } from '../../../src/adapters/crypto/aes-gcm-signing-keys';
import { InMemorySigningKeys } from '../../../src/adapters/state/memory/in-memory-signing-keys';
import { DatabaseStartError } from '../../../src/adapters/state/sqlite/sqlite-database';
import { signingKeysContract } from './signing-keys.contract';

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters';
const KEY_SET = JSON.stringify({ keys: [{ kty: 'RSA', kid: 'k1', alg: 'RS256', use: 'sig', d: 'the-private-exponent' }] });

signingKeysContract('InMemorySigningKeys', () => new InMemorySigningKeys());
signingKeysContract('AesGcmSigningKeys over InMemorySigningKeys', () => new AesGcmSigningKeys(new InMemorySigningKeys(), SECRET));

describe('AesGcmSigningKeys', () => {
  it('hands the store only a sealed value: neither the private key nor the kid is readable there', async () => {
    const raw = new InMemorySigningKeys();
    await new AesGcmSigningKeys(raw, SECRET).getOrCreate(() => KEY_SET);
    const stored = await raw.getOrCreate(() => 'never');
    expect(stored).toMatch(/^k1\.[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain('the-private-exponent');
    expect(Buffer.from(stored.slice(3), 'base64url').toString('latin1')).not.toContain('the-private-exponent');
    expect(stored).not.toContain('k1"');
  });

  it('seals a replaced set too', async () => {
    const raw = new InMemorySigningKeys();
    await new AesGcmSigningKeys(raw, SECRET).replace(KEY_SET);
    expect(await raw.getOrCreate(() => 'never')).not.toContain('the-private-exponent');
  });

  it('opens the stored set with the same SECRET in another process (a restart)', async () => {
    const raw = new InMemorySigningKeys();
    await new AesGcmSigningKeys(raw, SECRET).getOrCreate(() => KEY_SET);
    expect(await new AesGcmSigningKeys(raw, SECRET).getOrCreate(() => 'never')).toBe(KEY_SET);
  });

  it('refuses under another SECRET with a start-up error that says what to do, never the key', async () => {
    const raw = new InMemorySigningKeys();
    await new AesGcmSigningKeys(raw, SECRET).getOrCreate(() => KEY_SET);
    const other = new AesGcmSigningKeys(raw, 'another-secret-of-at-least-thirty-two-chars');
    const failure = await other.getOrCreate(() => 'never').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SigningKeysUnreadableError);
    // main() reports a DatabaseStartError as one line with exit code 2, not a stack trace.
    expect(failure).toBeInstanceOf(DatabaseStartError);
    expect((failure as Error).message).toMatch(/cannot be decrypted with this SECRET/);
    expect((failure as Error).message).not.toContain(SECRET);
  });

  it('refuses a tampered or plaintext stored value the same way', async () => {
    const tampered = new InMemorySigningKeys();
    await new AesGcmSigningKeys(tampered, SECRET).getOrCreate(() => KEY_SET);
    const sealed = await tampered.getOrCreate(() => 'never');
    await tampered.replace(`${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'AB' : 'AA'}`);
    await expect(new AesGcmSigningKeys(tampered, SECRET).getOrCreate(() => 'never')).rejects.toBeInstanceOf(SigningKeysUnreadableError);

    const plain = new InMemorySigningKeys();
    await plain.replace(KEY_SET);
    await expect(new AesGcmSigningKeys(plain, SECRET).getOrCreate(() => 'never')).rejects.toBeInstanceOf(SigningKeysUnreadableError);
  });
});
