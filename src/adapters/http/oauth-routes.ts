import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CompleteOAuthError, CompleteOAuthUseCase } from '../../application/use-cases/complete-oauth';
import type { HeldOAuthFlow, StartOAuthUseCase } from '../../application/use-cases/start-oauth';
import { FLOW_ID_PATTERN, MAX_LIVE_OAUTH_FLOWS } from '../../domain/oauth-flow';
import type { Session } from '../../domain/session';
import { clearCookie, OAUTH_FLOW_COOKIE_PREFIX, OAUTH_REDIRECT_COOKIE_PREFIX, readCookiesWithPrefix, setCookie } from './cookies';
import { MESSAGES } from './envelope';
import { header } from './header-access';
import type { HttpSettings } from './http-settings';
import { isApiMode } from './request-mode';

export interface OAuthUseCases {
  readonly startOAuth: StartOAuthUseCase;
  readonly completeOAuth: CompleteOAuthUseCase;
}

type Reply = (ctx: Context, status: number, message: string, fields?: Record<string, unknown>) => void;

/** Flow cookies are read for the gateway only: host-only, so protected apps never receive them. */
const HOST_ONLY = { hostOnly: true } as const;
/** Reading a few more than the cap lets stale extras be cleared. */
const MAX_FLOW_COOKIES_READ = MAX_LIVE_OAUTH_FLOWS * 2;

/** One query parameter as a single string; repeated or absent parameters read as absent. */
function queryParam(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  return typeof v === 'string' ? v : undefined;
}

function heldFlows(ctx: Context): HeldOAuthFlow[] {
  return readCookiesWithPrefix(header(ctx.req.headers, 'cookie'), OAUTH_FLOW_COOKIE_PREFIX, MAX_FLOW_COOKIES_READ)
    .filter((c) => FLOW_ID_PATTERN.test(c.suffix))
    .map((c) => ({ id: c.suffix, token: c.value }));
}

/** The HTTP face of a failed callback: status and message for API mode, page and reason for browser mode. */
function describe(error: CompleteOAuthError): { status: number; message: string; page: 'error' | 'unauthorized' } {
  switch (error.code) {
    case 'unknown_provider':
      return { status: 400, message: 'Unknown OAuth provider; use one of github, google, generic', page: 'error' };
    case 'provider_not_configured':
      return { status: 404, message: 'This OAuth provider is not configured', page: 'error' };
    case 'invalid_callback':
      return { status: 400, message: 'The OAuth callback needs a code and a state', page: 'error' };
    case 'oauth_flow_missing':
      return { status: 400, message: 'No OAuth login is in progress in this browser', page: 'error' };
    case 'oauth_state_mismatch':
      return { status: 400, message: 'The OAuth state does not match a login of this browser', page: 'error' };
    case 'oauth_flow_expired':
      return { status: 400, message: 'The OAuth login took too long; start again', page: 'error' };
    case 'oauth_flow_replayed':
      return { status: 400, message: 'This OAuth login was already completed', page: 'error' };
    case 'provider_denied':
      return { status: 401, message: 'The OAuth provider did not grant the login', page: 'error' };
    case 'provider_refused':
      return { status: 401, message: 'The OAuth provider refused the login', page: 'error' };
    case 'email_missing':
      return { status: 403, message: 'The OAuth provider vouches for no verified e-mail address', page: 'unauthorized' };
    case 'identity_invalid':
      return { status: 403, message: 'The OAuth provider gave an e-mail address with characters that cannot be used here', page: 'unauthorized' };
    case 'not_whitelisted':
      return { status: 403, message: 'This account may not log in here', page: 'unauthorized' };
    case 'provider_unavailable':
      return { status: 502, message: 'The OAuth provider cannot be reached; try again later', page: 'error' };
    case 'provider_invalid_response':
      return { status: 502, message: 'The OAuth provider gave an unexpected answer', page: 'error' };
    case 'store_unavailable':
      return { status: 503, message: MESSAGES.unavailable, page: 'error' };
    default: {
      const unreachable: never = error;
      throw new Error(`unmapped oauth outcome ${String(unreachable)}`);
    }
  }
}

/**
 * `/api/oauth/url/:provider` and `/api/oauth/callback/:provider`. Each flow gets its own sealed,
 * host-only cookie `portcullis-oauth-<flow id>` (and `portcullis-redirect-<flow id>` when a safe
 * redirect target was asked for), so logins in several tabs never share state.
 */
export function oauthRoutes(
  router: Router,
  useCases: OAuthUseCases,
  settings: HttpSettings,
  reply: Reply,
  clientIp: (ctx: Context) => string,
  sessionCookie: (session: Session) => string,
): void {
  const forget = (ctx: Context, flowId: string): void => {
    ctx.append('Set-Cookie', clearCookie(`${OAUTH_FLOW_COOKIE_PREFIX}${flowId}`, settings.cookies, HOST_ONLY));
    ctx.append('Set-Cookie', clearCookie(`${OAUTH_REDIRECT_COOKIE_PREFIX}${flowId}`, settings.cookies, HOST_ONLY));
  };
  const redirect = (ctx: Context, location: string): void => {
    ctx.set('Location', location);
    reply(ctx, 302, 'Redirecting');
  };

  router.get('/oauth/url/:provider', async (ctx) => {
    const result = await useCases.startOAuth.execute({
      provider: String(ctx.params.provider),
      redirectUri: queryParam(ctx, 'redirect_uri'),
      heldFlows: heldFlows(ctx),
    });
    if (!result.ok) {
      switch (result.error.code) {
        case 'unknown_provider':
          return reply(ctx, 400, 'Unknown OAuth provider; use one of github, google, generic');
        case 'provider_not_configured':
          return reply(ctx, 404, `OAuth provider ${String(ctx.params.provider)} is not configured`);
        default: {
          const unreachable: never = result.error;
          throw new Error(`unmapped oauth start outcome ${String(unreachable)}`);
        }
      }
    }
    const { flow, redirectTarget, discard, url } = result.value;
    for (const id of discard) if (FLOW_ID_PATTERN.test(id)) forget(ctx, id);
    const maxAge = flow.lifetimeMs / 1000;
    ctx.append('Set-Cookie', setCookie(`${OAUTH_FLOW_COOKIE_PREFIX}${flow.id}`, flow.token, maxAge, settings.cookies, HOST_ONLY));
    if (redirectTarget !== null) {
      // Mirrors the target for the UI; the callback trusts only the sealed copy in the flow cookie,
      // since a sibling subdomain can plant a plain cookie but cannot forge a sealed one.
      ctx.append('Set-Cookie', setCookie(`${OAUTH_REDIRECT_COOKIE_PREFIX}${flow.id}`, encodeURIComponent(redirectTarget), maxAge, settings.cookies, HOST_ONLY));
    }
    reply(ctx, 200, MESSAGES.ok, { url });
  });

  router.get('/oauth/callback/:provider', async (ctx) => {
    const provider = String(ctx.params.provider);
    const apiMode = isApiMode(ctx.req.headers);
    const result = await useCases.completeOAuth.execute({
      provider,
      code: queryParam(ctx, 'code'),
      state: queryParam(ctx, 'state'),
      providerError: queryParam(ctx, 'error'),
      heldFlows: heldFlows(ctx),
      ip: clientIp(ctx),
      requestId: (ctx.state as { requestId?: string }).requestId,
    });
    if (result.ok) {
      const { session, redirectTarget, flowId } = result.value;
      forget(ctx, flowId);
      ctx.append('Set-Cookie', sessionCookie(session));
      if (redirectTarget !== null) return redirect(ctx, redirectTarget);
      if (!apiMode) return redirect(ctx, `${settings.appUrl}/login`);
      return reply(ctx, 200, MESSAGES.loggedIn);
    }
    const error = result.error;
    if ('flowId' in error) forget(ctx, error.flowId);
    const { status, message, page } = describe(error);
    if (status === 502) settings.logger.warn('oauth provider failed', { provider, reason: error.code });
    if (!apiMode) return redirect(ctx, `${settings.appUrl}/${page}?reason=${encodeURIComponent(error.code)}`);
    reply(ctx, status, message);
  });
}
