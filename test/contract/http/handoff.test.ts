import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { FixedClock } from '../../support/fakes';
import { askForwardAuth, BROWSER_ACCEPT, forwardedBy, forwardedFor, SESSION_COOKIE } from '../../support/http';
import { hostRequest, setCookieValue, type HostReply as Reply, type HostRequestOptions } from '../../support/host-request';
import { startGateway, type RunningGateway } from '../../support/server';
import { openRedirectCorpus } from '../../security/support/open-redirect-corpus';

/**
 * Issue 17 over real sockets: one gateway for three root domains (`example.test` the primary,
 * `other.test` and `third.test` secondaries), each gateway URL told apart by the Host header the
 * proxy passes on. The attacks (replay, expiry, another domain, another browser, a revoked
 * session, open redirects) were each seen failing against a gateway with the matching check removed.
 */
const PRIMARY = 'https://auth.example.test';
const OTHER = 'https://auth.other.test';
const THIRD = 'https://auth.third.test';
const APP_OTHER = 'https://app.other.test/dashboard?tab=1';
/** The secondary's browser-binding cookie: `__Host-`, so no other host of its domain can set or overwrite it. */
const STATE_COOKIE = '__Host-portcullis-handoff';

describe('one login across several root domains (the hand-off)', () => {
  let gw: RunningGateway;
  // Real time, moved forward by hand for the expiry tests: sessions and codes read this clock.
  const clock = new FixedClock(Date.now());

  beforeAll(async () => {
    gw = await startGateway(
      {
        APP_URL: `${PRIMARY},${OTHER},${THIRD}`,
        USERS: `alice:${hashOf('alice-pw')},carol:${hashOf('carol-pw')}:${TOTP_SECRET}`,
      },
      { [TOKENS.Clock]: clock },
    );
  });
  afterAll(() => gw.close());

  /** One request to the gateway as a proxy in front of `origin` passes it on (Host = that gateway URL's host). */
  const call = (origin: string, path: string, options: HostRequestOptions = {}): Promise<Reply> => hostRequest(gw.url, origin, path, options);

  const cookieLine = (reply: Reply, name: string): string | undefined => reply.cookies.find((c) => c.startsWith(`${name}=`));

  const login = async (user = 'alice', password = `${user}-pw`, origin = PRIMARY): Promise<string> => {
    const res = await call(origin, '/api/login', { method: 'POST', body: JSON.stringify({ email: user, password }) });
    expect(res.status).toBe(200);
    return `${SESSION_COOKIE}=${setCookieValue(res, SESSION_COOKIE)}`;
  };

  /** The secondary's start: the redirect to the primary and the browser-binding cookie. */
  const start = async (secondary = OTHER, target = APP_OTHER): Promise<{ issueUrl: URL; stateCookie: string }> => {
    const res = await call(secondary, `/api/handoff/start?redirect_uri=${encodeURIComponent(target)}`);
    expect(res.status).toBe(302);
    const state = setCookieValue(res, STATE_COOKIE);
    expect(state).not.toBeNull();
    return { issueUrl: new URL(res.location ?? ''), stateCookie: `${STATE_COOKIE}=${state}` };
  };
  const issue = (issueUrl: URL, cookie?: string): Promise<Reply> => call(PRIMARY, `${issueUrl.pathname}${issueUrl.search}`, { cookie });
  const redeem = (redeemUrl: string, cookie?: string, origin?: string): Promise<Reply> => {
    const url = new URL(redeemUrl);
    return call(origin ?? url.origin, `${url.pathname}${url.search}`, { cookie });
  };
  /** A whole hand-off for a browser logged in on the primary with `session`: the redeem answer and the code's URL. */
  const handOff = async (session: string, secondary = OTHER, target = APP_OTHER): Promise<{ reply: Reply; redeemUrl: string; stateCookie: string }> => {
    const { issueUrl, stateCookie } = await start(secondary, target);
    const issued = await issue(issueUrl, session);
    expect(issued.status).toBe(302);
    const redeemUrl = issued.location ?? '';
    return { reply: await redeem(redeemUrl, stateCookie), redeemUrl, stateCookie };
  };
  const passes = async (cookie: string, url: string): Promise<boolean> =>
    (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(url) })).status === 200;

  describe('configuration seen from each gateway URL', () => {
    it('reports, in /api/app, the cookie domain of the host it was asked on', async () => {
      const domains = await Promise.all([PRIMARY, OTHER, THIRD].map(async (o) => JSON.parse((await call(o, '/api/app')).body).domain));
      expect(domains).toEqual(['example.test', 'other.test', 'third.test']);
    });

    it('sets the cookie of the domain a login was made on', async () => {
      const res = await call(OTHER, '/api/login', { method: 'POST', body: JSON.stringify({ email: 'alice', password: 'alice-pw' }) });
      expect(cookieLine(res, SESSION_COOKIE)).toContain('Domain=other.test');
    });
  });

  describe('forward auth', () => {
    it('sends a browser without a cookie for an app of a secondary domain to that domain’s hand-off start', async () => {
      for (const proxy of ['traefik', 'caddy']) {
        const res = await askForwardAuth(gw, proxy, { accept: BROWSER_ACCEPT, ...forwardedBy(proxy, APP_OTHER) });
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe(`${OTHER}/api/handoff/start?redirect_uri=${encodeURIComponent(APP_OTHER)}`);
      }
      const nginx = await askForwardAuth(gw, 'nginx', { accept: BROWSER_ACCEPT, ...forwardedBy('nginx', APP_OTHER) });
      expect(nginx.status).toBe(401);
      expect(nginx.headers.get('x-portcullis-location')).toBe(`${OTHER}/api/handoff/start?redirect_uri=${encodeURIComponent(APP_OTHER)}`);
    });

    it('keeps sending an app of the primary domain to the login page', async () => {
      const res = await askForwardAuth(gw, 'traefik', { accept: BROWSER_ACCEPT, ...forwardedFor('https://app.example.test/x') });
      expect(res.headers.get('location')).toBe(`${PRIMARY}/login?redirect_uri=${encodeURIComponent('https://app.example.test/x')}`);
    });

    it('sends an app of no configured domain to the login page without a target', async () => {
      const res = await askForwardAuth(gw, 'traefik', { accept: BROWSER_ACCEPT, ...forwardedFor('https://app.evil.test/x') });
      expect(res.headers.get('location')).toBe(`${PRIMARY}/login`);
    });
  });

  describe('the hand-off', () => {
    it('gives a person logged in on the primary the same session on the secondary, then the original URL, without typing', async () => {
      const session = await login();
      const { reply } = await handOff(session);
      expect(reply.status).toBe(302);
      expect(reply.location).toBe(APP_OTHER);
      const line = cookieLine(reply, SESSION_COOKIE) ?? '';
      expect(line).toContain('Domain=other.test');
      expect(line).toMatch(/HttpOnly/);
      const secondary = `${SESSION_COOKIE}=${setCookieValue(reply, SESSION_COOKIE)}`;
      expect(await passes(secondary, APP_OTHER)).toBe(true);
      // The same session: id, expiry and credential binding are the primary's.
      const a = gw.gateway.sessions.unseal(session.split('=')[1]);
      const b = gw.gateway.sessions.unseal(secondary.split('=')[1]);
      expect(b).not.toBeNull();
      expect({ id: b?.id, expiresAt: b?.expiresAt, credential: b?.credential, username: b?.username }).toEqual({
        id: a?.id,
        expiresAt: a?.expiresAt,
        credential: a?.credential,
        username: 'alice',
      });
    });

    it('puts no credential or session token in any URL: only the code', async () => {
      const session = await login();
      const token = session.split('=')[1];
      const { issueUrl } = await start();
      const issued = await issue(issueUrl, session);
      const redeemUrl = new URL(issued.location ?? '');
      expect([...redeemUrl.searchParams.keys()]).toEqual(['code']);
      for (const url of [issueUrl.toString(), redeemUrl.toString()]) {
        expect(url).not.toContain(token);
        expect(url).not.toContain(encodeURIComponent(token));
        expect(url).not.toContain('alice-pw');
      }
      expect(issued.headers['referrer-policy']).toBe('no-referrer');
    });

    it('sends a person not logged in on the primary to its login page, which continues the hand-off afterwards', async () => {
      const { issueUrl, stateCookie } = await start();
      const res = await issue(issueUrl);
      expect(res.status).toBe(302);
      const loginUrl = new URL(res.location ?? '');
      expect(`${loginUrl.origin}${loginUrl.pathname}`).toBe(`${PRIMARY}/login`);
      const back = new URL(loginUrl.searchParams.get('redirect_uri') ?? '');
      expect(back.toString()).toBe(issueUrl.toString());
      // After a login there, the same URL vouches.
      const session = await login();
      const issued = await issue(back, session);
      const redeemed = await redeem(issued.location ?? '', stateCookie);
      expect(redeemed.location).toBe(APP_OTHER);
    });

    it('gives no code to a session still owing its TOTP code', async () => {
      const res = await call(PRIMARY, '/api/login', { method: 'POST', body: JSON.stringify({ email: 'carol', password: 'carol-pw' }) });
      expect(JSON.parse(res.body).totpPending).toBe('true');
      const pending = `${SESSION_COOKIE}=${setCookieValue(res, SESSION_COOKIE)}`;
      const { issueUrl } = await start();
      const issued = await issue(issueUrl, pending);
      expect(issued.location).toMatch(new RegExp(`^${PRIMARY}/login\\?`));
    });

    it('sends a login page asked on a secondary to its hand-off: the login itself happens on the primary', async () => {
      const inside = await call(OTHER, `/login?redirect_uri=${encodeURIComponent(APP_OTHER)}`);
      expect([inside.status, inside.location]).toEqual([302, `${OTHER}/api/handoff/start?redirect_uri=${encodeURIComponent(APP_OTHER)}`]);
      const outside = await call(OTHER, `/login?redirect_uri=${encodeURIComponent('https://evil.test/')}`);
      expect(outside.location).toBe(`${OTHER}/api/handoff/start?redirect_uri=${encodeURIComponent(`${OTHER}/logout`)}`);
      expect((await call(PRIMARY, '/login')).status).toBe(200);
    });

    it('answers the hand-off endpoints only on the gateway URL each belongs to', async () => {
      expect((await call(PRIMARY, `/api/handoff/start?redirect_uri=${encodeURIComponent('https://app.example.test/')}`)).status).toBe(404);
      expect((await call(PRIMARY, '/api/handoff/redeem?code=aaaaaaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
      expect((await call(OTHER, '/api/handoff/issue?domain=other.test')).status).toBe(404);
    });
  });

  describe('attacks', () => {
    it('binds each hand-off to a state of its own in a __Host- cookie, cleared once redeemed', async () => {
      const res = await call(OTHER, `/api/handoff/start?redirect_uri=${encodeURIComponent(APP_OTHER)}`);
      const line = cookieLine(res, STATE_COOKIE) ?? '';
      expect(line).toMatch(/; Path=\/;/);
      expect(line).toMatch(/; Secure/);
      expect(line).not.toMatch(/Domain=/i);
      // A second start in the same browser gets a state of its own, never the one it already holds.
      const first = `${STATE_COOKIE}=${setCookieValue(res, STATE_COOKIE)}`;
      const again = await call(OTHER, `/api/handoff/start?redirect_uri=${encodeURIComponent(APP_OTHER)}`, { cookie: first });
      expect(setCookieValue(again, STATE_COOKIE)).not.toBe(setCookieValue(res, STATE_COOKIE));
      const { reply } = await handOff(await login());
      expect(reply.status).toBe(302);
      expect(cookieLine(reply, STATE_COOKIE)).toMatch(/^__Host-portcullis-handoff=; .*Max-Age=0/);
    });

    it('reads no state from a cookie another host of the domain could set (no __Host- prefix)', async () => {
      const session = await login();
      const { issueUrl, stateCookie } = await start();
      const issued = await issue(issueUrl, session);
      const planted = stateCookie.replace(`${STATE_COOKIE}=`, 'portcullis-handoff=');
      const res = await redeem(issued.location ?? '', planted);
      expect(res.status).toBe(400);
      expect(setCookieValue(res, SESSION_COOKIE)).toBeNull();
    });

    it('refuses a replayed code: it redeems once', async () => {
      const session = await login();
      const { reply, redeemUrl, stateCookie } = await handOff(session);
      expect(reply.status).toBe(302);
      const again = await redeem(redeemUrl, stateCookie);
      expect(again.status).toBe(400);
      expect(JSON.parse(again.body).code).toBe('handoff_invalid_code');
      expect(setCookieValue(again, SESSION_COOKIE)).toBeNull();
    });

    it('refuses an expired code (older than 30 seconds)', async () => {
      const session = await login();
      const { issueUrl, stateCookie } = await start();
      const issued = await issue(issueUrl, session);
      clock.advance(30_001);
      try {
        const late = await redeem(issued.location ?? '', stateCookie);
        expect(late.status).toBe(400);
        expect(setCookieValue(late, SESSION_COOKIE)).toBeNull();
      } finally {
        clock.set(Date.now());
      }
    });

    it('refuses a code issued for one domain on another domain’s gateway, and burns it', async () => {
      const session = await login();
      const { issueUrl, stateCookie } = await start(OTHER);
      const issued = await issue(issueUrl, session);
      const code = new URL(issued.location ?? '').searchParams.get('code') ?? '';
      const elsewhere = await call(THIRD, `/api/handoff/redeem?code=${code}`, { cookie: stateCookie });
      expect(elsewhere.status).toBe(400);
      expect(setCookieValue(elsewhere, SESSION_COOKIE)).toBeNull();
      // Tried on the wrong domain, it is gone for the right one too.
      expect((await redeem(issued.location ?? '', stateCookie)).status).toBe(400);
    });

    it('refuses a code in a browser that did not start the hand-off (a link planting the sender’s session)', async () => {
      const attacker = await login();
      const { issueUrl } = await start();
      const issued = await issue(issueUrl, attacker);
      // The victim's browser: no state cookie, or a state of its own.
      expect((await redeem(issued.location ?? '')).status).toBe(400);
      const own = (await start()).stateCookie;
      const issued2 = await issue((await start()).issueUrl, attacker);
      const victim = await redeem(issued2.location ?? '', own);
      expect(victim.status).toBe(400);
      expect(setCookieValue(victim, SESSION_COOKIE)).toBeNull();
    });

    it('refuses a code whose session was revoked (logout on the primary) between issue and redemption', async () => {
      const session = await login();
      const { issueUrl, stateCookie } = await start();
      const issued = await issue(issueUrl, session);
      expect((await call(PRIMARY, '/api/logout', { method: 'POST', body: '{}', cookie: session })).status).toBe(200);
      const late = await redeem(issued.location ?? '', stateCookie);
      expect(late.status).toBe(400);
      expect(setCookieValue(late, SESSION_COOKIE)).toBeNull();
      // And a revoked session gets no new code: the login page again.
      expect((await issue((await start()).issueUrl, session)).location).toMatch(new RegExp(`^${PRIMARY}/login\\?`));
    });

    it('logs out everywhere from any domain: a logout on the secondary ends the primary’s cookie too', async () => {
      const session = await login();
      const { reply } = await handOff(session);
      const secondary = `${SESSION_COOKIE}=${setCookieValue(reply, SESSION_COOKIE)}`;
      expect(await passes(session, 'https://app.example.test/')).toBe(true);
      const out = await call(OTHER, '/api/logout', { method: 'POST', body: '{}', cookie: secondary, headers: { origin: OTHER } });
      expect(out.status).toBe(200);
      expect(cookieLine(out, SESSION_COOKIE)).toContain('Domain=other.test');
      expect(await passes(secondary, APP_OTHER)).toBe(false);
      expect(await passes(session, 'https://app.example.test/')).toBe(false);
    });

    it('refuses a logout form posted across sites to a secondary gateway URL', async () => {
      const session = await login();
      const secondary = `${SESSION_COOKIE}=${setCookieValue((await handOff(session)).reply, SESSION_COOKIE)}`;
      const res = await call(OTHER, '/api/logout', {
        method: 'POST',
        cookie: secondary,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.test', 'sec-fetch-site': 'cross-site' },
      });
      expect(res.status).toBe(403);
      expect(await passes(secondary, APP_OTHER)).toBe(true);
    });

    it('keeps every redirect inside the domain it is for: the open-redirect corpus at the start and at the issue', async () => {
      const session = await login();
      const corpus = [...openRedirectCorpus('other.test'), 'https://app.example.test/', 'https://app.third.test/', 'https://other.test.example.test/'];
      for (const target of corpus) {
        const started = await call(OTHER, `/api/handoff/start?redirect_uri=${encodeURIComponent(target)}`);
        expect([target, started.status, started.location]).toEqual([target, 400, null]);
        const params = new URLSearchParams({ domain: 'other.test', state: 's'.repeat(43), redirect_uri: target });
        const issued = await call(PRIMARY, `/api/handoff/issue?${params.toString()}`, { cookie: session });
        expect([target, issued.status, issued.location]).toEqual([target, 400, null]);
      }
    });

    it('vouches only towards configured secondary domains', async () => {
      const session = await login();
      for (const domain of ['evil.test', 'example.test', 'test', 'other.test.evil.test', '']) {
        const params = new URLSearchParams({ domain, state: 's'.repeat(43), redirect_uri: `https://app.${domain}/` });
        const res = await call(PRIMARY, `/api/handoff/issue?${params.toString()}`, { cookie: session });
        expect([domain, res.status, JSON.parse(res.body).code]).toEqual([domain, 400, 'handoff_unknown_domain']);
      }
    });

    it('answers malformed codes and states with a JSON 400, never a 500', async () => {
      for (const code of ['', 'x', '%00', 'a'.repeat(5000), '../../etc', '{"$ne":1}']) {
        const res = await call(OTHER, `/api/handoff/redeem?code=${encodeURIComponent(code)}`, { cookie: `${STATE_COOKIE}=x` });
        expect([code.slice(0, 10), res.status, JSON.parse(res.body).code]).toEqual([code.slice(0, 10), 400, 'handoff_invalid_code']);
      }
      const session = await login();
      const params = new URLSearchParams({ domain: 'other.test', state: 'short', redirect_uri: APP_OTHER });
      expect((await call(PRIMARY, `/api/handoff/issue?${params.toString()}`, { cookie: session })).status).toBe(400);
    });
  });
});
