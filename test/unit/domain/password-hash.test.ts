import { ARGON2_LIMITS, decoyParameters, estimatedWork, readPasswordHash } from '../../../src/domain/password-hash';

const SALT = 'c29tZXNhbHRzb21lc2FsdA'; // 16 bytes
const OUT = 'A'.repeat(43); // 32 bytes
const argon2 = (params: string, variant = 'argon2id', salt = SALT, out = OUT): string => `$${variant}$v=19$${params}$${salt}$${out}`;
const bcrypt = (cost: string): string => `$2b$${cost}$${'a'.repeat(53)}`;

describe('readPasswordHash', () => {
  it('reads bcrypt hashes of every flavour with their cost', () => {
    for (const prefix of ['2a', '2b', '2y'])
      expect(readPasswordHash(`$${prefix}$05$${'a'.repeat(53)}`)).toEqual({ ok: true, hash: { kind: 'bcrypt', cost: 5 } });
  });

  it("reads Argon2id and Argon2i hashes as Authelia and node's argon2 write them, parameters in any order", () => {
    expect(readPasswordHash(argon2('m=65536,t=3,p=4'))).toEqual({
      ok: true,
      hash: { kind: 'argon2', variant: 'argon2id', memoryKiB: 65536, iterations: 3, parallelism: 4 },
    });
    expect(readPasswordHash(argon2('m=65536,p=4,t=3', 'argon2i'))).toEqual({
      ok: true,
      hash: { kind: 'argon2', variant: 'argon2i', memoryKiB: 65536, iterations: 3, parallelism: 4 },
    });
  });

  it('refuses kinds it cannot verify, naming the kind and never echoing the hash', () => {
    const cases: [string, RegExp][] = [
      ['$pbkdf2-sha512$310000$c2FsdHNhbHQ$aGFzaGhhc2g', /^a PBKDF2 hash cannot be verified/],
      ['$scrypt$ln=16,r=8,p=1$c2FsdA$aGFzaA', /^a scrypt hash cannot be verified/],
      ['$6$rounds=5000$saltsalt$secretlookinghash', /^a SHA-512 crypt hash cannot be verified/],
      ['$argon2d$v=19$m=65536,t=3,p=4$' + SALT + '$' + OUT, /^an Argon2d hash cannot be verified/],
      ['$argon2id$v=19$m=65536,t=3$' + SALT + '$' + OUT, /^malformed Argon2 hash/],
      ['plaintext', /^password must be a bcrypt/],
    ];
    for (const [hash, problem] of cases) {
      const read = readPasswordHash(hash);
      expect(read).toEqual({ ok: false, problem: expect.stringMatching(problem) });
      if (!read.ok) expect(read.problem).not.toContain('secretlooking');
    }
  });

  it('bounds Argon2 costs so a hash cannot make a login allocate gigabytes or run for seconds', () => {
    const problem = (hash: string): string | null => {
      const read = readPasswordHash(hash);
      return read.ok ? null : read.problem;
    };
    expect(problem(argon2('m=2097152,t=1,p=4'))).toBe('Argon2 memory m=2097152 KiB is outside 32 to 262144 KiB (256 MiB)');
    expect(problem(argon2('m=65536,t=17,p=4'))).toBe('Argon2 iterations t=17 are outside 1 to 16');
    expect(problem(argon2('m=65536,t=0,p=4'))).toBe('Argon2 iterations t=0 are outside 1 to 16');
    expect(problem(argon2('m=65536,t=3,p=64'))).toBe('Argon2 parallelism p=64 is outside 1 to 16');
    expect(problem(argon2('m=262144,t=8,p=4'))).toMatch(/^Argon2 cost m×t=2097152 is over 1048576/);
    expect(problem(argon2('m=16,t=3,p=4'))).toMatch(/^Argon2 memory m=16 KiB is outside 32/);
    expect(problem(argon2('m=65536,t=3,p=4', 'argon2id', 'c2FsdA'))).toMatch(/^Argon2 salt must be 8 to 64 bytes/);
    expect(problem(argon2('m=65536,t=3,p=4', 'argon2id', SALT, 'A'.repeat(200)))).toMatch(/^Argon2 hash output must be 16 to 64 bytes/);
    expect(problem(argon2('m=65536,t=3,p=4').replace('v=19', 'v=16'))).toMatch(/only version 19/);
    expect(problem(argon2('m=65536,t=3,m=4'))).toBe('Argon2 hash must give m=, t= and p= once each');
    // The largest allowed work is still accepted.
    expect(problem(argon2(`m=${ARGON2_LIMITS.maxMemoryKiB},t=4,p=16`))).toBeNull();
    expect(problem(argon2('m=65536,t=16,p=1'))).toBeNull();
  });
});

describe('decoyParameters', () => {
  it("takes Authelia's Argon2id over bcrypt cost 10, and bcrypt cost 14 over a light Argon2id", () => {
    expect(decoyParameters([bcrypt('10'), argon2('m=65536,t=3,p=4')])).toMatchObject({ kind: 'argon2', memoryKiB: 65536 });
    expect(decoyParameters([bcrypt('14'), argon2('m=19456,t=2,p=1')])).toEqual({ kind: 'bcrypt', cost: 14 });
  });

  it('within Argon2, takes the parameters most hashes use, the costlier on a tie', () => {
    const light = argon2('m=19456,t=2,p=1');
    const heavy = argon2('m=65536,t=3,p=4', 'argon2i');
    expect(decoyParameters([light, light, heavy])).toMatchObject({ memoryKiB: 19456, variant: 'argon2id' });
    expect(decoyParameters([light, heavy])).toMatchObject({ memoryKiB: 65536, variant: 'argon2i' });
  });

  it('skips what is no hash (passkey-only and service accounts)', () => {
    expect(decoyParameters(['', 'passkey-only'])).toBeUndefined();
    expect(estimatedWork({ kind: 'bcrypt', cost: 10 })).toBe(1);
  });
});
