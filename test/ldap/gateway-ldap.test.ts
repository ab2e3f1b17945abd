import { hashOf } from '../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../support/server';
import { BASE_DN, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';

describe('the gateway with an LDAP directory (real OpenLDAP, real HTTP)', () => {
  let slapd: Slapd;
  let gw: RunningGateway;

  beforeAll(async () => {
    slapd = await Slapd.start();
    await slapd.addPeople([
      {
        uid: 'alice',
        password: 'alice-Pa55word',
        cn: 'Alice L',
        displayName: 'Alice Liddell',
        mail: 'alice@corp.example.test',
        groups: ['admins'],
        posixGroups: ['staff'],
      },
      { uid: 'dave', password: 'dave-Pa55word', cn: 'Dave' },
    ]);
    gw = await startGateway({
      USERS: `carol:${hashOf('carol-pw')}`,
      LDAP_ADDRESS: slapd.url,
      LDAP_BIND_DN: SERVICE_DN,
      LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
      LDAP_BASE_DN: BASE_DN,
      LDAP_SEARCH_FILTER: '(&(objectClass=inetOrgPerson)(|(uid=%s)(mail=%s)))',
      LDAP_GROUP_ATTRIBUTE: 'memberOf',
      LDAP_GROUP_BASE_DN: `ou=groups,${BASE_DN}`,
      LDAP_TIMEOUT: '2',
      LDAP_CACHE_TTL: '1',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await slapd?.stop();
  });

  const login = (username: string, password: string): Promise<Response> =>
    fetch(`${gw.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const sessionOf = (res: Response): string => `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value ?? ''}`;
  const forwardAuth = (cookie: string): Promise<Response> =>
    fetch(`${gw.url}/api/auth/caddy`, {
      headers: { cookie, accept: 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/x' },
    });

  it('logs in a directory account by e-mail and passes its identity and groups upstream', async () => {
    const res = await login('ALICE@corp.example.test', 'alice-Pa55word');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 200, code: 'logged_in', message: 'Logged in', totpPending: 'false' });
    const auth = await forwardAuth(sessionOf(res));
    expect(auth.status).toBe(200);
    expect(auth.headers.get('remote-user')).toBe('alice');
    expect(auth.headers.get('remote-name')).toBe('Alice Liddell');
    expect(auth.headers.get('remote-email')).toBe('alice@corp.example.test');
    expect(auth.headers.get('remote-groups')?.split(',').sort()).toEqual(['admins', 'staff']);
  });

  it('answers a wrong password, an unknown user and an injection attempt with the same 401', async () => {
    const bodies = [];
    for (const [u, p] of [
      ['alice', 'wrong'],
      ['nobody', 'alice-Pa55word'],
      ['*', 'alice-Pa55word'],
      ['*)(uid=*', 'x'],
    ]) {
      const res = await login(u, p);
      expect(res.status).toBe(401);
      bodies.push(await res.json());
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('accepts HTTP Basic for a directory account', async () => {
    const res = await fetch(`${gw.url}/api/auth/traefik`, {
      headers: {
        authorization: `Basic ${Buffer.from('dave:dave-Pa55word').toString('base64')}`,
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'app.example.test',
        'x-forwarded-uri': '/',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('remote-user')).toBe('dave');
  });

  it('during an outage: directory logins get 503 quickly, sessions and local accounts keep working; after a restart logins work again', async () => {
    const alice = sessionOf(await login('alice', 'alice-Pa55word'));
    await slapd.kill();

    const started = Date.now();
    const down = await login('alice', 'alice-Pa55word');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 503, code: 'store_unavailable', message: 'Service unavailable, try again later' });
    // Bounded by LDAP_TIMEOUT (2 s) for connecting plus as much for the operation, with room for a slow machine.
    expect(Date.now() - started).toBeLessThan(8000);

    expect((await forwardAuth(alice)).status).toBe(200);
    expect((await fetch(`${gw.url}/api/healthcheck`)).status).toBe(200);
    const carol = await login('carol', 'carol-pw');
    expect(carol.status).toBe(200);
    expect((await forwardAuth(sessionOf(carol))).status).toBe(200);

    await slapd.run();
    const back = await login('alice', 'alice-Pa55word');
    expect(back.status).toBe(200);
    expect((await forwardAuth(sessionOf(back))).status).toBe(200);
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

  it('refuses a session made with a password changed since in the directory, once the re-check interval (LDAP_CACHE_TTL) has passed', async () => {
    await slapd.addPeople([{ uid: 'erin', password: 'erin-Old-pw1', cn: 'Erin', groups: ['editors'] }]);
    const erin = sessionOf(await login('erin', 'erin-Old-pw1'));
    expect((await forwardAuth(erin)).status).toBe(200);
    await slapd.setPassword('erin', 'erin-New-pw2');
    expect(await within(15_000, async () => (await forwardAuth(erin)).status === 401)).toBe(true);
    expect((await login('erin', 'erin-Old-pw1')).status).toBe(401);
    const fresh = await login('erin', 'erin-New-pw2');
    expect(fresh.status).toBe(200);
    expect((await forwardAuth(sessionOf(fresh))).status).toBe(200);
  });

  it("passes the directory's current groups upstream once the re-check interval has passed, with no new login", async () => {
    await slapd.addPeople([{ uid: 'frank', password: 'frank-Pa55word', cn: 'Frank', groups: ['editors', 'auditors'] }]);
    const frank = sessionOf(await login('frank', 'frank-Pa55word'));
    expect((await forwardAuth(frank)).headers.get('remote-groups')?.split(',').sort()).toEqual(['auditors', 'editors']);
    await slapd.setGroups('frank', ['editors']);
    expect(await within(15_000, async () => (await forwardAuth(frank)).headers.get('remote-groups') === 'editors')).toBe(true);
    expect((await forwardAuth(frank)).status).toBe(200);
  });

  it('ends the session of an account deleted from the directory once the cache has expired', async () => {
    const dave = sessionOf(await login('dave', 'dave-Pa55word'));
    expect((await forwardAuth(dave)).status).toBe(200);
    await slapd.removePeople(['dave']);
    const until = Date.now() + 15_000;
    let status = 200;
    while (status === 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await forwardAuth(dave)).status;
    }
    expect(status).toBe(401);
  });
});

describe('user enumeration by time against an LDAP directory (real OpenLDAP, real HTTP)', () => {
  let slapd: Slapd;
  let gw: RunningGateway;

  beforeAll(async () => {
    slapd = await Slapd.start();
    await slapd.addPeople([{ uid: 'alice', password: 'alice-Pa55word', cn: 'Alice L', groups: ['admins'] }]);
    // Locking off: every attempt must reach the check, or the lock's fast 429 would hide the timing.
    gw = await startGateway({
      LDAP_ADDRESS: slapd.url,
      LDAP_BIND_DN: SERVICE_DN,
      LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
      LDAP_BASE_DN: BASE_DN,
      LDAP_GROUP_ATTRIBUTE: 'memberOf',
      LDAP_GROUP_BASE_DN: `ou=groups,${BASE_DN}`,
      LOGIN_MAX_RETRIES: '0',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await slapd?.stop();
  });

  async function timed(username: string): Promise<number> {
    const started = performance.now();
    const res = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: 'wrong-Pa55word' }),
    });
    expect(res.status).toBe(401);
    await res.arrayBuffer();
    return performance.now() - started;
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  it('answers an unknown name in about the time of a known name with a wrong password', async () => {
    for (let i = 0; i < 5; i += 1) await Promise.all([timed('alice'), timed(`nobody-${i}`)].map((p) => p.catch(() => 0)));
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, so a burst of load on a shared machine hits both series alike.
    for (let i = 0; i < 20; i += 1) {
      known.push(await timed('alice'));
      unknown.push(await timed(`nobody-${i}`));
    }
    const [k, u] = [median(known), median(unknown)];
    expect(Math.max(k, u) / Math.min(k, u)).toBeLessThan(2);
  });
});
