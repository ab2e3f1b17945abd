import { LdapUserStore, type LdapUserStoreSettings } from '../../src/adapters/users/ldap-user-store';
import { optionalModules } from '../../src/composition/optional-modules';
import { FixedClock } from '../support/fakes';
import { capturedLogger } from '../support/loggers';
import { BASE_DN, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';

let slapd: Slapd;
const open: LdapUserStore[] = [];

beforeAll(async () => {
  slapd = await Slapd.start();
});
afterAll(async () => {
  for (const s of open) await s.close();
  await slapd?.stop();
});

function storeWith(extra: Partial<LdapUserStoreSettings>) {
  const { logger, text } = capturedLogger();
  const settings: LdapUserStoreSettings = {
    url: slapd.url,
    bindDn: SERVICE_DN,
    bindPassword: SERVICE_PASSWORD,
    baseDn: BASE_DN,
    searchFilter: '(uid=%s)',
    usernameAttribute: 'uid',
    mailAttribute: 'mail',
    nameAttribute: 'displayName',
    groupAttribute: 'memberOf',
    groupFilter: '(member=%d)',
    groupNameAttribute: 'cn',
    startTls: false,
    insecure: false,
    nestedGroups: 'recursive',
    timeoutMs: 2000,
    cacheTtlMs: 0,
    accountCheckIntervalMs: 0,
    ...extra,
  };
  const store = new LdapUserStore(settings, 'example.test', new FixedClock(), logger, optionalModules.ldapts());
  open.push(store);
  return { store, log: text };
}
const groupsOf = async (store: LdapUserStore, login: string): Promise<string[]> => [...((await store.findAccount(login))?.groups ?? [])].sort();

describe('LDAP_NESTED_GROUPS=recursive against a real OpenLDAP with nested groupOfNames', () => {
  beforeEach(async () => {
    await slapd.reset();
    await slapd.addPeople([
      { uid: 'alice', password: 'alice-Pa55word', cn: 'Alice', groups: ['devs'] },
      { uid: 'bob', password: 'bob-Pa55word', cn: 'Bob', groups: ['ops'] },
      { uid: 'carol', password: 'carol-Pa55word', cn: 'Carol' },
    ]);
    // devs ⊂ engineering ⊂ staff, ops ⊂ staff (two paths to staff for nobody but a diamond for all)
    await slapd.setGroupMembers('engineering', ['group:devs', 'carol']);
    await slapd.setGroupMembers('staff', ['group:engineering', 'group:ops']);
    await slapd.setGroupMembers('vpn-users', ['group:engineering', 'group:staff']);
  });

  it('off (the default) keeps the groups the person is in directly', async () => {
    expect(await groupsOf(storeWith({ nestedGroups: 'off' }).store, 'alice')).toEqual(['devs']);
  });

  it("adds the groups of the person's groups, at every depth, each once (memberOf alone, no LDAP_GROUP_BASE_DN)", async () => {
    const { store } = storeWith({});
    expect(await groupsOf(store, 'alice')).toEqual(['devs', 'engineering', 'staff', 'vpn-users']);
    expect(await groupsOf(store, 'bob')).toEqual(['ops', 'staff', 'vpn-users']);
    expect(await groupsOf(store, 'carol')).toEqual(['engineering', 'staff', 'vpn-users']);
  });

  it('starts from a group search as well (LDAP_GROUP_BASE_DN, no group attribute)', async () => {
    const { store } = storeWith({ groupAttribute: undefined, groupBaseDn: `ou=groups,${BASE_DN}` });
    expect(await groupsOf(store, 'alice')).toEqual(['devs', 'engineering', 'staff', 'vpn-users']);
    expect(await groupsOf(store, 'carol')).toEqual(['engineering', 'staff', 'vpn-users']);
  });

  it('ends a cycle (staff inside devs inside … staff) with every group once', async () => {
    await slapd.setGroupMembers('devs', ['alice', 'group:staff']);
    const { store } = storeWith({});
    expect(await groupsOf(store, 'alice')).toEqual(['devs', 'engineering', 'staff', 'vpn-users']);
    await slapd.setGroupMembers('loop', ['alice', 'group:loop']);
    expect(await groupsOf(store, 'alice')).toEqual(['devs', 'engineering', 'loop', 'staff', 'vpn-users']);
  });

  it('stops at the depth bound, keeps what it found and says so in the log once', async () => {
    // g1 ⊂ g2 ⊂ … ⊂ g6, alice in g1
    await slapd.setGroups('alice', ['g1']);
    for (let i = 2; i <= 6; i += 1) await slapd.setGroupMembers(`g${i}`, [`group:g${i - 1}`]);
    const { store, log } = storeWith({ nestingLimits: { depth: 3, groups: 100 } });
    expect(await groupsOf(store, 'alice')).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(await groupsOf(store, 'alice')).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(log().match(/ldap nested groups deeper than 3 levels were left out/g)).toHaveLength(1);
    expect(await groupsOf(storeWith({}).store, 'alice')).toEqual(['g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
  });

  it('stops at the group bound (direct groups included), keeps what it found and says so in the log', async () => {
    await slapd.setGroups('alice', ['g1']);
    for (let i = 2; i <= 6; i += 1) await slapd.setGroupMembers(`wide${i}`, ['group:g1']);
    const { store, log } = storeWith({ nestingLimits: { depth: 8, groups: 3 } });
    const groups = await groupsOf(store, 'alice');
    expect(groups).toHaveLength(3);
    expect(groups).toContain('g1');
    expect(log()).toContain('ldap nested groups past 3 groups were left out');
  });

  it('reaches session checks: a nesting removed in the directory leaves the groups at the next re-check, with no new login', async () => {
    const { store } = storeWith({});
    expect([...((await store.currentAccount('alice'))?.groups ?? [])].sort()).toEqual(['devs', 'engineering', 'staff', 'vpn-users']);
    await slapd.setGroupMembers('engineering', ['carol']);
    expect([...((await store.currentAccount('alice'))?.groups ?? [])].sort()).toEqual(['devs']);
  });

  it('escapes a group DN with filter characters in the searches it makes', async () => {
    await slapd.setGroupMembers('ops (eu)*', ['alice']);
    await slapd.setGroupMembers('eu-staff', ['group:ops (eu)*']);
    const { store } = storeWith({});
    expect(await groupsOf(store, 'alice')).toEqual(['devs', 'engineering', 'eu-staff', 'ops (eu)*', 'staff', 'vpn-users']);
  });
});
