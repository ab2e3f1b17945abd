import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';
import { askForwardAuth, BROWSER_ACCEPT, expectEnvelope, forwardedBy, loginCookie } from '../../support/http';

/**
 * Review item 6: a request with more than one `portcullis-session` cookie is refused with 400 on
 * forward auth and on every route of the gateway, whichever copy is valid: a proxy that cuts out one
 * copy would otherwise hand the application the other (docs/security.md).
 */

const ORIGINAL = 'https://app.example.test/dashboard';

describe('more than one session cookie', () => {
  let gw: RunningGateway;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')},bob:${hashOf('bob-pw')}` });
    alice = await loginCookie(gw, 'alice', 'alice-pw');
    bob = await loginCookie(gw, 'bob', 'bob-pw');
  });
  afterAll(() => gw.close());

  const spellings = (): string[] => [`${bob}; ${alice}`, `theme=dark; ${alice}; lang=en; ${alice}`, `portcullis-session=; ${alice}`];

  describe.each(['traefik', 'nginx', 'caddy'])('on forward auth for %s', (proxy) => {
    it('is refused 400 several_session_cookies, with no identity, whatever the copies hold', async () => {
      for (const cookie of spellings()) {
        for (const accept of ['application/json', BROWSER_ACCEPT]) {
          const res = await askForwardAuth(gw, proxy, { cookie, accept, ...forwardedBy(proxy, ORIGINAL) });
          expect(await expectEnvelope(res, 400)).toMatchObject({ code: 'several_session_cookies' });
          expect(res.headers.get('remote-user')).toBeNull();
          expect(res.headers.get('location')).toBeNull();
        }
      }
    });

    it('still lets one session cookie among others through', async () => {
      const res = await askForwardAuth(gw, proxy, { cookie: `theme=dark; ${alice}; lang=en`, ...forwardedBy(proxy, ORIGINAL) });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('alice');
    });
  });

  it.each([
    ['GET', '/api/user'],
    ['GET', '/api/app'],
    ['POST', '/api/logout'],
    ['GET', '/api/account'],
    ['GET', '/login'],
    ['GET', '/api/nope'],
  ])('%s %s is refused 400 several_session_cookies with the JSON envelope', async (method, path) => {
    for (const cookie of spellings()) {
      const res = await fetch(`${gw.url}${path}`, {
        method,
        headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(await expectEnvelope(res, 400)).toMatchObject({ code: 'several_session_cookies' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('GET /api/user with one session cookie still answers the person', async () => {
    const res = await fetch(`${gw.url}/api/user`, { headers: { cookie: `a=1; ${alice}` } });
    expect(await expectEnvelope(res, 200)).toMatchObject({ username: 'alice' });
  });
});
