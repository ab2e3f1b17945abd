import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CompleteOAuthUseCase } from '../../application/use-cases/complete-oauth';
import type { HeldOAuthFlow, StartOAuthUseCase } from '../../application/use-cases/start-oauth';
import { FLOW_ID_PATTERN, MAX_LIVE_OAUTH_FLOWS } from '../../domain/oauth-flow';
import { oauthCallbackAnswer, oauthStartAnswer } from './answers';
import { OAUTH_FLOW_COOKIE_PREFIX, readCookiesWithPrefix } from './cookies';
import { header } from './header-access';
import type { HttpSettings } from './http-settings';
import { koaFacts } from './koa-facts';
import { renderAnswer } from './koa-renderer';

export interface OAuthUseCases {
  readonly startOAuth: StartOAuthUseCase;
  readonly completeOAuth: CompleteOAuthUseCase;
}

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

/**
 * `/api/oauth/url/:provider` and `/api/oauth/callback/:provider`. Each flow gets its own sealed,
 * host-only cookie `portcullis-oauth-<flow id>` (and `portcullis-redirect-<flow id>` when a safe
 * redirect target was asked for), so logins in several tabs never share state.
 */
export function oauthRoutes(router: Router, useCases: OAuthUseCases, settings: HttpSettings): void {
  router.get('/oauth/url/:provider', async (ctx) => {
    const provider = String(ctx.params.provider);
    const result = await useCases.startOAuth.execute({ provider, redirectUri: queryParam(ctx, 'redirect_uri'), heldFlows: heldFlows(ctx) });
    renderAnswer(ctx, oauthStartAnswer(result, provider, settings.cookies));
  });

  router.get('/oauth/callback/:provider', async (ctx) => {
    const provider = String(ctx.params.provider);
    const { apiMode, ip, requestId } = koaFacts(ctx, settings.clientAddress);
    const result = await useCases.completeOAuth.execute({
      provider,
      code: queryParam(ctx, 'code'),
      state: queryParam(ctx, 'state'),
      providerError: queryParam(ctx, 'error'),
      heldFlows: heldFlows(ctx),
      ip,
      requestId,
    });
    if (!result.ok && (result.error.code === 'provider_unavailable' || result.error.code === 'provider_invalid_response')) {
      settings.logger.warn('oauth provider failed', { provider, reason: result.error.code });
    }
    renderAnswer(ctx, oauthCallbackAnswer(result, apiMode, settings.appUrl, settings.cookies));
  });
}
