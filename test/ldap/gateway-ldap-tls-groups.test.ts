import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LdapWiretap } from '../support/ldap-wiretap';
import { cookieFrom, startGateway, type RunningGateway } from '../support/server';
import { BASE_DN, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';

const login = (gw: RunningGateway, username: string, password: string): Promise<Response> =>
  fetch(`${gw.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
const sessionOf = (res: Response): string => `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value ?? ''}`;
const forwardAuth = (gw: RunningGateway, cookie: string, host: string): Promise<Response> =>
  fetch(`${gw.url}/api/auth/caddy`, {
    headers: { cookie, accept: 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-uri': '/' },
  });

/** Asks `probe` every 200 ms until it holds; false when it never did within `ms`. */
async function within(ms: number, probe: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return probe();
}

describe('the gateway with LDAP_START_TLS, LDAP_CA_FILE and LDAP_NESTED_GROUPS=recursive (real OpenLDAP, real HTTP)', () => {
  let slapd: Slapd;
  let tap: LdapWiretap;
  let gw: RunningGateway;
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-ldap-rules-'));

  beforeAll(async () => {
    slapd = await Slapd.start({ tls: true });
    await slapd.addPeople([
      { uid: 'alice', password: 'alice-Pa55word', cn: 'Alice', groups: ['devs'] },
      { uid: 'bob', password: 'bob-Pa55word', cn: 'Bob', groups: ['ops'] },
    ]);
    await slapd.setGroupMembers('engineering', ['group:devs']);
    tap = await LdapWiretap.start(slapd.port);
    // Only people in "engineering" (here: through devs) may use the wiki.
    writeFileSync(join(dir, 'access.yaml'), 'apps:\n  wiki:\n    domain: wiki.example.test\n    oauth: { groups: [engineering] }\n');
    gw = await startGateway({
      LDAP_ADDRESS: tap.url,
      LDAP_START_TLS: 'true',
      LDAP_CA_FILE: slapd.caFile,
      LDAP_BIND_DN: SERVICE_DN,
      LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
      LDAP_BASE_DN: BASE_DN,
      LDAP_GROUP_ATTRIBUTE: 'memberOf',
      LDAP_NESTED_GROUPS: 'recursive',
      LDAP_TIMEOUT: '2',
      LDAP_CACHE_TTL: '1',
      ACCESS_CONFIG: join(dir, 'access.yaml'),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await tap?.close();
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in over StartTLS (no password in the clear) and lets a group inherited through a nested group pass an access rule', async () => {
    const alice = await login(gw, 'alice', 'alice-Pa55word');
    expect(alice.status).toBe(200);
    const auth = await forwardAuth(gw, sessionOf(alice), 'wiki.example.test');
    expect(auth.status).toBe(200);
    expect(auth.headers.get('remote-groups')?.split(',').sort()).toEqual(['devs', 'engineering']);
    const bob = await login(gw, 'bob', 'bob-Pa55word');
    expect(bob.status).toBe(200);
    expect((await forwardAuth(gw, sessionOf(bob), 'wiki.example.test')).status).toBe(403);
    expect(tap.sawInClear('alice-Pa55word')).toBe(false);
    expect(tap.sawInClear('bob-Pa55word')).toBe(false);
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(false);
  });

  it('a session follows the nesting: taking devs out of engineering closes the wiki to it at the next re-check, with no new login', async () => {
    await slapd.setGroupMembers('engineering', ['group:devs']);
    const alice = sessionOf(await login(gw, 'alice', 'alice-Pa55word'));
    expect((await forwardAuth(gw, alice, 'wiki.example.test')).status).toBe(200);
    await slapd.setGroupMembers('engineering', ['bob']);
    expect(await within(15_000, async () => (await forwardAuth(gw, alice, 'wiki.example.test')).status === 403)).toBe(true);
    expect((await forwardAuth(gw, alice, 'other.example.test')).headers.get('remote-groups')).toBe('devs');
    await slapd.setGroupMembers('engineering', ['group:devs']);
  });
});

describe('the gateway with LDAP_START_TLS against a directory without TLS (real OpenLDAP, real HTTP)', () => {
  let slapd: Slapd;
  let tap: LdapWiretap;
  let gw: RunningGateway;

  beforeAll(async () => {
    slapd = await Slapd.start();
    await slapd.addPeople([{ uid: 'alice', password: 'alice-Pa55word', cn: 'Alice' }]);
    tap = await LdapWiretap.start(slapd.port);
    gw = await startGateway({
      LDAP_ADDRESS: tap.url,
      LDAP_START_TLS: 'true',
      LDAP_BIND_DN: SERVICE_DN,
      LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
      LDAP_BASE_DN: BASE_DN,
      LDAP_TIMEOUT: '2',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await tap?.close();
    await slapd?.stop();
  });

  it('answers logins 503 store_unavailable (never 401, never a plain-text bind)', async () => {
    const res = await login(gw, 'alice', 'alice-Pa55word');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 503, code: 'store_unavailable', message: 'Service unavailable, try again later' });
    expect(tap.sawInClear('alice-Pa55word')).toBe(false);
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(false);
  });
});
