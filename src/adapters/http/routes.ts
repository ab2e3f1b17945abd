import Router from '@koa/router';
import type { Context } from 'koa';
import type { CheckReadinessUseCase } from '../../application/use-cases/check-readiness';
import type { GetCurrentUserUseCase } from '../../application/use-cases/get-current-user';
import type { LoginUseCase } from '../../application/use-cases/login';
import type { LogoutUseCase } from '../../application/use-cases/logout';
import type { VerifyTotpUseCase } from '../../application/use-cases/verify-totp';
import { oauthRoutes, type OAuthUseCases } from './oauth-routes';
import type { Session } from '../../domain/session';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie } from './cookies';
import { API_HEADERS, MESSAGES } from './envelope';
import { header } from './header-access';
import { NO_METRICS } from './http-metrics';
import { jsonBody } from './json-body';
import { isFromThisSite } from './request-origin';
import { lazyModule } from '../system/lazy-module';
import type { HttpSettings } from './http-settings';

// The DTOs pull in class-validator (about 5 MB of heap): loaded with the first login, not at start-up.
const dtos = lazyModule(() => require('./dtos') as typeof import('./dtos'));

/** The use cases the HTTP adapter drives. */
export interface GatewayUseCases extends OAuthUseCases {
  readonly login: LoginUseCase;
  readonly verifyTotp: VerifyTotpUseCase;
  readonly logout: LogoutUseCase;
  readonly getCurrentUser: GetCurrentUserUseCase;
  readonly checkReadiness: CheckReadinessUseCase;
}

/** The API routes and the methods each accepts; the 404/405 fallback reads this table too. */
export const API_METHODS: ReadonlyMap<string, readonly string[]> = new Map([
  ['/api/healthcheck', ['GET', 'HEAD']],
  ['/api/ready', ['GET', 'HEAD']],
  ['/api/login', ['POST']],
  ['/api/totp', ['POST']],
  ['/api/logout', ['POST']],
  ['/api/app', ['GET', 'HEAD']],
  ['/api/user', ['GET', 'HEAD']],
]);

export function reply(ctx: Context, status: number, message: string, fields?: Record<string, unknown>): void {
  ctx.status = status;
  ctx.set(API_HEADERS);
  ctx.body = { status, message, ...fields };
}

function lockedReply(ctx: Context, retryAfter: number): void {
  ctx.set('Retry-After', String(retryAfter));
  reply(ctx, 429, `Too many failed login attempts. Try again in ${retryAfter} seconds`);
}

function clientIp(ctx: Context, settings: HttpSettings): string {
  return settings.clientAddress.resolve(ctx.req.socket.remoteAddress, ctx.req.headers['x-forwarded-for']) ?? 'unknown';
}

/** The id the request-id middleware gave this request. */
export function requestIdOf(ctx: Context): string | undefined {
  return (ctx.state as { requestId?: string }).requestId;
}

/** The body types the API reads; the check before parsing and the parser itself use this one list so they cannot disagree. */
const JSON_TYPES = ['application/json', '+json'];

function requireJson(ctx: Context): boolean {
  if (ctx.is(JSON_TYPES)) return true;
  reply(ctx, 415, MESSAGES.unsupportedMedia);
  return false;
}

export function apiRoutes(useCases: GatewayUseCases, settings: HttpSettings): Router {
  const router = new Router({ prefix: '/api' });
  const body = jsonBody({ types: JSON_TYPES, limit: '64kb' });
  // The session was issued just now on the gateway clock: its own lifetime is the cookie's Max-Age.
  const sessionCookie = (session: Session): string =>
    setCookie(SESSION_COOKIE, settings.sessionSealer.seal(session), (session.expiresAt - session.issuedAt) / 1000, settings.cookies);
  const sessionToken = (ctx: Context): string | undefined => readCookie(header(ctx.req.headers, 'cookie'), SESSION_COOKIE);
  const metrics = settings.metrics ?? NO_METRICS;

  // Liveness: the process answers. Readiness (below) asks the stores.
  router.get('/healthcheck', (ctx) => reply(ctx, 200, MESSAGES.ok));

  router.get('/ready', async (ctx) => {
    const result = await useCases.checkReadiness.execute();
    if (result.ok) return reply(ctx, 200, 'Ready', { checks: result.value.checks });
    const error = result.error;
    switch (error.code) {
      case 'not_ready':
        return reply(ctx, 503, `Not ready: ${error.down.join(', ')} unavailable`, { checks: error.checks, down: error.down });
      default: {
        const unreachable: never = error.code;
        throw new Error(`unmapped readiness outcome ${String(unreachable)}`);
      }
    }
  });

  router.post('/login', async (ctx, next) => (requireJson(ctx) ? body(ctx, next) : undefined), async (ctx) => {
    const raw = ctx.request.body as Record<string, unknown> | undefined;
    const source = raw !== null && typeof raw === 'object' && raw.email === undefined && raw.username !== undefined ? { ...raw, email: raw.username } : raw;
    const input = await dtos().readBody(dtos().LoginBody, source, ['email', 'password']);
    if (!input.ok) return reply(ctx, 400, `Invalid or missing fields: ${input.fields.join(', ')}`, { fields: input.fields });
    const result = await useCases.login.execute({
      login: input.value.email,
      password: input.value.password,
      ip: clientIp(ctx, settings),
      requestId: requestIdOf(ctx),
    });
    if (result.ok) {
      ctx.append('Set-Cookie', sessionCookie(result.value.session));
      return reply(ctx, 200, MESSAGES.loggedIn, { totpPending: String(result.value.session.totpPending) });
    }
    const error = result.error;
    switch (error.code) {
      case 'invalid_credentials':
        return reply(ctx, 401, MESSAGES.unauthorized);
      case 'account_locked':
        metrics.login('password', 'locked');
        return lockedReply(ctx, error.retryAfter);
      case 'store_unavailable':
        metrics.login('password', 'unavailable');
        return reply(ctx, 503, MESSAGES.unavailable);
      default: {
        const unreachable: never = error;
        throw new Error(`unmapped login outcome ${String(unreachable)}`);
      }
    }
  });

  router.post('/totp', async (ctx, next) => (requireJson(ctx) ? body(ctx, next) : undefined), async (ctx) => {
    const input = await dtos().readBody(dtos().TotpBody, ctx.request.body, ['code']);
    if (!input.ok) return reply(ctx, 400, `Invalid or missing fields: ${input.fields.join(', ')}`, { fields: input.fields });
    const result = await useCases.verifyTotp.execute({
      sessionToken: sessionToken(ctx),
      code: input.value.code,
      ip: clientIp(ctx, settings),
      requestId: requestIdOf(ctx),
    });
    if (result.ok) {
      ctx.append('Set-Cookie', sessionCookie(result.value.session));
      return reply(ctx, 200, MESSAGES.loggedIn);
    }
    const error = result.error;
    switch (error.code) {
      case 'not_pending':
        return reply(ctx, 401, 'No login is waiting for a TOTP code');
      case 'invalid_code':
      case 'totp_replayed':
        return reply(ctx, 401, 'Invalid TOTP code');
      case 'account_locked':
        metrics.login('totp', 'locked');
        return lockedReply(ctx, error.retryAfter);
      case 'store_unavailable':
        metrics.login('totp', 'unavailable');
        return reply(ctx, 503, MESSAGES.unavailable);
      default: {
        const unreachable: never = error;
        throw new Error(`unmapped totp outcome ${String(unreachable)}`);
      }
    }
  });

  const appOrigin = new URL(settings.appUrl).origin;
  router.post('/logout', async (ctx) => {
    const result = await useCases.logout.execute({
      sessionToken: sessionToken(ctx),
      fromThisSite: isFromThisSite(ctx.req.headers, appOrigin, Boolean(ctx.is(JSON_TYPES))),
      ip: clientIp(ctx, settings),
      requestId: requestIdOf(ctx),
    });
    if (result.ok) {
      ctx.append('Set-Cookie', clearCookie(SESSION_COOKIE, settings.cookies));
      return reply(ctx, 200, MESSAGES.loggedOut);
    }
    const error = result.error;
    switch (error.code) {
      case 'cross_site_request':
        return reply(ctx, 403, MESSAGES.crossSiteLogout);
      // The cookie stays: clearing it would look like a logout while a copy of it still works.
      case 'store_unavailable':
        return reply(ctx, 503, MESSAGES.unavailable);
      default: {
        const unreachable: never = error;
        throw new Error(`unmapped logout outcome ${JSON.stringify(unreachable)}`);
      }
    }
  });

  const appBody = { ...settings.app };
  router.get('/app', (ctx) => reply(ctx, 200, MESSAGES.ok, appBody));

  router.get('/user', async (ctx) => {
    const user = await useCases.getCurrentUser.execute({
      sessionToken: sessionToken(ctx),
      authorization: header(ctx.req.headers, 'authorization'),
      ip: clientIp(ctx, settings),
      requestId: requestIdOf(ctx),
    });
    if (user.state === 'logged_out') {
      return reply(ctx, 200, MESSAGES.unauthorized, {
        isLoggedIn: false, username: '', name: '', email: '', provider: '', oauth: false, totpPending: 'false',
      });
    }
    const { identity } = user;
    const pending = user.state === 'totp_pending';
    reply(ctx, 200, pending ? 'TOTP code required' : 'Authenticated', {
      isLoggedIn: !pending,
      username: identity.username,
      name: identity.name,
      email: identity.email,
      provider: identity.provider,
      oauth: identity.oauth,
      totpPending: String(pending),
    });
  });

  oauthRoutes(router, useCases, settings, reply, (ctx) => clientIp(ctx, settings), sessionCookie);

  return router;
}
