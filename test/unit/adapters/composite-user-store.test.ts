import { CompositeUserStore } from '../../../src/adapters/users/composite-user-store';
import { UserStoreUnavailableError } from '../../../src/application/ports/user-store';
import { aUser } from '../../support/builders';
import { FakePasswordHasher, FakeUserStore } from '../../support/fakes';

describe('CompositeUserStore', () => {
  it('lets the first store that knows a login win, and checks the password there', async () => {
    const local = new FakeUserStore([aUser().named('alice').withPassword('local').build()]);
    const directory = new FakeUserStore([
      aUser().named('alice').withPassword('directory').withGroups('ldap').build(),
      aUser().named('bob').withPassword('b').build(),
    ]);
    const store = new CompositeUserStore([local, directory]);
    const alice = await store.findAccount('alice');
    expect(alice?.groups).toEqual([]);
    expect(alice !== null && (await store.verifyPassword(alice, 'local'))).toBe(true);
    expect(alice !== null && (await store.verifyPassword(alice, 'directory'))).toBe(false);
    const bob = await store.findAccount('bob');
    expect(bob !== null && (await store.verifyPassword(bob, 'b'))).toBe(true);
  });

  it('answers from earlier stores while a later one is down, and reports the outage only for logins they do not know', async () => {
    const local = new FakeUserStore([aUser().named('carol').build()]);
    const directory = new FakeUserStore([aUser().named('dave').build()]);
    directory.down = true;
    const store = new CompositeUserStore([local, directory]);
    expect((await store.findAccount('carol'))?.username).toBe('carol');
    expect(await store.currentAccount('carol')).not.toBeNull();
    await expect(store.findAccount('dave')).rejects.toBeInstanceOf(UserStoreUnavailableError);
    await expect(store.currentAccount('dave')).rejects.toBeInstanceOf(UserStoreUnavailableError);
  });

  it('verifies an account object it did not hand out against the store that owns that username', async () => {
    const directory = new FakeUserStore([aUser().named('erin').withPassword('pw').build()]);
    const store = new CompositeUserStore([new FakeUserStore([]), directory]);
    expect(await store.verifyPassword(aUser().named('erin').build(), 'pw')).toBe(true);
    expect(await store.verifyPassword(aUser().named('nobody').build(), 'pw')).toBe(false);
  });

  it('spends the decoy work of the last store on an unknown name, the store that would have checked it', async () => {
    const localHasher = new FakePasswordHasher();
    const directoryHasher = new FakePasswordHasher();
    const store = new CompositeUserStore([new FakeUserStore([aUser().named('carol').build()], localHasher), new FakeUserStore([], directoryHasher)]);
    expect(await store.findAccount('mallory')).toBeNull();
    expect(await store.verifyDecoy('mallory', 'pw')).toBe(false);
    expect([localHasher.decoys, directoryHasher.decoys]).toEqual([0, 1]);
  });
});
