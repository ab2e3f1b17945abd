import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { HashedClientSecrets } from '../../../src/adapters/crypto/hashed-client-secrets';
import { NativePasswordHasher } from '../../../src/adapters/crypto/native-password-hasher';
import { PasswordHasherBusyError, type PasswordHasher } from '../../../src/application/ports/password-hasher';
import { optionalModules } from '../../../src/composition/optional-modules';

const SECRET = 'portcullis-client-secret-0123456789';
/** Adapted base64, as passlib and Authelia write salt and key. */
const ab64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '').replace(/\+/g, '.');
const pbkdf2Hash = (secret: string, digest: 'sha1' | 'sha256' | 'sha512', iterations = 1000, salt = randomBytes(16)): string =>
  `$pbkdf2${digest === 'sha1' ? '' : `-${digest}`}$${iterations}$${ab64(salt)}$${ab64(pbkdf2Sync(secret, salt, iterations, { sha1: 20, sha256: 32, sha512: 64 }[digest], digest))}`;

/** A password hasher that must not be asked (PBKDF2 is checked without it). */
const refusingHasher: PasswordHasher = {
  verify: () => Promise.reject(new Error('the password hasher was asked')),
  hash: () => Promise.reject(new Error('unused')),
  verifyDecoy: () => Promise.reject(new Error('unused')),
};

describe('HashedClientSecrets', () => {
  const secrets = new HashedClientSecrets(refusingHasher);

  it('verifies PBKDF2-SHA1, -SHA256 and -SHA512 hashes made here, and nothing else', async () => {
    for (const digest of ['sha1', 'sha256', 'sha512'] as const) {
      const hash = pbkdf2Hash(SECRET, digest);
      await expect(secrets.verify(SECRET, hash)).resolves.toBe(true);
      await expect(secrets.verify(`${SECRET}x`, hash)).resolves.toBe(false);
      await expect(secrets.verify('', hash)).resolves.toBe(false);
    }
  });

  it('verifies fixed vectors computed elsewhere: passlib documentation and Python hashlib', async () => {
    // From passlib's documentation of pbkdf2_sha256, for the password "password".
    await expect(secrets.verify('password', '$pbkdf2-sha256$6400$0ZrzXitFSGltTQnBWOsdAw$Y11AchqV4b0sUisdZd0Xr97KWoymNE0LNNrnEgY4H9M')).resolves.toBe(true);
    await expect(secrets.verify('password', '$pbkdf2-sha256$8000$XAuBMIYQQogxRg$tRRlz8hYn63B9LYiCd6PRo6FMiunY9ozmMMI3srxeRE')).resolves.toBe(true);
    await expect(secrets.verify('Password', '$pbkdf2-sha256$8000$XAuBMIYQQogxRg$tRRlz8hYn63B9LYiCd6PRo6FMiunY9ozmMMI3srxeRE')).resolves.toBe(false);
    // python3: hashlib.pbkdf2_hmac(digest, SECRET, bytes.fromhex('00112233445566778899aabbccddeeff'), n), in adapted base64.
    const sha512 = '$pbkdf2-sha512$2000$ABEiM0RVZneImaq7zN3u/w$.OUuabjCrtny4s8pC5zN8geJy/npgeVsG4i1D4bOb6QRuMP/f6ZycaL26GeQhitfcYsj6.4aCRSJ0MTGQgUjlQ';
    const sha1 = '$pbkdf2$1000$ABEiM0RVZneImaq7zN3u/w$psP6NTcPUjcaMx.S1j3VrC.Nk3w';
    await expect(secrets.verify(SECRET, sha512)).resolves.toBe(true);
    await expect(secrets.verify(SECRET, sha1)).resolves.toBe(true);
    await expect(secrets.verify(SECRET.slice(0, -1), sha512)).resolves.toBe(false);
    // One adapted-base64 character changed ('.' is '+', not '/'): a different key.
    await expect(secrets.verify(SECRET, sha512.replace('$.OUu', '$/OUu'))).resolves.toBe(false);
  });

  it('refuses hashes of a cost or kind the configuration refuses, and over-long secrets, without computing', async () => {
    const tooCostly = pbkdf2Hash(SECRET, 'sha1', 1000).replace('$1000$', '$5000000$');
    const started = performance.now();
    await expect(secrets.verify(SECRET, tooCostly)).resolves.toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
    await expect(secrets.verify(SECRET, '$pbkdf2-sha384$1000$ABEiM0RVZneImaq7zN3u/w$psP6NTcPUjcaMx.S1j3VrC.Nk3w')).resolves.toBe(false);
    await expect(secrets.verify('x'.repeat(1025), pbkdf2Hash('x'.repeat(1025), 'sha1'))).resolves.toBe(false);
  });

  it('refuses with PasswordHasherBusyError when its line is full', async () => {
    const narrow = new HashedClientSecrets(refusingHasher, { concurrency: 1, maxQueued: 1 });
    const hash = pbkdf2Hash(SECRET, 'sha512', 50_000);
    const checks = [narrow.verify(SECRET, hash), narrow.verify(SECRET, hash), narrow.verify(SECRET, hash)];
    const settled = await Promise.allSettled(checks);
    expect(settled.filter((s) => s.status === 'fulfilled' && s.value === true)).toHaveLength(2);
    expect(settled.filter((s) => s.status === 'rejected' && s.reason instanceof PasswordHasherBusyError)).toHaveLength(1);
  });

  it('hands bcrypt and Argon2 hashes to the password hasher, with the requester', async () => {
    const asked: [string, string, string | undefined][] = [];
    const spy = new HashedClientSecrets({ ...refusingHasher, verify: async (p, h, r) => (asked.push([p, h, r]), p === SECRET) });
    const bcryptHash = `$2b$04$${'a'.repeat(53)}`;
    await expect(spy.verify(SECRET, bcryptHash, '192.0.2.1')).resolves.toBe(true);
    expect(asked).toEqual([[SECRET, bcryptHash, '192.0.2.1']]);
  });

  it('verifies a real Argon2id hash through the native password hasher', async () => {
    const argon2 = optionalModules.argon2();
    const hash = await argon2.hash(SECRET, { type: argon2.argon2id, memoryCost: 8192, timeCost: 2, parallelism: 1 });
    const real = new HashedClientSecrets(new NativePasswordHasher({ argon2: optionalModules.argon2 }));
    await expect(real.verify(SECRET, hash)).resolves.toBe(true);
    await expect(real.verify(`${SECRET}!`, hash)).resolves.toBe(false);
  });
});
