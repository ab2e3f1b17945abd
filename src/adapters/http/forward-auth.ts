import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { AuthorizeProxyRequestUseCase } from '../../application/use-cases/authorize-proxy-request';
import type { Identity } from '../../domain/session';
import { printableHeaderValue } from '../../domain/header-value';
import { readCookie, SESSION_COOKIE } from './cookies';
import type { ProxyKind } from '../../domain/forwarded-request';
import { API_HEADERS, envelope, FORWARDED_PROBLEMS, MESSAGES, writeRaw } from './envelope';
import { header } from './header-access';
import { NO_METRICS, OUTCOME, type ForwardAuthOutcome, type ProxyIndex } from './http-metrics';
import type { HttpSettings } from './http-settings';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';
import { isApiMode } from './request-mode';

const PREFIX = '/api/auth/';
const PROXIES: ReadonlyMap<string, ProxyIndex> = new Map([
  ['traefik', 0],
  ['nginx', 1],
  ['caddy', 2],
]);
/** The proxy kind per index, so the use case gets the constant, not the slice of the URL. */
const KINDS: readonly ProxyKind[] = ['traefik', 'nginx', 'caddy'];
const UNKNOWN_PROXY: ProxyIndex = 3;

const BODY_AUTHENTICATED = envelope(200, MESSAGES.authenticated);
const BODY_UNAUTHORIZED = envelope(401, MESSAGES.unauthorized);
const BODY_FORBIDDEN = envelope(403, MESSAGES.forbidden);
const BODY_REDIRECT = envelope(302, MESSAGES.redirecting);
const BODY_FORBIDDEN_REDIRECT = envelope(302, MESSAGES.forbidden);
const BODY_UNKNOWN_PROXY = envelope(400, 'Unknown proxy; use one of traefik, nginx, caddy');
const BODY_UNAVAILABLE = envelope(503, MESSAGES.unavailable);
const BODY_AMBIGUOUS_PATH = envelope(400, MESSAGES.ambiguousPath);
const BODY_INTERNAL = envelope(500, MESSAGES.internal);

/** True for the paths the forward-auth handler answers. */
export function isForwardAuthPath(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(PREFIX);
}

/** A forward-auth answer straight on the Node response; resolves when it has been written, never rejects. */
export type ForwardAuthHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The identity headers for the upstream, cleaned of control and non-printable characters. */
function cleanIdentityHeaders(identity: Identity): ReadonlyArray<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [
    ['remote-user', printableHeaderValue(identity.username)],
    ['remote-name', printableHeaderValue(identity.name)],
    ['remote-email', printableHeaderValue(identity.email)],
  ];
  if (identity.groups.length > 0) out.push(['remote-groups', printableHeaderValue(identity.groups.join(','))]);
  return out;
}

/**
 * `/api/auth/:proxy`, the hot path, answered straight on the Node response with precomputed
 * bodies: Koa's response machinery costs a third of the throughput here (see PERFORMANCE.md).
 * The gateway's server calls this before Koa sees the request (`forwardAuthFirst`); `forwardAuth`
 * puts the same handler in front of the Koa middleware for hosts that mount the Koa app.
 * Any method is answered, since nginx's `auth_request` asks with the original request's method.
 * Call it only for paths where `isForwardAuthPath` holds.
 */
export function forwardAuthHandler(useCase: AuthorizeProxyRequestUseCase, settings: HttpSettings): ForwardAuthHandler {
  const loginUrl = `${settings.appUrl}/login`;
  const unauthorizedUrl = `${settings.appUrl}/unauthorized`;
  const metrics = settings.metrics ?? NO_METRICS;
  // A session cookie opens to the same frozen identity object for as long as the sealer caches
  // it (and Basic hands out one per account), so its cleaned headers are built once; entries die with their identity.
  const identityHeadersCache = new WeakMap<Identity, ReadonlyArray<readonly [string, string]>>();
  /** Identity headers for the upstream. Incoming `Remote-*` headers are never copied: only these are set. */
  const identityHeaders = (identity: Identity, out: Record<string, string | number>): void => {
    let cleaned = identityHeadersCache.get(identity);
    if (cleaned === undefined) {
      cleaned = cleanIdentityHeaders(identity);
      identityHeadersCache.set(identity, cleaned);
    }
    for (const [name, value] of cleaned) out[name] = value;
  };

  return async (req, res) => {
    const url = req.url ?? '';
    const head = req.method === 'HEAD';
    const started = performance.now();
    const headers = req.headers;
    const requestId = requestIdOf(headers[REQUEST_ID_HEADER]);
    const out: Record<string, string | number> = { ...API_HEADERS, [REQUEST_ID_HEADER]: requestId };
    let proxyIndex: ProxyIndex = UNKNOWN_PROXY;
    let outcome: ForwardAuthOutcome = OUTCOME.error;
    try {
      const q = url.indexOf('?');
      const proxy = url.slice(PREFIX.length, q === -1 ? undefined : q);
      const known = PROXIES.get(proxy);
      if (known === undefined) {
        outcome = OUTCOME.badRequest;
        return writeRaw(res, 400, BODY_UNKNOWN_PROXY, out, head);
      }
      proxyIndex = known;

      const ip = settings.clientAddress.resolve(req.socket.remoteAddress, headers['x-forwarded-for']) ?? 'unknown';
      // Every header is handed over as Node joined it (repeats become "a, b"); the domain reads only
      // the ones this proxy sets and refuses a joined value instead of picking one.
      const result = await useCase.execute({
        forwarded: {
          proxy: KINDS[known],
          proto: header(headers, 'x-forwarded-proto'),
          host: header(headers, 'x-forwarded-host'),
          uri: header(headers, 'x-forwarded-uri'),
          method: header(headers, 'x-forwarded-method'),
          originalUrl: header(headers, 'x-original-url'),
          originalMethod: header(headers, 'x-original-method'),
        },
        sessionToken: readCookie(header(headers, 'cookie'), SESSION_COOKIE),
        authorization: header(headers, 'authorization'),
        ip,
        requestId,
      });

      if (result.ok) {
        if (result.value.identity !== null) identityHeaders(result.value.identity, out);
        for (const name in result.value.headers) out[name.toLowerCase()] = printableHeaderValue(result.value.headers[name]);
        outcome = OUTCOME.allowed;
        return writeRaw(res, 200, BODY_AUTHENTICATED, out, head);
      }

      const error = result.error;
      // nginx's auth_request cannot follow a redirect: it always gets the status, and the place to send the browser.
      const redirects = proxy !== 'nginx' && !isApiMode(headers);
      switch (error.code) {
        case 'unauthenticated': {
          outcome = OUTCOME.unauthenticated;
          const target = error.returnTo === null ? loginUrl : `${loginUrl}?redirect_uri=${encodeURIComponent(error.returnTo)}`;
          if (redirects) {
            out.location = target;
            return writeRaw(res, 302, BODY_REDIRECT, out, head);
          }
          if (proxy === 'nginx') out['x-portcullis-location'] = target;
          return writeRaw(res, 401, BODY_UNAUTHORIZED, out, head);
        }
        case 'forbidden': {
          outcome = OUTCOME.forbidden;
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
          outcome = OUTCOME.badRequest;
          return writeRaw(res, 400, envelope(400, `${FORWARDED_PROBLEMS[error.problem]} ${error.field}`), out, head);
        case 'ambiguous_path':
          // Never a redirect: logging in would not make the path any less ambiguous.
          outcome = OUTCOME.badRequest;
          return writeRaw(res, 400, BODY_AMBIGUOUS_PATH, out, head);
        case 'account_locked':
          outcome = OUTCOME.locked;
          out['retry-after'] = error.retryAfter;
          return writeRaw(res, 429, envelope(429, `Too many failed login attempts. Try again in ${error.retryAfter} seconds`), out, head);
        case 'store_unavailable':
          outcome = OUTCOME.unavailable;
          return writeRaw(res, 503, BODY_UNAVAILABLE, out, head);
        default: {
          const unreachable: never = error;
          throw new Error(`unmapped outcome ${String(unreachable)}`);
        }
      }
    } catch (e) {
      outcome = OUTCOME.error;
      // Nothing may escape: the server's listener does not wait for this promise.
      try {
        settings.logger.error('forward auth failed', { requestId, error: e instanceof Error ? e.name : 'unknown' });
        if (!res.headersSent) writeRaw(res, 500, BODY_INTERNAL, { ...API_HEADERS, [REQUEST_ID_HEADER]: requestId }, head);
        else res.destroy();
      } catch {
        res.destroy();
      }
    } finally {
      metrics.forwardAuth(proxyIndex, outcome, (performance.now() - started) / 1000);
    }
  };
}

/** The handler as the first Koa middleware: answers forward-auth paths, passes everything else on. */
export function forwardAuth(useCase: AuthorizeProxyRequestUseCase, settings: HttpSettings): Middleware {
  const handle = forwardAuthHandler(useCase, settings);
  return (ctx, next) => {
    if (!isForwardAuthPath(ctx.req.url)) return next();
    ctx.respond = false;
    return handle(ctx.req, ctx.res);
  };
}
