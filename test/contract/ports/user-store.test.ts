import bcrypt from 'bcrypt';
import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import { StaticUserStore } from '../../../src/adapters/users/static-user-store';
import type { Account } from '../../../src/domain/account';
import { FakePasswordHasher, FakeUserStore } from '../../support/fakes';
import { userStoreContract, type SeedAccount } from './user-store.contract';

const toAccount = (seed: SeedAccount, credentialVersion: string): Account => ({
  username: seed.username,
  email: seed.email,
  name: seed.name,
  groups: seed.groups,
  totpSecret: seed.totpSecret,
  credentialVersion,
});

userStoreContract('StaticUserStore', (_env, seeds) =>
  new StaticUserStore(seeds.map((s) => toAccount(s, bcrypt.hashSync(s.password, 4))), new BcryptPasswordHasher(4)),
);

userStoreContract('FakeUserStore', async (_env, seeds) => {
  const hasher = new FakePasswordHasher();
  return new FakeUserStore(await Promise.all(seeds.map(async (s) => toAccount(s, await hasher.hash(s.password)))), hasher);
});

describe('StaticUserStore', () => {
  it('lets a username win over another account that uses it as e-mail', async () => {
    const hasher = new FakePasswordHasher();
    const first: Account = { username: 'x@example.com', email: 'x@example.com', name: 'x', groups: [], credentialVersion: 'fake:1' };
    const second: Account = { username: 'y', email: 'x@example.com', name: 'y', groups: [], credentialVersion: 'fake:2' };
    const store = new StaticUserStore([second, first], hasher);
    expect((await store.findAccount('x@example.com'))?.username).toBe('x@example.com');
  });

  it('ignores surrounding whitespace in the login', async () => {
    const store = new StaticUserStore([{ username: 'alice', email: 'alice@example.com', name: 'a', groups: [], credentialVersion: 'fake:pw' }], new FakePasswordHasher());
    expect((await store.findAccount('  alice '))?.username).toBe('alice');
  });
});
