import type Router from '@koa/router';
import type { Context } from 'koa';
import type { CreateAccessTokenError, CreateAccessTokenUseCase } from '../../application/tokens/create-access-token';
import type { ListAccessTokensError, ListAccessTokensOutput, ListAccessTokensUseCase } from '../../application/tokens/list-access-tokens';
import type { RevokeAccessTokenError, RevokeAccessTokenUseCase } from '../../application/tokens/revoke-access-token';
import type { IssuedToken } from '../../application/tokens/token-issuer';
import type { AccessTokenRecord } from '../../domain/access-token';
import type { Result } from '../../domain/result';
import { jsonChange } from './account-routes';
import { answer, fixed, type Answer } from './answer';
import { CROSS_SITE_REQUEST, invalidFields, SESSION_REQUIRED, STORE_UNAVAILABLE, unmapped } from './answers';
import type { HttpSettings } from './http-settings';
import { callerOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';

export interface TokenUseCases {
  readonly createAccessToken: CreateAccessTokenUseCase;
  readonly listAccessTokens: ListAccessTokensUseCase;
  readonly revokeAccessToken: RevokeAccessTokenUseCase;
}

/** The token routes and their methods, for the 404/405 fallback (only with TOKENS on). */
export const TOKEN_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/api/account/tokens', ['GET', 'HEAD', 'POST']],
  ['/api/account/tokens/revoke', ['POST']],
];

/** Token ids are random ids; anything longer is not one of ours. */
const MAX_ID_LENGTH = 128;

const LOCAL_ACCOUNT_REQUIRED = fixed(403, 'local_account_required');
const TOKEN_NOT_FOUND = fixed(404, 'token_not_found');
const TOO_MANY_TOKENS = fixed(409, 'too_many_tokens');

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A token as the API shows it: never the secret, nor its hash. */
function tokenView(t: AccessTokenRecord): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    apps: t.apps === null ? null : [...t.apps],
    createdAt: iso(t.createdAt),
    lastUsedAt: iso(t.lastUsedAt),
    expiresAt: iso(t.expiresAt),
    revokedAt: iso(t.revokedAt),
  };
}

/** `GET /api/account/tokens`: the caller's tokens, newest first. */
export function listTokensAnswer(result: Result<ListAccessTokensOutput, ListAccessTokensError>): Answer {
  if (result.ok) return answer(200, 'tokens', [], { fields: { tokens: result.value.tokens.map(tokenView) } });
  const error = result.error;
  switch (error.code) {
    case 'session_required':
      return SESSION_REQUIRED;
    case 'local_account_required':
      return LOCAL_ACCOUNT_REQUIRED;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('list tokens', error);
  }
}

/** `POST /api/account/tokens`: the secret is in this answer, and in no other. */
export function createTokenAnswer(result: Result<IssuedToken, CreateAccessTokenError>): Answer {
  if (result.ok) {
    const { token, record } = result.value;
    return answer(201, 'token_created', [], { fields: { token, id: record.id, ...tokenView(record) } });
  }
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    case 'session_required':
      return SESSION_REQUIRED;
    case 'local_account_required':
      return LOCAL_ACCOUNT_REQUIRED;
    case 'invalid_fields':
      return invalidFields(error.fields);
    case 'too_many_tokens':
      return TOO_MANY_TOKENS;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('create token', error);
  }
}

/** `POST /api/account/tokens/revoke`: answered only once the revocation is stored everywhere it must be. */
export function revokeTokenAnswer(result: Result<Record<string, never>, RevokeAccessTokenError>): Answer {
  if (result.ok) return answer(200, 'token_revoked', []);
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    case 'session_required':
      return SESSION_REQUIRED;
    case 'local_account_required':
      return LOCAL_ACCOUNT_REQUIRED;
    case 'token_not_found':
      return TOKEN_NOT_FOUND;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('revoke token', error);
  }
}

/** The fields of a body that is a JSON object; null for anything else. */
function objectOf(body: unknown): Record<string, unknown> | null {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
}

/** `{ "id": "<token id>" }`: the id, or null. */
export function readTokenId(body: unknown): string | null {
  const id = objectOf(body)?.id;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH ? id : null;
}

/**
 * `/api/account/tokens` and `/api/account/tokens/revoke` (issue 32), only with TOKENS on. As the
 * other account routes: a full session cookie only (never HTTP Basic, never a token: a token cannot
 * make or end tokens), about the caller's own account only; the POSTs take JSON only and are refused
 * on evidence of another site (see isFromThisSite).
 */
export function tokenRoutes(router: Router, useCases: TokenUseCases, settings: HttpSettings): void {
  const appOrigin = new URL(settings.appUrl).origin;
  const jsonOnly = jsonChange(appOrigin);
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);

  router.get('/account/tokens', async (ctx) => {
    renderAnswer(ctx, listTokensAnswer(await useCases.listAccessTokens.execute(caller(ctx))));
  });

  router.post(
    '/account/tokens',
    jsonOnly(async (ctx) => createTokenAnswer(await useCases.createAccessToken.execute({ ...caller(ctx), fromThisSite: false, name: '' }))),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const body = objectOf(ctx.request.body);
      if (fromThisSite && body === null) return renderAnswer(ctx, invalidFields(['name']));
      const result = await useCases.createAccessToken.execute({
        ...caller(ctx),
        fromThisSite,
        name: body?.name,
        apps: body?.apps,
        expiresInDays: body?.expiresInDays,
      });
      renderAnswer(ctx, createTokenAnswer(result));
    },
  );

  router.post(
    '/account/tokens/revoke',
    jsonOnly(async (ctx) => revokeTokenAnswer(await useCases.revokeAccessToken.execute({ ...caller(ctx), fromThisSite: false, id: '' }))),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const id = readTokenId(ctx.request.body);
      if (fromThisSite && id === null) return renderAnswer(ctx, invalidFields(['id']));
      renderAnswer(ctx, revokeTokenAnswer(await useCases.revokeAccessToken.execute({ ...caller(ctx), fromThisSite, id: id ?? '' })));
    },
  );
}
