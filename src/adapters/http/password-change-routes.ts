import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ChangePasswordError, ChangePasswordUseCase, GetPasswordChangeUseCase } from '../../application/account/change-password';
import type { ReissuedSession } from '../../application/totp/second-factor-sessions';
import { MAX_PASSWORD_BYTES } from '../../domain/password-strength';
import type { Result } from '../../domain/result';
import { answer, fixed, type Answer } from './answer';
import { CROSS_SITE_REQUEST, INVALID_CREDENTIALS, invalidFields, locked, SESSION_REQUIRED, sessionCookie, STORE_UNAVAILABLE, unmapped } from './answers';
import type { CookieSettings } from './cookies';
import type { HttpSettings } from './http-settings';
import { JSON_TYPES, jsonBody, jsonFieldsOf, jsonOnly } from './json-body';
import { callerOf, userAgentOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';

export interface PasswordChangeUseCases {
  readonly getPasswordChange: GetPasswordChangeUseCase;
  readonly changePassword: ChangePasswordUseCase;
}

/** The password change routes and their methods, for the 404/405 fallback. */
export const PASSWORD_CHANGE_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [['/api/account/password', ['GET', 'HEAD', 'POST']]];

const READ_ONLY_SOURCE = fixed(409, 'read_only_source');
const USERS_FILE_CHANGED = fixed(409, 'users_file_changed');

/** `GET /api/account/password`: whether the form is shown. */
export function passwordChangeAnswer(
  result: Result<{ readonly changeable: boolean }, { readonly code: 'not_logged_in' } | { readonly code: 'store_unavailable' }>,
): Answer {
  if (result.ok) return answer(200, 'password_change', [], { fields: { changeable: result.value.changeable } });
  const error = result.error;
  switch (error.code) {
    case 'not_logged_in':
      return SESSION_REQUIRED;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('password change state', error);
  }
}

/** `POST /api/account/password`: the caller's re-issued session in its cookie (the old one is revoked). */
export function changePasswordAnswer(result: Result<ReissuedSession, ChangePasswordError>, cookies: CookieSettings): Answer {
  if (result.ok) return answer(200, 'password_changed', [], { fields: { ended: result.value.ended }, cookies: [sessionCookie(result.value, cookies)] });
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    case 'not_logged_in':
      return SESSION_REQUIRED;
    case 'read_only_source':
      return READ_ONLY_SOURCE;
    case 'weak_password':
      return answer(400, 'weak_password', [error.reason], { fields: { reason: error.reason } });
    case 'invalid_credentials':
      return INVALID_CREDENTIALS;
    case 'account_locked':
      return locked(error.retryAfter);
    case 'users_file_changed':
      return USERS_FILE_CHANGED;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('password change', error);
  }
}

/** The fields of `{current, password}` that are missing or not strings of a sane size. */
export function badPasswordFields(body: Record<string, unknown>): string[] {
  const fit = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && v.length <= 16 * MAX_PASSWORD_BYTES;
  return [...(fit(body.current) ? [] : ['current']), ...(fit(body.password) ? [] : ['password'])];
}

/**
 * `/api/account/password` (issue 36): whether the caller may change their password, and the change.
 * Only a full cookie session (the use case refuses Basic, tokens, pending sessions); the POST is
 * refused on evidence of another site first (answered through the use case), then takes JSON only.
 */
export function passwordChangeRoutes(router: Router, useCases: PasswordChangeUseCases, settings: HttpSettings): void {
  const json = jsonOnly(jsonBody({ types: JSON_TYPES, limit: '16kb' }));
  const appOrigin = new URL(settings.appUrl).origin;
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);

  router.get('/account/password', async (ctx) => {
    renderAnswer(ctx, passwordChangeAnswer(await useCases.getPasswordChange.execute(caller(ctx))));
  });

  router.post(
    '/account/password',
    async (ctx, next) => {
      if (isFromThisSite(ctx.req.headers, appOrigin)) return json(ctx, next);
      const refused = await useCases.changePassword.execute({ ...caller(ctx), fromThisSite: false, current: '', password: '' });
      renderAnswer(ctx, changePasswordAnswer(refused, settings.cookies));
    },
    async (ctx) => {
      const body = jsonFieldsOf(ctx);
      const bad = badPasswordFields(body);
      if (bad.length > 0) return renderAnswer(ctx, invalidFields(bad));
      const result = await useCases.changePassword.execute({
        ...caller(ctx),
        fromThisSite: true,
        current: body.current as string,
        password: body.password as string,
        userAgent: userAgentOf(ctx),
      });
      renderAnswer(ctx, changePasswordAnswer(result, settings.cookies));
    },
  );
}
