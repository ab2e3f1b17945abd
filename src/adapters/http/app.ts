import Koa, { type Context } from 'koa';
import type { AuthorizeProxyRequestUseCase } from '../../application/use-cases/authorize-proxy-request';
import { API_HEADERS, MESSAGES } from './envelope';
import { forwardAuth } from './forward-auth';
import { NO_METRICS } from './http-metrics';
import { UnsupportedBodyEncodingError } from './json-body';
import type { HttpSettings } from './http-settings';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';
import { API_METHODS, apiRoutes, reply, type GatewayUseCases } from './routes';
import { uiRoutes } from './ui';

export interface HttpUseCases extends GatewayUseCases {
  readonly authorizeProxyRequest: AuthorizeProxyRequestUseCase;
}

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

/** Maps anything thrown to a fixed envelope: client errors keep their status, everything else is a 500 that says nothing. */
function errorEnvelope(settings: HttpSettings): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      const status = typeof (e as { status?: unknown }).status === 'number' ? (e as { status: number }).status : 500;
      if (status === 413) return reply(ctx, 413, MESSAGES.tooLarge);
      if (status === 415) return reply(ctx, 415, e instanceof UnsupportedBodyEncodingError ? MESSAGES.unsupportedEncoding : MESSAGES.unsupportedMedia);
      if (status === 400) return reply(ctx, 400, MESSAGES.malformedJson);
      settings.logger.error('request failed', {
        requestId: ctx.state.requestId,
        path: ctx.path,
        method: ctx.method,
        error: e instanceof Error ? e.name : 'unknown',
      });
      reply(ctx, 500, MESSAGES.internal);
    }
  };
}

/**
 * Gives every request (past forward auth, which does its own) an id, returns it as
 * `X-Request-Id`, times the answer and logs it at debug level. The log line carries the path
 * only, never the query string (it may hold an OAuth code or state).
 */
function requestContext(settings: HttpSettings): Koa.Middleware {
  const metrics = settings.metrics ?? NO_METRICS;
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdOf(ctx.req.headers[REQUEST_ID_HEADER]);
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      metrics.request(typeof route === 'string' ? route : isApiPath(ctx.path) ? 'api_other' : 'ui', ctx.method, ctx.status, seconds);
      settings.logger.debug('request', { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) });
    }
  };
}

/** 404 for unknown API paths, 405 (with `Allow`) for a known path asked with the wrong method. */
function apiFallback(ctx: Context): void {
  const allowed = API_METHODS.get(ctx.path);
  if (allowed !== undefined) {
    ctx.set('Allow', allowed.join(', '));
    return reply(ctx, 405, MESSAGES.methodNotAllowed);
  }
  if (/^\/api\/oauth\/(url|callback)\/[^/]+$/.test(ctx.path)) {
    ctx.set('Allow', 'GET, HEAD');
    return reply(ctx, 405, MESSAGES.methodNotAllowed);
  }
  reply(ctx, 404, MESSAGES.notFound);
}

/**
 * The Koa application: forward auth first (the hot path, before any other middleware), then the
 * API router with its body parser, then the UI. Never sees the container; it is handed use cases.
 */
export function createHttpApp(useCases: HttpUseCases, settings: HttpSettings): Koa {
  const app = new Koa();
  app.proxy = false; // client addresses come from ClientAddressResolver, which honours TRUSTED_PROXIES only
  app.silent = true;
  app.on('error', (e: unknown) => settings.logger.error('http error', { error: e instanceof Error ? e.name : 'unknown' }));

  const router = apiRoutes(useCases, settings);
  const ui = uiRoutes(settings);

  app.use(forwardAuth(useCases.authorizeProxyRequest, settings));
  app.use(requestContext(settings));
  app.use(errorEnvelope(settings));
  app.use(router.routes());
  app.use(async (ctx, next) => {
    if (ctx.matched !== undefined && ctx.matched.length > 0 && ctx.status !== 404) return;
    if (isApiPath(ctx.path)) return apiFallback(ctx);
    await next();
  });
  app.use(ui);
  app.use((ctx) => {
    if (ctx.body === undefined) {
      ctx.set(API_HEADERS);
      reply(ctx, 404, MESSAGES.notFound);
    }
  });
  return app;
}
