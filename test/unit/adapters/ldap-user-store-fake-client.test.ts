import { createServer, type Socket } from 'node:net';
import * as ldapts from 'ldapts';
import { AD_IN_CHAIN_RULE, LdapUserStore, inChainFilter, type LdapUserStoreSettings } from '../../../src/adapters/users/ldap-user-store';
import { FixedClock } from '../../support/fakes';
import { silentLogger } from '../../support/loggers';

/**
 * Active Directory's LDAP_MATCHING_RULE_IN_CHAIN cannot be tried against OpenLDAP (slapd does not
 * implement it), so these tests check what the store SENDS, through a fake ldapts client that
 * records every search and answers like a small Active Directory would.
 */
interface SentSearch {
  readonly base: string;
  readonly filter: string;
  readonly attributes: readonly string[];
}

const PERSON_DN = 'CN=Alice (Ops) Liddell,OU=People,DC=corp,DC=example';

function fakeLdapts(sent: SentSearch[]): typeof import('ldapts') {
  class FakeClient {
    isConnected = true;
    async bind(): Promise<void> {}
    async startTLS(): Promise<void> {}
    async unbind(): Promise<void> {}
    async search(base: string, options: { filter: string; attributes: string[] }): Promise<{ searchEntries: ldapts.Entry[]; searchReferences: string[] }> {
      sent.push({ base, filter: options.filter, attributes: options.attributes });
      if (options.filter.startsWith('(sAMAccountName=')) {
        return {
          searchEntries: [{ dn: PERSON_DN, sAMAccountName: 'alice', cn: 'Alice', memberOf: ['CN=Ops,OU=Groups,DC=corp,DC=example'] }],
          searchReferences: [],
        };
      }
      // What Active Directory answers to the in-chain filter: the direct group and those above it.
      return {
        searchEntries: [
          { dn: 'CN=Ops,OU=Groups,DC=corp,DC=example', cn: 'Ops' },
          { dn: 'CN=Staff,OU=Groups,DC=corp,DC=example', cn: 'Staff' },
        ],
        searchReferences: [],
      };
    }
  }
  return { ...ldapts, Client: FakeClient } as unknown as typeof import('ldapts');
}

function settings(extra: Partial<LdapUserStoreSettings> = {}): LdapUserStoreSettings {
  return {
    url: 'ldap://dc.corp.example',
    bindDn: 'CN=svc,DC=corp,DC=example',
    bindPassword: 'svc-password',
    baseDn: 'DC=corp,DC=example',
    searchFilter: '(sAMAccountName=%s)',
    usernameAttribute: 'sAMAccountName',
    mailAttribute: 'mail',
    nameAttribute: 'displayName',
    groupAttribute: 'memberOf',
    groupFilter: '(|(member=%d)(uniqueMember=%d)(memberUid=%s))',
    groupNameAttribute: 'cn',
    startTls: false,
    insecure: false,
    nestedGroups: 'ad',
    timeoutMs: 2000,
    cacheTtlMs: 0,
    accountCheckIntervalMs: 0,
    ...extra,
  };
}

describe('LDAP_NESTED_GROUPS=ad (unit test with a fake client: OpenLDAP has no LDAP_MATCHING_RULE_IN_CHAIN to run it against)', () => {
  it("sends one group search with the in-chain rule on member and the person's DN, escaped, under LDAP_BASE_DN when LDAP_GROUP_BASE_DN is unset", async () => {
    const sent: SentSearch[] = [];
    const store = new LdapUserStore(settings(), 'corp.example', new FixedClock(), silentLogger, fakeLdapts(sent));
    const account = await store.findAccount('alice');
    expect([...(account?.groups ?? [])].sort()).toEqual(['Ops', 'Staff']);
    const groupSearches = sent.filter((s) => !s.filter.startsWith('(sAMAccountName='));
    expect(groupSearches).toEqual([
      { base: 'DC=corp,DC=example', filter: '(member:1.2.840.113556.1.4.1941:=CN=Alice \\28Ops\\29 Liddell,OU=People,DC=corp,DC=example)', attributes: ['cn'] },
    ]);
  });

  it('searches under LDAP_GROUP_BASE_DN when set, instead of LDAP_GROUP_FILTER (one search, not two)', async () => {
    const sent: SentSearch[] = [];
    const store = new LdapUserStore(
      settings({ groupBaseDn: 'OU=Groups,DC=corp,DC=example' }),
      'corp.example',
      new FixedClock(),
      silentLogger,
      fakeLdapts(sent),
    );
    await store.findAccount('alice');
    const groupSearches = sent.filter((s) => !s.filter.startsWith('(sAMAccountName='));
    expect(groupSearches.map((s) => s.base)).toEqual(['OU=Groups,DC=corp,DC=example']);
    expect(groupSearches[0].filter).toContain(`:${AD_IN_CHAIN_RULE}:=`);
  });

  it('an unknown name makes the same group search (with a decoy DN), so it costs what a known name costs', async () => {
    const sent: SentSearch[] = [];
    const store = new LdapUserStore(settings(), 'corp.example', new FixedClock(), silentLogger, fakeLdapts(sent));
    await store.verifyDecoy('nobody', 'some-password');
    expect(sent).toHaveLength(1);
    expect(sent[0].filter).toMatch(/^\(member:1\.2\.840\.113556\.1\.4\.1941:=cn=portcullis-decoy-[0-9a-f]+,DC=corp,DC=example\)$/);
  });

  it('the filter is a valid RFC 4515 extensible match that ldapts encodes with the rule, the attribute and the DN', () => {
    const parsed = ldapts.FilterParser.parseString(inChainFilter('CN=a*b\\,c,DC=x')) as ldapts.ExtensibleFilter & { attribute?: string };
    expect(parsed).toBeInstanceOf(ldapts.ExtensibleFilter);
    expect(parsed.rule).toBe('1.2.840.113556.1.4.1941');
    expect(parsed.matchType).toBe('member');
    expect(parsed.value).toBe('CN=a*b\\,c,DC=x');
  });
});

describe('LDAP_START_TLS and the client library reconnecting on its own (unit test with a fake client)', () => {
  it('gives a StartTLS client one TCP connection: a second one (a plain-text reconnect after a drop) is refused before any socket opens', async () => {
    const made: { createConnection?: (port: number, host: string) => Socket }[] = [];
    class FakeClient {
      isConnected = true;
      constructor(options: { createConnection?: (port: number, host: string) => Socket }) {
        made.push(options);
      }
      async bind(): Promise<void> {}
      async startTLS(): Promise<void> {}
      async unbind(): Promise<void> {}
      async search(): Promise<{ searchEntries: ldapts.Entry[]; searchReferences: string[] }> {
        return { searchEntries: [], searchReferences: [] };
      }
    }
    const fake = { ...ldapts, Client: FakeClient } as unknown as typeof import('ldapts');
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      await new LdapUserStore(settings({ startTls: true }), 'corp.example', new FixedClock(), silentLogger, fake).findAccount('alice');
      const connectOf = made[0].createConnection;
      expect(connectOf).toBeDefined();
      connectOf!(port, '127.0.0.1').destroy();
      expect(() => connectOf!(port, '127.0.0.1')).toThrow('not reconnecting in plain text');
      // Without StartTLS, reconnecting stays the library's business.
      await new LdapUserStore(settings({ startTls: false }), 'corp.example', new FixedClock(), silentLogger, fake).findAccount('alice');
      const plain = made[made.length - 1].createConnection!;
      plain(port, '127.0.0.1').destroy();
      plain(port, '127.0.0.1').destroy();
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
