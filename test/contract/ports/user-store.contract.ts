import { hasTotp, type Account } from '../../../src/domain/account';
import { UserStoreUnavailableError, type UserStore } from '../../../src/application/ports/user-store';
import { useAdapter, type ContractEnv } from './harness';

/** An account as the suite wants it to exist in the store under test, with its password in clear. */
export interface SeedAccount {
  readonly username: string;
  readonly email: string;
  readonly name: string;
  readonly groups: readonly string[];
  readonly password: string;
  readonly totpSecret?: string;
}

/** The levers over its backing data that some adapters offer (a file can be rewritten, a directory server stopped). */
export interface UserStoreLevers {
  /** Removes an account from the backing data (file, directory), as an administrator would. */
  remove(username: string): Promise<void>;
  /**
   * Gives an account a new password and groups in the backing data, as an administrator would, and
   * resolves once the store's current account shows it (after a reload, or once its cache expired).
   */
  change(username: string, update: { readonly password: string; readonly groups: readonly string[] }): Promise<void>;
  /** Makes the backing service unreachable (stops the directory server). */
  takeDown(): Promise<void>;
}

export type Lever = keyof UserStoreLevers;

/** A store under test with the levers `L` it offers. */
export type UserStoreUnderTest<L extends Lever = never> = { readonly store: UserStore } & Pick<UserStoreLevers, L>;

/** What a factory builds: a bare store when it offers no lever, else the store with every lever it declared. */
type Made<L extends Lever> = [L] extends [never] ? UserStore | UserStoreUnderTest : UserStoreUnderTest<L>;

/** Builds a store holding exactly `accounts` (a directory adapter seeds its server here). */
export type UserStoreFactory<L extends Lever = never> = (env: ContractEnv, accounts: readonly SeedAccount[]) => Made<L> | Promise<Made<L>>;

type WithLevers = { readonly store: UserStore } & Partial<UserStoreLevers>;
const underTest = (made: UserStore | WithLevers): WithLevers => ('store' in made ? made : { store: made });

export const SEED_ACCOUNTS: readonly SeedAccount[] = [
  { username: 'alice', email: 'alice@example.com', name: 'Alice Example', groups: ['admins', 'users'], password: 'alice-Pa55 word' },
  { username: 'Bob', email: 'bob.builder@example.com', name: 'Bob', groups: [], password: 'bob-pw', totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' },
  { username: 'carol@example.org', email: 'carol@example.org', name: 'Carol', groups: ['users'], password: 'carol-pw' },
];
const [ALICE, BOB, CAROL] = SEED_ACCOUNTS;

/**
 * The behaviour every UserStore must show (USERS list, file, LDAP, ...). The cases about an
 * administrator's change or an outage are registered only for adapters that declare the lever in
 * `levers` (the compiler holds the factory to it); a store fixed at start-up simply has fewer cases,
 * none that pass without testing anything.
 */
export function userStoreContract<L extends Lever = never>(name: string, makeStore: UserStoreFactory<NoInfer<L>>, levers: readonly L[] = []): void {
  describe(`UserStore contract: ${name}`, () => {
    const subject = useAdapter(async (env) => underTest(await makeStore(env, SEED_ACCOUNTS)));
    const store = (): UserStore => subject.adapter().store;
    const has = (lever: Lever): boolean => (levers as readonly Lever[]).includes(lever);
    const lever = <K extends Lever>(key: K): UserStoreLevers[K] => {
      const found = subject.adapter()[key];
      if (found === undefined) throw new Error(`${name} declares the ${key} lever but its factory did not return it`);
      return found as UserStoreLevers[K];
    };
    const find = async (login: string): Promise<Account> => {
      const account = await store().findAccount(login);
      if (account === null) throw new Error(`expected to find ${login}`);
      return account;
    };

    it('finds an account by username, with its details', async () => {
      const account = await find('alice');
      expect(account.username).toBe(ALICE.username);
      expect(account.email).toBe(ALICE.email);
      expect(account.name).toBe(ALICE.name);
      expect([...account.groups].sort()).toEqual([...ALICE.groups].sort());
      expect(hasTotp(account)).toBe(false);
      expect(typeof account.credentialVersion).toBe('string');
      expect(account.credentialVersion).not.toBe('');
    });

    it('finds an account by e-mail', async () => {
      expect((await find('bob.builder@example.com')).username).toBe('Bob');
    });

    it('compares usernames and e-mails case-insensitively and keeps the stored spelling', async () => {
      expect((await find('ALICE')).username).toBe('alice');
      expect((await find('bob')).username).toBe('Bob');
      expect((await find('Alice@Example.COM')).username).toBe('alice');
    });

    it('ignores white space around the login', async () => {
      expect((await find('  alice ')).username).toBe('alice');
    });

    it('finds an account whose username is an e-mail address', async () => {
      expect((await find('Carol@Example.org')).username).toBe(CAROL.username);
    });

    it("gives a TOTP account's secret", async () => {
      const account = await find('Bob');
      expect(hasTotp(account)).toBe(true);
      expect(account.totpSecret).toBe(BOB.totpSecret);
    });

    it('resolves null for unknown logins, prefixes, wildcards and filter tricks', async () => {
      const tricks = ['*)(uid=*', 'alice)(|(uid=*)', '\\', 'ali\\2ace', 'alice\u0000', '(alice)', 'alice)', '*))%00'];
      for (const login of ['mallory', 'ali', 'alice2', 'example.com', '*', 'a*', 'alice*', ...tricks, '', 'alice@example.co']) {
        expect(await store().findAccount(login)).toBeNull();
      }
    });

    it('reports the same credential version on every lookup', async () => {
      expect((await find('alice')).credentialVersion).toBe((await find('ALICE@example.com')).credentialVersion);
    });

    it('gives different accounts different credential versions', async () => {
      expect((await find('alice')).credentialVersion).not.toBe((await find('carol@example.org')).credentialVersion);
    });

    it('accepts the right password', async () => {
      expect(await store().verifyPassword(await find('alice'), ALICE.password)).toBe(true);
      expect(await store().verifyPassword(await find('Bob'), BOB.password)).toBe(true);
    });

    it("refuses a wrong, empty or another account's password", async () => {
      const alice = await find('alice');
      for (const password of ['wrong', '', 'ALICE-PA55 WORD', `${ALICE.password} `, BOB.password]) {
        expect(await store().verifyPassword(alice, password)).toBe(false);
      }
    });

    it('refuses a password for an account it does not hold', async () => {
      const alice = await find('alice');
      const stranger: Account = { ...alice, username: 'mallory', email: 'mallory@example.com' };
      expect(await store().verifyPassword(stranger, ALICE.password)).toBe(false);
    });

    it('answers the decoy check for an unknown name with false, whatever the password (even a real one)', async () => {
      for (const [login, password] of [
        ['mallory', 'x'],
        ['nobody', ALICE.password],
        ['*', BOB.password],
        ['x', ''],
      ]) {
        expect(await store().verifyDecoy(login, password)).toBe(false);
      }
    });

    it('gives the current account of a held username in any letter case, and null for any other name', async () => {
      expect((await store().currentAccount('alice'))?.username).toBe('alice');
      expect((await store().currentAccount('BOB'))?.username).toBe('Bob');
      expect((await store().currentAccount('carol@example.org'))?.username).toBe(CAROL.username);
      for (const name of ['mallory', 'alice@example.com', '*', '']) expect(await store().currentAccount(name)).toBeNull();
    });

    it('gives the current account with the same details and credential version as a lookup', async () => {
      const current = await store().currentAccount('alice');
      const found = await find('alice');
      expect(current).not.toBeNull();
      expect(current?.credentialVersion).toBe(found.credentialVersion);
      expect([current?.email, current?.name, [...(current?.groups ?? [])].sort()]).toEqual([found.email, found.name, [...found.groups].sort()]);
      expect((await store().currentAccount('Bob'))?.totpSecret).toBe(BOB.totpSecret);
    });

    if (has('remove')) {
      it('forgets a removed account: not found, no current account, its password refused', async () => {
        const alice = await find('alice');
        await lever('remove')('alice');
        expect(await store().findAccount('alice')).toBeNull();
        expect(await store().currentAccount('alice')).toBeNull();
        expect(await store().verifyPassword(alice, ALICE.password)).toBe(false);
        expect((await find('carol@example.org')).username).toBe(CAROL.username);
      });
    }

    if (has('change')) {
      it("gives a new credential version, and the account's new groups, once an administrator changed them", async () => {
        const before = await find('alice');
        const carol = await find('carol@example.org');
        await lever('change')('alice', { password: 'alice-new-pw', groups: ['ops'] });
        const after = await store().currentAccount('alice');
        expect(after?.credentialVersion).not.toBe(before.credentialVersion);
        expect(after?.groups).toEqual(['ops']);
        expect(await store().verifyPassword(await find('alice'), 'alice-new-pw')).toBe(true);
        expect(await store().verifyPassword(await find('alice'), ALICE.password)).toBe(false);
        expect((await store().currentAccount('carol@example.org'))?.credentialVersion).toBe(carol.credentialVersion);
      });
    }

    if (has('takeDown')) {
      it('rejects with UserStoreUnavailableError, never a plain miss, when its service is down', async () => {
        const alice = await find('alice');
        await lever('takeDown')();
        await expect(store().findAccount('carol@example.org')).rejects.toBeInstanceOf(UserStoreUnavailableError);
        await expect(store().verifyPassword(alice, ALICE.password)).rejects.toBeInstanceOf(UserStoreUnavailableError);
        await expect(store().verifyDecoy('mallory', 'x')).rejects.toBeInstanceOf(UserStoreUnavailableError);
      });
    }
  });
}
