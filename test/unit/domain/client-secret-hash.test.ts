import { PBKDF2_LIMITS, readClientSecretHash } from '../../../src/domain/client-secret-hash';

const SALT = 'ABEiM0RVZneImaq7zN3u/w'; // 16 bytes, adapted base64
const KEY64 = '.OUuabjCrtny4s8pC5zN8geJy/npgeVsG4i1D4bOb6QRuMP/f6ZycaL26GeQhitfcYsj6.4aCRSJ0MTGQgUjlQ'; // 64 bytes

describe('readClientSecretHash', () => {
  it('reads the three PBKDF2 forms of Authelia and passlib, turning adapted base64 into standard base64', () => {
    const read = readClientSecretHash(`$pbkdf2-sha512$310000$${SALT}$${KEY64}`);
    expect(read).toEqual({
      ok: true,
      hash: {
        kind: 'pbkdf2',
        digest: 'sha512',
        iterations: 310000,
        salt: 'ABEiM0RVZneImaq7zN3u/w==',
        key: `+OUuabjCrtny4s8pC5zN8geJy/npgeVsG4i1D4bOb6QRuMP/f6ZycaL26GeQhitfcYsj6+4aCRSJ0MTGQgUjlQ==`,
      },
    });
    expect(readClientSecretHash(`$pbkdf2-sha256$29000$${SALT}$${'A'.repeat(43)}`)).toMatchObject({ ok: true, hash: { digest: 'sha256', iterations: 29000 } });
    expect(readClientSecretHash(`$pbkdf2$131000$${SALT}$${'A'.repeat(27)}`)).toMatchObject({ ok: true, hash: { digest: 'sha1', iterations: 131000 } });
  });

  it('reads what readPasswordHash reads: bcrypt and Argon2', () => {
    expect(readClientSecretHash(`$2b$10$${'a'.repeat(53)}`)).toEqual({ ok: true, hash: { kind: 'bcrypt', cost: 10 } });
    expect(readClientSecretHash(`$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`)).toMatchObject({
      ok: true,
      hash: { kind: 'argon2', variant: 'argon2id' },
    });
  });

  it('bounds the iterations, the salt and the key', () => {
    const { minIterations, maxIterations } = PBKDF2_LIMITS;
    expect(readClientSecretHash(`$pbkdf2-sha512$${maxIterations}$${SALT}$${KEY64}`).ok).toBe(true);
    expect(readClientSecretHash(`$pbkdf2-sha512$${minIterations}$${SALT}$${KEY64}`).ok).toBe(true);
    const problem = (hash: string): string => {
      const read = readClientSecretHash(hash);
      return read.ok ? 'accepted' : read.problem;
    };
    expect(problem(`$pbkdf2-sha512$${maxIterations + 1}$${SALT}$${KEY64}`)).toBe('PBKDF2 iterations 2000001 are outside 1000 to 2000000');
    expect(problem(`$pbkdf2-sha512$9999999999$${SALT}$${KEY64}`)).toMatch(/^PBKDF2 iterations 9999999999 are outside/);
    expect(problem(`$pbkdf2-sha512$999$${SALT}$${KEY64}`)).toMatch(/^PBKDF2 iterations 999 are outside/);
    expect(problem(`$pbkdf2-sha512$310000$AAAA$${KEY64}`)).toMatch(/^PBKDF2 salt must be 8 to 64 bytes/);
    expect(problem(`$pbkdf2-sha512$310000$${SALT}$AAAAAAAA`)).toMatch(/^PBKDF2 key must be 16 to 64 bytes/);
    expect(problem(`$pbkdf2-sha512$310000$${SALT}$${'A'.repeat(89)}`)).toMatch(/^PBKDF2 key must be/);
    expect(problem(`$pbkdf2-sha512$310000$${SALT}$${KEY64.replace('.', '+')}`)).toMatch(/^malformed PBKDF2 hash/);
    expect(problem(`$pbkdf2-sha512$many$${SALT}$${KEY64}`)).toMatch(/^malformed PBKDF2 hash/);
  });

  it('refuses the kinds it cannot verify, naming the kind and never echoing the hash', () => {
    const cases: [string, RegExp][] = [
      [`$pbkdf2-sha384$310000$${SALT}$${KEY64}`, /^a PBKDF2 hash of another digest cannot be verified; it must be a bcrypt .* or PBKDF2/],
      ['$scrypt$ln=16,r=8,p=1$c2FsdA$aGFzaA', /^a scrypt hash cannot be verified; it must be a bcrypt .*PBKDF2/],
      ['$6$rounds=5000$saltsalt$secretlookinghash', /^a SHA-512 crypt hash cannot be verified/],
      ['$argon2d$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$' + 'A'.repeat(43), /^an Argon2d hash cannot be verified/],
      ['$plaintext$the-secret-itself-0123456789', /^it must be a bcrypt .*PBKDF2/],
      ['just-a-plain-secret-0123456789-0123456789', /^it must be a bcrypt .*PBKDF2/],
    ];
    for (const [hash, expected] of cases) {
      const read = readClientSecretHash(hash);
      expect(read.ok).toBe(false);
      if (read.ok) continue;
      expect(read.problem).toMatch(expected);
      expect(read.problem).not.toContain(hash.split('$').at(-1));
    }
  });
});
