import * as argon2 from 'argon2';
import bcrypt from 'bcrypt';
import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import { NativePasswordHasher, type Argon2Module } from '../../../src/adapters/crypto/native-password-hasher';
import { PasswordHasherBusyError } from '../../../src/application/ports/password-hasher';
import { FakePasswordHasher } from '../../support/fakes';
import { passwordHasherContract } from './password-hasher.contract';

// Cost 4 keeps the suite fast; the production cost is a constructor argument.
passwordHasherContract('BcryptPasswordHasher', () => new BcryptPasswordHasher(4));
passwordHasherContract('FakePasswordHasher', () => new FakePasswordHasher());

describe('BcryptPasswordHasher', () => {
  const hasher = new BcryptPasswordHasher(4);

  it('writes salted bcrypt hashes at its cost that do not contain the password', async () => {
    const [a, b] = await Promise.all([hasher.hash('same password'), hasher.hash('same password')]);
    expect(a).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('same password');
  });

  it('verifies hashes of the $2a$ and $2y$ flavours too', async () => {
    const hash = await hasher.hash('pw');
    expect(await hasher.verify('pw', hash.replace(/^\$2b\$/, '$2a$'))).toBe(true);
    expect(await hasher.verify('pw', hash.replace(/^\$2b\$/, '$2y$'))).toBe(true);
  });

  it('refuses absurdly long passwords without hashing them', async () => {
    const hash = await hasher.hash('x'.repeat(2000));
    expect(await hasher.verify('x'.repeat(2000), hash)).toBe(false);
  });
  it('runs the decoy check at the cost of the stored hashes, not at the cost for new ones', async () => {
    const spy = jest.spyOn(bcrypt, 'hash');
    try {
      await new BcryptPasswordHasher(10, 4).verifyDecoy('guess');
      expect(spy.mock.calls.map((call) => call[1])).toEqual([4]);
    } finally {
      spy.mockRestore();
    }
  });
});

// Light Argon2id parameters keep the suite fast; Authelia's default is checked once below.
const LIGHT_ARGON2ID = { kind: 'argon2', variant: 'argon2id', memoryKiB: 1024, iterations: 1, parallelism: 1 } as const;
const library = (): Argon2Module => argon2;
passwordHasherContract('NativePasswordHasher writing Argon2id', () => new NativePasswordHasher({ newHashes: LIGHT_ARGON2ID, concurrency: 2, argon2: library }));

/** The argon2 library, counting what is asked of it. */
function countingArgon2(): { module: () => Argon2Module; verified: string[]; hashed: argon2.HashOptions[] } {
  const verified: string[] = [];
  const hashed: argon2.HashOptions[] = [];
  const module = {
    ...argon2,
    verify: (digest: string, password: string | Buffer) => (verified.push(digest), argon2.verify(digest, password)),
    hash: (password: string, options: argon2.HashOptions) => (hashed.push(options), argon2.hash(password, options)),
  } as unknown as Argon2Module;
  return { module: () => module, verified, hashed };
}

describe('NativePasswordHasher', () => {
  it("verifies Argon2id hashes with Authelia's default parameters, and Argon2i ones", async () => {
    const hasher = new NativePasswordHasher({ concurrency: 2, argon2: library });
    const id = await argon2.hash('pw', { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 });
    const i = await argon2.hash('pw', { type: argon2.argon2i, memoryCost: 1024, timeCost: 2, parallelism: 1 });
    // Authelia writes the parameters as m,t,p; node's argon2 as m,p,t: both are read.
    const autheliaOrder = id.replace(/m=(\d+),p=(\d+),t=(\d+)/, 'm=$1,t=$3,p=$2');
    expect(autheliaOrder).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
    expect(await hasher.verify('pw', autheliaOrder)).toBe(true);
    expect(await hasher.verify('pW', autheliaOrder)).toBe(false);
    expect(await hasher.verify('pw', i)).toBe(true);
    expect(await hasher.verify('pw ', i)).toBe(false);
    // Without the library handed in, an Argon2 hash verifies as false rather than loading it behind composition's back.
    expect(await new NativePasswordHasher().verify('pw', i)).toBe(false);
    // and bcrypt, by the same hasher
    expect(await hasher.verify('pw', await new BcryptPasswordHasher(4).hash('pw'))).toBe(true);
  });

  it('computes nothing for a hash of a kind it cannot verify or with a cost beyond the bounds', async () => {
    const library = countingArgon2();
    const hasher = new NativePasswordHasher({ argon2: library.module });
    const salt = 'c29tZXNhbHRzb21lc2FsdA';
    for (const hash of [
      `$argon2d$v=19$m=1024,t=1,p=1$${salt}$${'A'.repeat(43)}`,
      `$argon2id$v=19$m=4194304,t=1,p=1$${salt}$${'A'.repeat(43)}`,
      `$argon2id$v=19$m=65536,t=1000,p=1$${salt}$${'A'.repeat(43)}`,
      '$pbkdf2-sha512$310000$c2FsdA$aGFzaA',
      '$6$rounds=5000$salt$hash',
    ])
      await expect(hasher.verify('pw', hash)).resolves.toBe(false);
    expect(library.verified).toEqual([]);
  });

  it('writes Argon2id hashes with the parameters it is given', async () => {
    const hash = await new NativePasswordHasher({ newHashes: LIGHT_ARGON2ID, argon2: library }).hash('pw');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  });

  it('makes the decoy of the kind and cost it is given, once, and checks each unknown name against it', async () => {
    const library = countingArgon2();
    const hasher = new NativePasswordHasher({ decoy: LIGHT_ARGON2ID, argon2: library.module });
    await hasher.verifyDecoy('guess');
    await hasher.verifyDecoy('another');
    expect(library.hashed).toEqual([{ type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 }]);
    expect(library.verified).toHaveLength(2);
    expect(library.verified[0]).toMatch(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$/);
  });

  it('puts Argon2 and bcrypt checks in the same bounded line', async () => {
    const hasher = new NativePasswordHasher({ concurrency: 1, maxQueued: 1, argon2: library });
    const argonHash = await argon2.hash('pw', { type: argon2.argon2id, memoryCost: 8192, timeCost: 2, parallelism: 1 });
    const bcryptHash = await new BcryptPasswordHasher(4).hash('pw');
    const running = hasher.verify('pw', argonHash, 'a');
    const waiting = hasher.verify('pw', bcryptHash, 'b');
    // One computing, one waiting: a third check of either kind is refused as busy, never as a wrong password.
    await expect(hasher.verify('pw', argonHash, 'c')).rejects.toBeInstanceOf(PasswordHasherBusyError);
    await expect(Promise.all([running, waiting])).resolves.toEqual([true, true]);
  });
});
