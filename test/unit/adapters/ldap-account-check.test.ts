import * as ldapts from 'ldapts';
import { ACCOUNTS_PER_CHECK, LdapUserStore, type LdapUserStoreSettings } from '../../../src/adapters/users/ldap-user-store';
import { UserStoreUnavailableError } from '../../../src/application/ports/user-store';
import { FixedClock } from '../../support/fakes';
import { silentLogger } from '../../support/loggers';

/**
 * The directory account check (issue 35) against a fake ldapts client that answers searches from a
 * list of people, matching `(uid=…)` and `(mail=…)` terms, and records every filter sent.
 */
interface Person {
  readonly uid: string;
  readonly mail: string;
}

function fakeLdapts(people: Person[], sent: string[], state: { down: boolean }): typeof import('ldapts') {
  class FakeClient {
    isConnected = true;
    async bind(): Promise<void> {}
    async startTLS(): Promise<void> {}
    async unbind(): Promise<void> {}
    async search(_base: string, options: { filter: string }): Promise<{ searchEntries: ldapts.Entry[]; searchReferences: string[] }> {
      sent.push(options.filter);
      if (state.down) throw new Error('connect ECONNREFUSED 127.0.0.1:389');
      const terms = [...options.filter.matchAll(/\((uid|mail)=([^()]*)\)/g)].map((m) => ({ attribute: m[1] as 'uid' | 'mail', value: m[2].toLowerCase() }));
      const found = people.filter((p) => terms.some((t) => p[t.attribute].toLowerCase() === t.value));
      return { searchEntries: found.map((p) => ({ dn: `uid=${p.uid},ou=people,dc=example,dc=test`, uid: p.uid, mail: p.mail })), searchReferences: [] };
    }
  }
  return { ...ldapts, Client: FakeClient } as unknown as typeof import('ldapts');
}

function settings(extra: Partial<LdapUserStoreSettings> = {}): LdapUserStoreSettings {
  return {
    url: 'ldap://ldap.example.test',
    baseDn: 'dc=example,dc=test',
    searchFilter: '(|(uid=%s)(mail=%s))',
    usernameAttribute: 'uid',
    mailAttribute: 'mail',
    nameAttribute: 'displayName',
    groupFilter: '(|(member=%d)(uniqueMember=%d)(memberUid=%s))',
    groupNameAttribute: 'cn',
    startTls: false,
    insecure: false,
    nestedGroups: 'off',
    timeoutMs: 2000,
    cacheTtlMs: 60_000,
    accountCheckIntervalMs: 1000,
    ...extra,
  };
}

function setUp(people: Person[]) {
  const sent: string[] = [];
  const state = { down: false };
  const store = new LdapUserStore(settings(), 'example.test', new FixedClock(), silentLogger, fakeLdapts(people, sent, state));
  return { store, sent, state };
}

describe('LdapUserStore.absent (the account check, issue 35)', () => {
  it('answers the names no entry holds, in the spellings asked, from one search whose filter ORs the search filter for each', async () => {
    const { store, sent } = setUp([{ uid: 'alice', mail: 'alice@example.test' }]);
    expect(await store.absent(['alice', 'Bob', 'bob'])).toEqual(['Bob', 'bob']);
    expect(sent).toEqual(['(|(|(uid=alice)(mail=alice))(|(uid=bob)(mail=bob)))']);
  });

  it('counts a name matched only as someone else’s e-mail as absent', async () => {
    const { store } = setUp([{ uid: 'carol', mail: 'dave' }]);
    expect(await store.absent(['dave'])).toEqual(['dave']);
  });

  it(`asks about at most ${ACCOUNTS_PER_CHECK} names per search`, async () => {
    const names = Array.from({ length: 2 * ACCOUNTS_PER_CHECK + 1 }, (_, i) => `user${i}`);
    const { store, sent } = setUp(names.map((uid) => ({ uid, mail: `${uid}@example.test` })));
    expect(await store.absent(names)).toEqual([]);
    expect(sent.map((f) => (f.match(/\(uid=/g) ?? []).length)).toEqual([ACCOUNTS_PER_CHECK, ACCOUNTS_PER_CHECK, 1]);
  });

  it('escapes each name in the filter (RFC 4515), so a name cannot widen the search', async () => {
    const { store, sent } = setUp([{ uid: 'eve', mail: 'eve@example.test' }]);
    expect(await store.absent(['*'])).toEqual(['*']);
    expect(sent).toEqual(['(|(uid=\\2a)(mail=\\2a))']);
  });

  it('rejects as unavailable when the directory does not answer, and then still serves the account it knew', async () => {
    const { store, state } = setUp([{ uid: 'frank', mail: 'frank@example.test' }]);
    expect(await store.currentAccount('frank')).not.toBeNull();
    state.down = true;
    await expect(store.absent(['frank', 'ghost'])).rejects.toBeInstanceOf(UserStoreUnavailableError);
    expect(await store.currentAccount('frank')).not.toBeNull();
  });

  it('remembers an absent account as gone, so this process refuses it at once (not one cache TTL later)', async () => {
    const people = [{ uid: 'gina', mail: 'gina@example.test' }];
    const { store } = setUp(people);
    expect(await store.currentAccount('gina')).not.toBeNull();
    people.pop();
    // The cached answer would stand for LDAP_CACHE_TTL (60 s here)...
    expect(await store.currentAccount('gina')).not.toBeNull();
    expect(await store.absent(['gina'])).toEqual(['gina']);
    // ...but the check ends it now.
    expect(await store.currentAccount('gina')).toBeNull();
  });

  it('does not fill its cache with absent names it never cached (an OAuth session’s e-mail is asked about every check)', async () => {
    const { store, sent } = setUp([{ uid: 'hana', mail: 'hana@example.test' }]);
    expect(await store.absent(['someone@oauth.example'])).toEqual(['someone@oauth.example']);
    sent.length = 0;
    // Not answered from a remembered "gone": asked afresh.
    expect(await store.currentAccount('someone@oauth.example')).toBeNull();
    expect(sent).toHaveLength(1);
  });
});
