import type Router from '@koa/router';
import type { CompleteOAuthUseCase } from '../../application/oauth/complete-oauth';
import type { StartOAuthUseCase } from '../../application/oauth/start-oauth';
import type { UpstreamBackchannelLogoutUseCase } from '../../application/oauth/upstream-backchannel-logout';
import { answer } from './answer';
import type { Context } from 'koa';
import { oauthCallbackAnswer, oauthStartAnswer } from './answers';
import type { HttpSettings } from './http-settings';
import { koaFacts, queryParam, userAgentOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { readHeldOAuthFlows } from './request-facts';

export interface OAuthUseCases {
  readonly startOAuth: StartOAuthUseCase;
  readonly completeOAuth: CompleteOAuthUseCase;
  /** Issue 35: null without an upstream OpenID Connect provider; absent in hosts built without it. */
  readonly upstreamBackchannelLogout?: UpstreamBackchannelLogoutUseCase | null;
}

/** The longest back-channel logout request read: a form with one token of at most 8 KB. */
const MAX_LOGOUT_BODY = 16 * 1024;

/** The form body, or null when it is longer than {@link MAX_LOGOUT_BODY} bytes (reading stops there). */
async function boundedBody(ctx: Context): Promise<string | null> {
  const declared = Number(ctx.get('Content-Length'));
  if (Number.isFinite(declared) && declared > MAX_LOGOUT_BODY) return null;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req) {
    received += (chunk as Buffer).length;
    if (received > MAX_LOGOUT_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const NO_STORE: readonly (readonly [string, string])[] = [['cache-control', 'no-store']];
const INVALID_LOGOUT_TOKEN = answer(400, 'invalid_logout_token', [], { fields: { error: 'invalid_request' }, headers: NO_STORE });

/**
 * `POST /api/oauth/backchannel/:provider` (OpenID Connect Back-Channel Logout 1.0, section 2.5):
 * the upstream provider's server posts `logout_token`; 200 once the sessions it names have ended,
 * 400 `invalid_logout_token` for anything else (nothing ended), answered without reading more
 * than 16 KB.
 */
async function backchannelLogout(ctx: Context, useCase: UpstreamBackchannelLogoutUseCase | null | undefined, settings: HttpSettings): Promise<void> {
  const provider = String(ctx.params.provider);
  const { ip, requestId } = koaFacts(ctx, settings.clientAddress);
  const form = ctx.is('application/x-www-form-urlencoded') === false ? null : await boundedBody(ctx);
  const token = form === null ? null : new URLSearchParams(form).getAll('logout_token');
  if (useCase === null || useCase === undefined || token === null || token.length !== 1) {
    if (form === null) ctx.set('Connection', 'close');
    return renderAnswer(ctx, INVALID_LOGOUT_TOKEN);
  }
  const result = await useCase.execute({ provider, logoutToken: token[0], ip, requestId });
  if (result.ok) return renderAnswer(ctx, answer(200, 'ok', [], { fields: { ended: result.value.ended }, headers: NO_STORE }));
  if (result.error.code === 'store_unavailable') return renderAnswer(ctx, answer(503, 'store_unavailable', [], { headers: NO_STORE }));
  return renderAnswer(ctx, INVALID_LOGOUT_TOKEN);
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

  router.post('/oauth/backchannel/:provider', (ctx) => backchannelLogout(ctx, useCases.upstreamBackchannelLogout, settings));
}
