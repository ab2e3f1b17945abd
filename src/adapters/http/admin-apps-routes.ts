import type Router from '@koa/router';
import type { Context } from 'koa';
import type { RevokeAdminTokenError } from '../../application/admin/admin-tokens';
import type { Result } from '../../domain/result';
import { answer, fixed, type Answer } from './answer';
import { invalidFields } from './answers';
import { jsonChange } from './account-routes';
import { adminRefused, type AdminUseCases } from './admin-routes';
import type { HttpSettings } from './http-settings';
import { callerOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';

const TOKEN_NOT_FOUND = fixed(404, 'token_not_found');
const MAX_ID_LENGTH = 128;

function revokeTokenAnswer(result: Result<{ readonly username: string }, RevokeAdminTokenError>, loginUrl: string): Answer {
  if (result.ok) return answer(200, 'token_revoked', [], { fields: { username: result.value.username } });
  return result.error.code === 'token_not_found' ? TOKEN_NOT_FOUND : adminRefused(result.error, loginUrl, 'admin revoke token');
}

/** `{id}`: a token's public id; null otherwise. */
export function readAdminTokenId(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id } = body as Record<string, unknown>;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH ? id : null;
}

/**
 * The console's read-only applications (the access rules as loaded, the OIDC clients: never a
 * secret) and the revocation of anyone's access token (issue 36). The admin gate decides each
 * request in the use cases, as for every admin route.
 */
export function adminAppsRoutes(router: Router, useCases: AdminUseCases, settings: HttpSettings): void {
  const appOrigin = new URL(settings.appUrl).origin;
  const loginUrl = `${settings.appUrl.replace(/\/+$/, '')}/login`;
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);

  router.get('/admin/apps', async (ctx) => {
    const result = await useCases.listAdminApps.execute(caller(ctx));
    renderAnswer(ctx, result.ok ? answer(200, 'apps', [], { fields: { ...result.value } }) : adminRefused(result.error, loginUrl, 'admin apps'));
  });

  router.get('/admin/oidc-clients', async (ctx) => {
    const result = await useCases.listOidcClients.execute(caller(ctx));
    renderAnswer(
      ctx,
      result.ok ? answer(200, 'oidc_clients', [], { fields: { clients: result.value } }) : adminRefused(result.error, loginUrl, 'admin oidc clients'),
    );
  });

  router.post(
    '/admin/tokens/revoke',
    jsonChange(appOrigin)(async (ctx) => revokeTokenAnswer(await useCases.revokeAdminToken.execute({ ...caller(ctx), fromThisSite: false, id: '' }), loginUrl)),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const id = readAdminTokenId(ctx.request.body);
      if (fromThisSite && id === null) return renderAnswer(ctx, invalidFields(['id']));
      renderAnswer(ctx, revokeTokenAnswer(await useCases.revokeAdminToken.execute({ ...caller(ctx), fromThisSite, id: id ?? '' }), loginUrl));
    },
  );
}
