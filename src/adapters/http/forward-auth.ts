import type { ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { AuthorizeProxyRequestUseCase } from '../../application/use-cases/authorize-proxy-request';
import type { Identity } from '../../domain/session';
import { printableHeaderValue } from '../../domain/header-value';
import { readCookie, SESSION_COOKIE } from './cookies';
import { API_HEADERS, envelope, MESSAGES, writeRaw } from './envelope';
import { header } from './header-access';
import type { HttpSettings } from './http-settings';
import { isApiMode } from './request-mode';

const PREFIX = '/api/auth/';
const PROXIES = new Set(['traefik', 'nginx', 'caddy']);

const BODY_AUTHENTICATED = envelope(200, MESSAGES.authenticated);
const BODY_UNAUTHORIZED = envelope(401, MESSAGES.unauthorized);
const BODY_FORBIDDEN = envelope(403, MESSAGES.forbidden);
const BODY_REDIRECT = envelope(302, MESSAGES.redirecting);
const BODY_FORBIDDEN_REDIRECT = envelope(302, MESSAGES.forbidden);
const BODY_UNKNOWN_PROXY = envelope(400, 'Unknown proxy; use one of traefik, nginx, caddy');
const BODY_UNAVAILABLE = envelope(503, MESSAGES.unavailable);
const BODY_INTERNAL = envelope(500, MESSAGES.internal);

/** Identity headers for the upstream. Incoming `Remote-*` headers are never copied: only these are set. */
function identityHeaders(identity: Identity, out: Record<string, string | number>): void {
  out['remote-user'] = printableHeaderValue(identity.username);
  out['remote-name'] = printableHeaderValue(identity.name);
  out['remote-email'] = printableHeaderValue(identity.email);
  if (identity.groups.length > 0) out['remote-groups'] = printableHeaderValue(identity.groups.join(','));
}

/**
 * `/api/auth/:proxy`, the hot path. Matched before the router and body parsing and answered
 * straight on the Node response with precomputed bodies: Koa's response machinery costs a third
 * of the throughput here (see PERFORMANCE.md). Any method is answered, since nginx's
 * `auth_request` asks with the original request's method.
 */
export function forwardAuth(useCase: AuthorizeProxyRequestUseCase, settings: HttpSettings): Middleware {
  const loginUrl = `${settings.appUrl}/login`;
  const unauthorizedUrl = `${settings.appUrl}/unauthorized`;

  return async (ctx, next) => {
    const url = ctx.req.url ?? '';
    if (!url.startsWith(PREFIX)) return next();
    ctx.respond = false;
    const res: ServerResponse = ctx.res;
    const req = ctx.req;
    const head = req.method === 'HEAD';
    const out: Record<string, string | number> = { ...API_HEADERS };
    try {
      const q = url.indexOf('?');
      const proxy = url.slice(PREFIX.length, q === -1 ? undefined : q);
      if (!PROXIES.has(proxy)) return writeRaw(res, 400, BODY_UNKNOWN_PROXY, out, head);

      const headers = req.headers;
      const ip = settings.clientAddress.resolve(req.socket.remoteAddress, headers['x-forwarded-for']) ?? 'unknown';
      const result = await useCase.execute({
        forwarded: {
          proto: header(headers, 'x-forwarded-proto'),
          host: header(headers, 'x-forwarded-host'),
          uri: header(headers, 'x-forwarded-uri'),
          originalUrl: header(headers, 'x-original-url'),
        },
        sessionToken: readCookie(header(headers, 'cookie'), SESSION_COOKIE),
        authorization: header(headers, 'authorization'),
        ip,
      });

      if (result.ok) {
        if (result.value.identity !== null) identityHeaders(result.value.identity, out);
        for (const name in result.value.headers) out[name.toLowerCase()] = printableHeaderValue(result.value.headers[name]);
        return writeRaw(res, 200, BODY_AUTHENTICATED, out, head);
      }

      const error = result.error;
      // nginx's auth_request cannot follow a redirect: it always gets the status, and the place to send the browser.
      const redirects = proxy !== 'nginx' && !isApiMode(headers);
      switch (error.code) {
        case 'unauthenticated': {
          const target = error.returnTo === null ? loginUrl : `${loginUrl}?redirect_uri=${encodeURIComponent(error.returnTo)}`;
          if (redirects) {
            out.location = target;
            return writeRaw(res, 302, BODY_REDIRECT, out, head);
          }
          if (proxy === 'nginx') out['x-portcullis-location'] = target;
          return writeRaw(res, 401, BODY_UNAUTHORIZED, out, head);
        }
        case 'forbidden': {
          // Only a logged-in person refused for who they are gets the "not allowed" page; a refused
          // address or an anonymous refusal is a plain 403 (there is nobody to tell, nothing to log in for).
          if (error.network || error.username === '') return writeRaw(res, 403, BODY_FORBIDDEN, out, head);
          const params = new URLSearchParams();
          if (error.app !== null) params.set('resource', error.app);
          params.set('username', error.username);
          const target = `${unauthorizedUrl}?${params.toString()}`;
          if (redirects) {
            out.location = target;
            return writeRaw(res, 302, BODY_FORBIDDEN_REDIRECT, out, head);
          }
          if (proxy === 'nginx') out['x-portcullis-location'] = target;
          return writeRaw(res, 403, BODY_FORBIDDEN, out, head);
        }
        case 'bad_forwarded_headers':
          return writeRaw(res, 400, envelope(400, `Malformed forwarded header ${error.field}`), out, head);
        case 'account_locked':
          out['retry-after'] = error.retryAfter;
          return writeRaw(res, 429, envelope(429, `Too many failed login attempts. Try again in ${error.retryAfter} seconds`), out, head);
        case 'store_unavailable':
          return writeRaw(res, 503, BODY_UNAVAILABLE, out, head);
        default: {
          const unreachable: never = error;
          throw new Error(`unmapped outcome ${String(unreachable)}`);
        }
      }
    } catch (e) {
      settings.logger.error('forward auth failed', { error: e instanceof Error ? e.name : 'unknown' });
      if (!res.headersSent) writeRaw(res, 500, BODY_INTERNAL, { ...API_HEADERS }, head);
      else res.destroy();
    }
  };
}
