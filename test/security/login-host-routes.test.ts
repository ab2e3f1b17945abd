import { gatewayPublicRoutes } from '../support/public-routes';
import { rawHttp, requestHead } from './support/raw-http';
import { HOSTS, startSecurityStack, type ProxyName, type SecurityStack } from './support/stack';

/**
 * Review item 8 and usability item 1, through the real nginx and Caddy configured from examples/:
 * every route of the gateway's public listener, read from its router, gets a request on the login
 * host, and the gateway (not the proxy) answers it. The gateway marks every answer of its own with
 * X-Request-Id; the proxies' own refusals (the 404 of forward auth and the probes) carry none.
 */

const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];
const HELD_BACK = ['/api/auth/nginx', '/api/ready', '/api/health'];

let stack: SecurityStack;
let routes: string[];

beforeAll(async () => {
  routes = await gatewayPublicRoutes();
  stack = await startSecurityStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function ask(proxy: ProxyName, path: string): Promise<{ status: number | null; requestId: string | undefined }> {
  const answer = await rawHttp(
    stack.proxies[proxy],
    requestHead('GET', path, [
      ['Host', `${HOSTS.auth}:${stack.proxies[proxy]}`],
      ['Accept', 'application/json'],
    ]),
  );
  return { status: answer.status, requestId: answer.headers['x-request-id'] };
}

describe.each(PROXIES)('the login host through %s', (proxy) => {
  it('reads a route list with the account, passkey, TOTP set-up, hand-off and OpenID Connect routes in it', () => {
    for (const route of [
      '/api/account',
      '/api/passkeys/login',
      '/api/account/totp/setup',
      '/api/handoff/start',
      '/.well-known/openid-configuration',
      '/oidc/auth',
      '/enrol',
    ])
      expect(routes).toContain(route);
  });

  it('every public route of the gateway is answered by the gateway, never by the proxy', async () => {
    const byProxy: string[] = [];
    for (const route of routes.filter((r) => !HELD_BACK.includes(r))) {
      const { status, requestId } = await ask(proxy, route);
      if (status === null || requestId === undefined) byProxy.push(`${route} -> ${status}`);
    }
    expect(byProxy).toEqual([]);
  });

  it('the control: forward auth and the probes are answered 404 by the proxy itself', async () => {
    for (const path of HELD_BACK) expect([path, await ask(proxy, path)]).toEqual([path, { status: 404, requestId: undefined }]);
  });
});
