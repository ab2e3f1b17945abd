import type Router from '@koa/router';
import type { CompleteOAuthUseCase } from '../../application/oauth/complete-oauth';
import type { StartOAuthUseCase } from '../../application/oauth/start-oauth';
import { oauthCallbackAnswer, oauthStartAnswer } from './answers';
import type { HttpSettings } from './http-settings';
import { koaFacts, queryParam, userAgentOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { readHeldOAuthFlows } from './request-facts';

export interface OAuthUseCases {
  readonly startOAuth: StartOAuthUseCase;
  readonly completeOAuth: CompleteOAuthUseCase;
}

/**
 * `/api/oauth/url/:provider` and `/api/oauth/callback/:provider`. Each flow gets its own sealed,
 * host-only cookie `portcullis-oauth-<flow id>` (and `portcullis-redirect-<flow id>` when a safe
 * redirect target was asked for), so logins in several tabs never share state.
 */
export function oauthRoutes(router: Router, useCases: OAuthUseCases, settings: HttpSettings): void {
  router.get('/oauth/url/:provider', async (ctx) => {
    const provider = String(ctx.params.provider);
    const result = await useCases.startOAuth.execute({ provider, redirectUri: queryParam(ctx, 'redirect_uri'), heldFlows: readHeldOAuthFlows(ctx.req) });
    if (!result.ok && result.error.code === 'provider_unavailable') settings.logger.warn('oauth provider failed', { provider, reason: 'discovery' });
    renderAnswer(ctx, oauthStartAnswer(result, provider, settings.cookies, settings.providers.ids()));
  });

  router.get('/oauth/callback/:provider', async (ctx) => {
    const provider = String(ctx.params.provider);
    const { apiMode, ip, requestId } = koaFacts(ctx, settings.clientAddress);
    const result = await useCases.completeOAuth.execute({
      provider,
      code: queryParam(ctx, 'code'),
      state: queryParam(ctx, 'state'),
      // A repeated iss reads as absent here, which a provider that promises iss refuses; one that does not cannot be checked anyway.
      iss: queryParam(ctx, 'iss'),
      providerError: queryParam(ctx, 'error'),
      heldFlows: readHeldOAuthFlows(ctx.req),
      ip,
      requestId,
      userAgent: userAgentOf(ctx),
    });
    if (!result.ok && (result.error.code === 'provider_unavailable' || result.error.code === 'provider_invalid_response')) {
      settings.logger.warn('oauth provider failed', { provider, reason: result.error.code });
    }
    renderAnswer(ctx, oauthCallbackAnswer(result, apiMode, settings.appUrl, settings.cookies, settings.providers.ids()));
  });
}
