import { UserStoreUnavailableError, type UserStore } from '../../../src/application/ports/user-store';

/** An account as the contract suite asks each store to hold it; each store stores it its own way. */
export interface ContractAccount {
  readonly username: string;
  readonly password: string;
}

export const CONTRACT_ACCOUNTS: readonly ContractAccount[] = [
  { username: 'alice', password: 'alice-Pa55word' },
  { username: 'bob', password: 'bob-other-secret' },
];

/** A store under test, holding {@link CONTRACT_ACCOUNTS}, and the levers some stores offer. */
export interface UserStoreUnderTest {
  readonly store: UserStore;
  /** Removes an account from the backing data, as an administrator would. */
  readonly remove?: (username: string) => Promise<void>;
  /** Makes the backing service unreachable. */
  readonly takeDown?: () => Promise<void>;
  readonly close?: () => Promise<void>;
}

/**
 * The behaviour every `UserStore` adapter must show (in-memory fakes included, so that fakes stay
 * honest). `make` builds a fresh store holding {@link CONTRACT_ACCOUNTS} for each test.
 */
export function runUserStoreContract(name: string, make: (accounts: readonly ContractAccount[]) => Promise<UserStoreUnderTest>): void {
  describe(`UserStore contract: ${name}`, () => {
    let subject: UserStoreUnderTest;
    beforeEach(async () => {
      subject = await make(CONTRACT_ACCOUNTS);
    });
    afterEach(async () => {
      await subject.close?.();
    });

    it('finds an account by its username, in any letter case', async () => {
      const account = await subject.store.findAccount('ALICE');
      expect(account?.username).toBe('alice');
    });

    it('finds an account by its e-mail, in any letter case', async () => {
      const byName = await subject.store.findAccount('bob');
      expect(byName?.email).toMatch(/@/);
      const byEmail = await subject.store.findAccount((byName?.email ?? '').toUpperCase());
      expect(byEmail?.username).toBe('bob');
    });

    it('ignores spaces around the login', async () => {
      expect((await subject.store.findAccount('  alice '))?.username).toBe('alice');
    });

    it('resolves null for an unknown login and for an empty one', async () => {
      expect(await subject.store.findAccount('mallory')).toBeNull();
      expect(await subject.store.findAccount('')).toBeNull();
    });

    it('treats wildcard and filter characters in a login as plain text', async () => {
      for (const login of ['*', 'a*', '*)(uid=*', 'alice)(|(uid=*', '\\', 'ali\\2ace', 'alice\u0000', '(alice)']) {
        expect(await subject.store.findAccount(login)).toBeNull();
      }
    });

    it('gives every account a username, e-mail, name, group list and credential version', async () => {
      const account = await subject.store.findAccount('alice');
      expect(account).not.toBeNull();
      expect(typeof account?.name).toBe('string');
      expect(Array.isArray(account?.groups)).toBe(true);
      expect(account?.credentialVersion).toEqual(expect.any(String));
      expect(account?.credentialVersion.length).toBeGreaterThan(0);
      expect((await subject.store.findAccount('alice'))?.credentialVersion).toBe(account?.credentialVersion);
    });

    it('accepts the right password and refuses a wrong, another account\'s or an empty one', async () => {
      const alice = await subject.store.findAccount('alice');
      if (alice === null) throw new Error('alice missing');
      expect(await subject.store.verifyPassword(alice, 'alice-Pa55word')).toBe(true);
      expect(await subject.store.verifyPassword(alice, 'alice-pa55word')).toBe(false);
      expect(await subject.store.verifyPassword(alice, 'bob-other-secret')).toBe(false);
      expect(await subject.store.verifyPassword(alice, '')).toBe(false);
    });

    it('reports a known username as active, in any letter case, and an unknown one as not', async () => {
      expect(await subject.store.isAccountActive('alice')).toBe(true);
      expect(await subject.store.isAccountActive('Bob')).toBe(true);
      expect(await subject.store.isAccountActive('mallory')).toBe(false);
    });

    it('forgets a removed account: not found, not active, password refused', async () => {
      if (subject.remove === undefined) {
        // A store without a way to remove accounts at run time (USERS) keeps them: that is its contract.
        expect(await subject.store.isAccountActive('bob')).toBe(true);
        return;
      }
      const bob = await subject.store.findAccount('bob');
      await subject.remove('bob');
      expect(await subject.store.findAccount('bob')).toBeNull();
      expect(await subject.store.isAccountActive('bob')).toBe(false);
      if (bob !== null) expect(await subject.store.verifyPassword(bob, 'bob-other-secret')).toBe(false);
      expect((await subject.store.findAccount('alice'))?.username).toBe('alice');
    });

    it('rejects with UserStoreUnavailableError, never a plain miss, when its service is down', async () => {
      const alice = await subject.store.findAccount('alice');
      if (subject.takeDown === undefined) {
        // An in-memory store has no service to lose: it keeps answering.
        expect(alice?.username).toBe('alice');
        return;
      }
      await subject.takeDown();
      await expect(subject.store.findAccount('bob')).rejects.toBeInstanceOf(UserStoreUnavailableError);
      if (alice !== null) await expect(subject.store.verifyPassword(alice, 'alice-Pa55word')).rejects.toBeInstanceOf(UserStoreUnavailableError);
    });
  });
}
