import type { Context } from 'koa';
import type { AppContext } from './app-context';
import type { CookieSettings } from './cookies';
import type { HttpSettings } from './http-settings';

/** One gateway URL as the Koa routes use it: its origin, host and cookie settings, and the app context it reports. */
export interface GatewayHost {
  readonly url: string;
  readonly origin: string;
  readonly hostname: string;
  readonly cookies: CookieSettings;
  readonly app: AppContext;
}

/**
 * Issue 17: the gateway URLs this process answers for, primary first; one element without a list.
 * Each reports its own cookie domain in `/api/app`, so the UI checks targets against the domain
 * it is shown on.
 */
export function gatewayHostsOf(settings: HttpSettings): readonly GatewayHost[] {
  const list = settings.gateways !== undefined && settings.gateways.length > 0 ? settings.gateways : [{ url: settings.appUrl, cookies: settings.cookies }];
  return list.map((g, i) => {
    const url = new URL(g.url);
    return {
      url: g.url,
      origin: url.origin,
      hostname: url.hostname.toLowerCase(),
      // The primary keeps the configured objects, so a single-domain gateway answers exactly as before.
      cookies: i === 0 ? settings.cookies : g.cookies,
      app: i === 0 ? settings.app : { ...settings.app, domain: g.cookies.domain.domain },
    };
  });
}

/**
 * Index of the gateway URL a request was made to, by its Host header's name; 0 (the primary) for
 * any other host: a request through an address not in APP_URL is treated as before issue 17.
 */
export function gatewayIndexOf(hosts: readonly GatewayHost[], ctx: Context): number {
  if (hosts.length === 1) return 0;
  const name = ctx.hostname.toLowerCase().replace(/\.$/, '');
  const at = hosts.findIndex((h) => h.hostname === name);
  return at === -1 ? 0 : at;
}
