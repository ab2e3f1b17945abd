import { generate } from 'otplib';
import { TOKENS } from '../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../support/credentials';
import { expectEnvelope, postJson } from '../support/http';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../support/server';
import { BASE_DN, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';

// Issue 36: the admin console lists the directory's people (read-only, source ldap) next to the users file's.
describe('the admin console with an LDAP directory (real OpenLDAP, real HTTP)', () => {
  let slapd: Slapd;
  let gw: RunningGateway;
  let now = Date.now();

  beforeAll(async () => {
    slapd = await Slapd.start();
    await slapd.addPeople([
      { uid: 'alice', password: 'alice-Pa55word', cn: 'Alice L', displayName: 'Alice Liddell', mail: 'alice@corp.example.test', groups: ['staff'] },
      { uid: 'dave', password: 'dave-Pa55word', cn: 'Dave' },
    ]);
    gw = await startGatewayWithUsersFile(
      `users:\n  - { username: root, password: "${hashOf('pw')}", groups: [admins], totp_secret: ${TOTP_SECRET} }\n`,
      {
        ADMIN_GROUPS: 'admins',
        LDAP_ADDRESS: slapd.url,
        LDAP_BIND_DN: SERVICE_DN,
        LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
        LDAP_BASE_DN: BASE_DN,
        LDAP_SEARCH_FILTER: '(&(objectClass=inetOrgPerson)(|(uid=%s)(mail=%s)))',
        LDAP_GROUP_ATTRIBUTE: 'memberOf',
        LDAP_GROUP_BASE_DN: `ou=groups,${BASE_DN}`,
        LDAP_TIMEOUT: '2',
      },
      { [TOKENS.Clock]: { now: () => now } },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await slapd?.stop();
  });

  it('GET /api/admin/users lists the directory people with source ldap, and says the list is whole', async () => {
    const first = await postJson(gw, '/api/login', { username: 'root', password: 'pw' });
    now += 30_000;
    const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) });
    const full = await postJson(gw, '/api/totp', { code }, { cookie: `portcullis-session=${cookieFrom(first, 'portcullis-session')?.value}` });
    expect(full.status).toBe(200);
    const cookie = `portcullis-session=${cookieFrom(full, 'portcullis-session')?.value}`;
    const body = await expectEnvelope(await fetch(`${gw.url}/api/admin/users`, { headers: { cookie } }), 200);
    expect(body.truncated).toEqual([]);
    const users = body.users as Array<Record<string, unknown>>;
    expect(users.map((u) => [u.username, u.source])).toEqual([
      ['alice', 'ldap'],
      ['dave', 'ldap'],
      ['root', 'file'],
    ]);
    expect(users[0]).toMatchObject({ name: 'Alice Liddell', email: 'alice@corp.example.test', groups: ['staff'], disabled: false });
    // Their sessions are listed too: everyone means everyone the stores list.
    const sessions = await expectEnvelope(await fetch(`${gw.url}/api/admin/sessions`, { headers: { cookie } }), 200);
    expect(sessions.code).toBe('sessions');
  });
});
