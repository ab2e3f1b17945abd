import { DISCOVERY_PATH, OIDC_PREFIX } from '../../src/adapters/oidc/oidc-provider-http';
import { UI_PAGES } from '../../src/adapters/http/ui';
import { hashOf } from './credentials';
import { startGateway } from './server';

/** A request path for a route pattern of @koa/router: parameters filled, optional tails dropped. */
function concrete(pattern: string): string {
  return pattern.replace(/\{[^}]*\}/g, '').replace(/:([A-Za-z]+)/g, (_, name: string) => (name === 'provider' ? 'generic' : `x-${name}`));
}

/**
 * Every path the gateway's public listener serves, one concrete request path per route: the API
 * router's layers as registered (with passkeys, TOTP set-up and the hand-off between two gateway
 * URLs on), the UI pages, an asset and OpenID Connect's discovery and endpoints. Read from a
 * gateway started in this process, so a route added to the router is in this list at once.
 */
export async function gatewayPublicRoutes(): Promise<string[]> {
  const gw = await startGateway({ APP_URL: 'https://auth.example.com,https://auth.example.org', PASSKEYS: 'true', USERS: `alice:${hashOf('alice-pw')}` });
  try {
    const layers = gw.gateway.app.middleware.flatMap((m) => ((m as { router?: { stack: Array<{ path: string }> } }).router?.stack ?? []).map((l) => l.path));
    const api = layers.filter((p) => p.startsWith('/api'));
    return [...new Set([...api, ...UI_PAGES, '/assets/app.css', DISCOVERY_PATH, `${OIDC_PREFIX}/auth`, `${OIDC_PREFIX}/token`, `${OIDC_PREFIX}/jwks`])]
      .map(concrete)
      .sort();
  } finally {
    await gw.close();
  }
}
