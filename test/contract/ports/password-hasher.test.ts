import bcrypt from 'bcrypt';
import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
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
