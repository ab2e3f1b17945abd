import Koa, { type Context } from 'koa';
import type { AuthorizeProxyRequestUseCase } from '../../application/forward-auth/authorize-proxy-request';
import type { Answer } from './answer';
import {
  BODY_TOO_LARGE,
  INTERNAL_ERROR,
  MALFORMED_JSON,
  methodNotAllowed,
  NOT_FOUND,
  SEVERAL_SESSION_COOKIES,
  UNSUPPORTED_ENCODING,
  UNSUPPORTED_MEDIA_TYPE,
} from './answers';
import { readSoleCookie, SESSION_COOKIE } from './cookies';
import { NO_METRICS } from './http-metrics';
import { instrumentation } from './instrumentation';
import { UnsupportedBodyEncodingError } from './json-body';
import type { HttpSettings } from './http-settings';
import { renderAnswer } from './koa-renderer';
import { REQUEST_ID_HEADER } from './request-id';
import { PASSKEY_API_METHODS } from './passkey-routes';
import { ADMIN_API_METHODS } from './admin-routes';
import { INVITATION_API_METHODS } from './admin-invitation-routes';
import { TOKEN_API_METHODS } from './token-routes';
import { API_METHODS, apiRoutes, type GatewayUseCases } from './routes';
import { uiRoutes } from './ui';
import { secondaryLoginPages } from './handoff-routes';

export interface HttpUseCases extends GatewayUseCases {
  readonly authorizeProxyRequest: AuthorizeProxyRequestUseCase;
}

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

/** The answer to a client error the body parser threw (with its status); null for anything else. */
function clientErrorAnswer(e: unknown): Answer | null {
  const status = (e as { status?: unknown } | null)?.status;
  if (status === 413) return BODY_TOO_LARGE;
  if (status === 415) return e instanceof UnsupportedBodyEncodingError ? UNSUPPORTED_ENCODING : UNSUPPORTED_MEDIA_TYPE;
  if (status === 400) return MALFORMED_JSON;
  return null;
}

/**
 * The shared instrumentation (id, timing, metrics, catch-all 500) for every request Koa serves.
 * The request log carries the path only, never the query string (it may hold an OAuth code or
 * state). Client errors the body parser throws keep their status and get their own answer.
 */
function instrumented(settings: HttpSettings): Koa.Middleware {
  const metrics = settings.metrics ?? NO_METRICS;
  const run = instrumentation<Context>(settings.logger, {
    failure: 'request failed',
    logFields: (ctx) => ({ path: ctx.path, method: ctx.method }),
    internalError: (ctx) => renderAnswer(ctx, INTERNAL_ERROR),
    abort: (ctx) => ctx.res.destroy(),
    finished(ctx, requestId, seconds) {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      metrics.request(typeof route === 'string' ? route : isApiPath(ctx.path) ? 'api_other' : 'ui', ctx.method, ctx.status, seconds);
      settings.logger.debug('request', { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) });
    },
  });
  return (ctx, next) =>
    run(ctx, ctx.req.headers[REQUEST_ID_HEADER], async (c, requestId) => {
      c.state.requestId = requestId;
      c.set('X-Request-Id', requestId);
      try {
        await next();
      } catch (e) {
        const answer = clientErrorAnswer(e);
        if (answer === null) throw e;
        renderAnswer(c, answer);
      }
    });
}

/** 404 for unknown API paths, 405 (with `Allow`) for a known path asked with the wrong method. */
function apiFallback(ctx: Context, methods: ReadonlyMap<string, readonly string[]>): void {
  const allowed = methods.get(ctx.path);
  if (allowed !== undefined) return renderAnswer(ctx, methodNotAllowed(allowed));
  if (/^\/api\/oauth\/(url|callback)\/[^/]+$/.test(ctx.path)) return renderAnswer(ctx, methodNotAllowed(['GET', 'HEAD']));
  renderAnswer(ctx, NOT_FOUND);
}

/**
 * The Koa application: the instrumentation, then the API router with its body parser, then the
 * UI. Forward auth never reaches it: the gateway's listeners answer `/api/auth/*` before Koa
 * (see request-listener.ts). Never sees the container; it is handed use cases.
 */
export function createHttpApp(useCases: GatewayUseCases, settings: HttpSettings, oidc: Koa.Middleware | null = null): Koa {
  const app = new Koa();
  app.proxy = false; // client addresses come from ClientAddressResolver, which honours TRUSTED_PROXIES only
  app.silent = true;
  app.on('error', (e: unknown) => settings.logger.error('http error', { error: e instanceof Error ? e.name : 'unknown' }));

  const router = apiRoutes(useCases, settings);
  // The passkey paths exist only with PASSKEYS on: off, every method answers 404 as for any unknown path.
  // So do the token paths with TOKENS=false.
  const methods = new Map([
    ...API_METHODS,
    ...(useCases.passkeys === undefined ? [] : PASSKEY_API_METHODS),
    ...(useCases.tokens === undefined ? [] : TOKEN_API_METHODS),
    ...(useCases.admin === undefined ? [] : ADMIN_API_METHODS),
    ...(useCases.admin === undefined || useCases.adminInvitations === undefined ? [] : INVITATION_API_METHODS),
  ]);
  const ui = uiRoutes(settings);

  app.use(instrumented(settings));
  // Two session cookies are refused on every route, as on forward auth (see readSoleCookie): the
  // pages, the API and the OpenID provider never pick one of them.
  app.use(async (ctx, next) => {
    if (readSoleCookie(ctx.req.headers.cookie, SESSION_COOKIE) === null) return renderAnswer(ctx, SEVERAL_SESSION_COOKIES);
    await next();
  });
  // The OpenID Connect provider: discovery and `/oidc/*` only; every other path passes on.
  if (oidc !== null) app.use(oidc);
  app.use(router.routes());
  app.use(async (ctx, next) => {
    if (ctx.matched !== undefined && ctx.matched.length > 0 && ctx.status !== 404) return;
    if (isApiPath(ctx.path)) return apiFallback(ctx, methods);
    await next();
  });
  app.use(secondaryLoginPages(settings));
  app.use(ui);
  app.use((ctx) => {
    if (ctx.body === undefined) renderAnswer(ctx, NOT_FOUND);
  });
  return app;
}
