import { optionalModules } from '../../src/composition/optional-modules';
import { LdapUserStore, passwordModifyRequest } from '../../src/adapters/users/ldap-user-store';
import { DEFAULT_LDAP_GROUP_FILTER } from '../../src/config/ldap';
import { FixedClock } from '../support/fakes';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE } from '../support/http';
import { silentLogger } from '../support/loggers';
import { cookieFrom, startGateway, type RunningGateway } from '../support/server';
import { BASE_DN, personDn, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';

const NEW = 'a much longer passphrase';
const APP = 'https://app.example.test/';

let slapd: Slapd;
beforeAll(async () => {
  slapd = await Slapd.start();
  await slapd.addPeople([
    { uid: 'alice', password: 'alice-Pa55word', cn: 'Alice' },
    { uid: 'bob', password: 'bob-Pa55word', cn: 'Bob' },
    { uid: 'carol', password: 'carol-Pa55word', cn: 'Carol', hashed: false },
    { uid: 'dave', password: 'dave-Pa55word', cn: 'Dave' },
    { uid: 'erin', password: 'erin-Pa55word', cn: 'Erin' },
  ]);
});
afterAll(async () => {
  await slapd?.stop();
});

const LDAP_ENV = {
  LDAP_ADDRESS: '',
  LDAP_BIND_DN: SERVICE_DN,
  LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
  LDAP_BASE_DN: BASE_DN,
  LDAP_TIMEOUT: '2',
  // Long on purpose: the change must reach session checks at once, not after the cache's TTL.
  LDAP_CACHE_TTL: '600',
};

/** The userPassword value slapd holds for `uid`, read as the directory's administrator. */
const storedPassword = (uid: string): Promise<string> =>
  slapd.admin(async (c) => {
    const { searchEntries } = await c.search(personDn(uid), { scope: 'base', attributes: ['userPassword'] });
    const value = searchEntries[0]?.userPassword;
    return String(Array.isArray(value) ? value[0] : value);
  });

describe('the RFC 3062 request value', () => {
  it('is SEQUENCE { [0] userIdentity, [1] oldPasswd, [2] newPasswd } as primitive context-specific octet strings', () => {
    const value = passwordModifyRequest(optionalModules.ldapts(), 'cn=a', 'x', 'yz');
    expect(value.toString('hex')).toBe('300d' + '8004' + Buffer.from('cn=a').toString('hex') + '8101' + '78' + '8202' + Buffer.from('yz').toString('hex'));
  });
});

describe('LdapUserStore.changePassword against slapd', () => {
  const store = (): LdapUserStore =>
    new LdapUserStore(
      {
        url: slapd.url,
        bindDn: SERVICE_DN,
        bindPassword: SERVICE_PASSWORD,
        baseDn: BASE_DN,
        searchFilter: '(uid=%s)',
        usernameAttribute: 'uid',
        mailAttribute: 'mail',
        nameAttribute: 'displayName',
        groupFilter: DEFAULT_LDAP_GROUP_FILTER,
        groupNameAttribute: 'cn',
        startTls: false,
        insecure: false,
        nestedGroups: 'off',
        timeoutMs: 2000,
        cacheTtlMs: 600_000,
        passwordChange: true,
        accountCheckIntervalMs: 0,
      },
      'example.test',
      new FixedClock(),
      silentLogger,
      optionalModules.ldapts(),
    );

  it('changes the password as the person: the old one no longer binds, the new one does, slapd stores it hashed', async () => {
    const s = store();
    try {
      const before = await s.findAccount('carol');
      if (before === null) throw new Error('carol not found');
      expect(await s.changePassword(before, 'carol-Pa55word', NEW)).toBe('changed');
      const after = await s.currentAccount('carol');
      // The cached entry was read again: its change stamp (the credential version) moved at once.
      expect(after?.credentialVersion).not.toBe(before.credentialVersion);
      expect(await s.verifyPassword(after!, 'carol-Pa55word')).toBe(false);
      expect(await s.verifyPassword(after!, NEW)).toBe(true);
      // carol's password was stored in plain text; slapd hashed the new one ({SSHA} by default).
      expect(await storedPassword('carol')).toMatch(/^\{SSHA\}/);
    } finally {
      await s.close();
    }
  });

  it('answers invalid_credentials for a wrong current password and changes nothing', async () => {
    const s = store();
    try {
      const dave = await s.findAccount('dave');
      expect(await s.changePassword(dave!, 'not-daves', NEW)).toBe('invalid_credentials');
      expect(await s.verifyPassword(dave!, 'dave-Pa55word')).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('POST /api/account/password for directory accounts (real slapd, real HTTP)', () => {
  let gw: RunningGateway;
  let readOnly: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ ...LDAP_ENV, LDAP_ADDRESS: slapd.url, LDAP_PASSWORD_CHANGE: 'true', LOGIN_MAX_RETRIES: '3' });
    readOnly = await startGateway({ ...LDAP_ENV, LDAP_ADDRESS: slapd.url });
  });
  afterAll(async () => {
    await gw?.close();
    await readOnly?.close();
  });

  const live = async (cookie: string): Promise<boolean> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;

  it('changes the directory password; other sessions end, the caller’s re-issued one passes', async () => {
    const mine = await loginCookie(gw, 'alice', 'alice-Pa55word');
    const other = await loginCookie(gw, 'alice', 'alice-Pa55word');
    expect(await expectEnvelope(await fetch(`${gw.url}/api/account/password`, { headers: { cookie: mine } }), 200)).toMatchObject({ changeable: true });
    const res = await postJson(gw, '/api/account/password', { current: 'alice-Pa55word', password: NEW }, { cookie: mine });
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'password_changed', ended: 2 });
    const reissued = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
    expect(await live(reissued)).toBe(true);
    expect(await live(other)).toBe(false);
    expect((await postJson(gw, '/api/login', { email: 'alice', password: 'alice-Pa55word' })).status).toBe(401);
    expect((await postJson(gw, '/api/login', { email: 'alice', password: NEW })).status).toBe(200);
  });

  it('counts a wrong current password like a failed login', async () => {
    const cookie = await loginCookie(gw, 'bob', 'bob-Pa55word');
    for (let i = 0; i < 3; i += 1) expect((await postJson(gw, '/api/account/password', { current: 'wrong-one', password: NEW }, { cookie })).status).toBe(401);
    expect((await postJson(gw, '/api/login', { email: 'bob', password: 'bob-Pa55word' })).status).toBe(429);
  });

  it('answers read_only_source without LDAP_PASSWORD_CHANGE and leaves the password as it was', async () => {
    const cookie = await loginCookie(readOnly, 'erin', 'erin-Pa55word');
    const res = await postJson(readOnly, '/api/account/password', { current: 'erin-Pa55word', password: NEW }, { cookie });
    expect(await expectEnvelope(res, 409)).toMatchObject({ code: 'read_only_source' });
    expect(await expectEnvelope(await fetch(`${readOnly.url}/api/account/password`, { headers: { cookie } }), 200)).toMatchObject({ changeable: false });
    expect((await postJson(readOnly, '/api/login', { email: 'erin', password: 'erin-Pa55word' })).status).toBe(200);
  });
});
