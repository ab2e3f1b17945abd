import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ConfirmTotpEnrolmentUseCase } from '../../application/use-cases/confirm-totp-enrolment';
import type { GetTotpEnrolmentUseCase } from '../../application/use-cases/get-totp-enrolment';
import type { RemoveTotpEnrolmentUseCase } from '../../application/use-cases/remove-totp-enrolment';
import type { StartTotpEnrolmentError, StartTotpEnrolmentOutput, StartTotpEnrolmentUseCase } from '../../application/use-cases/start-totp-enrolment';
import type { Result } from '../../domain/result';
import type { QrCodeModule } from '../cli/qr-code';
import { answer, fixed, type Answer } from './answer';
import { invalidFields, locked, sessionCookie, STORE_UNAVAILABLE, unmapped, UNSUPPORTED_MEDIA_TYPE } from './answers';
import { userAgentOf } from './account-routes';
import type { CookieSettings } from './cookies';
import type { HttpSettings } from './http-settings';
import { jsonBody } from './json-body';
import { koaFacts } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';

export interface TotpEnrolmentUseCases {
  readonly getTotpEnrolment: GetTotpEnrolmentUseCase;
  readonly startTotpEnrolment: StartTotpEnrolmentUseCase;
  readonly confirmTotpEnrolment: ConfirmTotpEnrolmentUseCase;
  readonly removeTotpEnrolment: RemoveTotpEnrolmentUseCase;
  /** The qrcode package, loaded with the first set-up (ADR 0015). */
  readonly qrcode: () => QrCodeModule;
}

/** The TOTP set-up routes and their methods, for the 404/405 fallback. */
export const TOTP_ENROLMENT_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/api/account/totp', ['GET', 'HEAD']],
  ['/api/account/totp/setup', ['POST']],
  ['/api/account/totp/confirm', ['POST']],
  ['/api/account/totp/remove', ['POST']],
];

const JSON_TYPES = ['application/json', '+json'];
const NOT_LOGGED_IN = fixed(401, 'not_logged_in');
const CROSS_SITE = fixed(403, 'totp_cross_site');
const SET_BY_ADMINISTRATOR = fixed(409, 'totp_set_by_administrator');
const NEEDS_PASSWORD = fixed(409, 'totp_needs_password');
const ALREADY_ENROLLED = fixed(409, 'totp_already_enrolled');
const NOT_ENROLLED = fixed(409, 'totp_not_enrolled');
const TOTP_INVALID = fixed(401, 'totp_invalid');
const INVALID_PASSWORD = fixed(401, 'invalid_credentials');
/** Codes are six digits, spaces allowed; enrolment tokens are short sealed strings. */
const CODE = /^[0-9 ]{6,12}$/;
const MAX_ENROLMENT = 1024;
/** As the login form's limit: bcrypt reads 72 bytes, and nothing longer is worth hashing. */
const MAX_PASSWORD = 1024;

/**
 * The QR code of `uri` as one SVG path over a `size`-module square (quiet zone included): the page
 * draws it with DOM calls, so no image URL or inline markup needs a CSP exception.
 */
export function qrPath(qrcode: QrCodeModule, uri: string): { readonly size: number; readonly path: string } {
  const { modules } = qrcode.create(uri, { errorCorrectionLevel: 'M' });
  const quiet = 4;
  const parts: string[] = [];
  for (let y = 0; y < modules.size; y += 1) for (let x = 0; x < modules.size; x += 1) if (modules.get(y, x)) parts.push(`M${x + quiet} ${y + quiet}h1v1h-1z`);
  return { size: modules.size + 2 * quiet, path: parts.join('') };
}

function setupAnswer(result: Result<StartTotpEnrolmentOutput, StartTotpEnrolmentError>, qrcode: () => QrCodeModule): Answer {
  if (result.ok) {
    const { secret, uri, enrolment, expiresAt } = result.value;
    // The secret is in this answer on purpose (its owner types it into an app); never logged, never in a URL.
    return answer(200, 'totp_setup', [], {
      fields: { secret, uri, enrolment, expiresAt: new Date(expiresAt).toISOString(), qr: qrPath(qrcode(), uri) },
      headers: [['cache-control', 'no-store']],
    });
  }
  const error = result.error;
  switch (error.code) {
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'totp_set_by_administrator':
      return SET_BY_ADMINISTRATOR;
    case 'totp_needs_password':
      return NEEDS_PASSWORD;
    case 'totp_already_enrolled':
      return ALREADY_ENROLLED;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('totp setup', error);
  }
}

type ChangeError =
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'totp_set_by_administrator' }
  | { readonly code: 'totp_already_enrolled' }
  | { readonly code: 'totp_not_enrolled' }
  | { readonly code: 'enrolment_invalid' }
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'invalid_code' }
  | { readonly code: 'totp_replayed' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

type Reissued = { readonly session: { readonly issuedAt: number; readonly expiresAt: number }; readonly token: string; readonly ended: number };

/** `/confirm` and `/remove`: the caller's re-issued session in its cookie (the old one is revoked). */
function changeAnswer(result: Result<Reissued, ChangeError>, done: 'totp_enrolled' | 'totp_removed', cookies: CookieSettings): Answer {
  if (result.ok) return answer(200, done, [], { fields: { ended: result.value.ended }, cookies: [sessionCookie(result.value, cookies)] });
  const error = result.error;
  switch (error.code) {
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'totp_set_by_administrator':
      return SET_BY_ADMINISTRATOR;
    case 'totp_already_enrolled':
      return ALREADY_ENROLLED;
    case 'totp_not_enrolled':
      return NOT_ENROLLED;
    case 'enrolment_invalid':
      return answer(400, 'enrolment_invalid', []);
    case 'invalid_credentials':
      return INVALID_PASSWORD;
    // A replayed code is told like a wrong one: which codes were used is nobody's business.
    case 'invalid_code':
    case 'totp_replayed':
      return TOTP_INVALID;
    case 'account_locked':
      return locked(error.retryAfter);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('totp change', error);
  }
}

function bodyOf(ctx: Context): Record<string, unknown> {
  const raw = ctx.request.body as unknown;
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/**
 * `/api/account/totp*` (issue 16): setting up and removing a TOTP code of one's own. Only for a
 * fully logged-in cookie session of a local account (see passkeyOwner), only about the caller's
 * own account. Every POST takes JSON only and passes the same Sec-Fetch-Site / Origin check as
 * logout, so a cross-site page can neither start nor finish a set-up.
 */
export function totpEnrolmentRoutes(router: Router, useCases: TotpEnrolmentUseCases, settings: HttpSettings): void {
  const body = jsonBody({ types: JSON_TYPES, limit: '4kb' });
  const appOrigin = new URL(settings.appUrl).origin;
  const facts = (ctx: Context) => koaFacts(ctx, settings.clientAddress);
  // JSON from this site only: a form post from anywhere is refused as cross-site first, else as the wrong type.
  const guard = async (ctx: Context, next: () => Promise<unknown>): Promise<unknown> => {
    const json = Boolean(ctx.is(JSON_TYPES));
    if (!isFromThisSite(ctx.req.headers, appOrigin, json)) return renderAnswer(ctx, CROSS_SITE);
    if (!json) return renderAnswer(ctx, UNSUPPORTED_MEDIA_TYPE);
    return body(ctx, next);
  };

  router.get('/account/totp', async (ctx) => {
    const { ip, requestId, sessionToken } = facts(ctx);
    const result = await useCases.getTotpEnrolment.execute({ sessionToken, ip, requestId });
    if (result.ok) return renderAnswer(ctx, answer(200, 'totp_enrolment', [], { fields: { state: result.value.state } }));
    const error = result.error;
    switch (error.code) {
      case 'not_logged_in':
        return renderAnswer(ctx, NOT_LOGGED_IN);
      case 'store_unavailable':
        return renderAnswer(ctx, STORE_UNAVAILABLE);
      default:
        return unmapped('totp state', error);
    }
  });

  router.post('/account/totp/setup', guard, async (ctx) => {
    const { ip, requestId, sessionToken } = facts(ctx);
    renderAnswer(ctx, setupAnswer(await useCases.startTotpEnrolment.execute({ sessionToken, ip, requestId }), useCases.qrcode));
  });

  router.post('/account/totp/confirm', guard, async (ctx) => {
    const { enrolment, code, password } = bodyOf(ctx);
    const bad = [
      ...(typeof enrolment === 'string' && enrolment.length > 0 && enrolment.length <= MAX_ENROLMENT ? [] : ['enrolment']),
      ...(typeof code === 'string' && CODE.test(code) ? [] : ['code']),
      ...(typeof password === 'string' && password.length > 0 && password.length <= MAX_PASSWORD ? [] : ['password']),
    ];
    if (bad.length > 0) return renderAnswer(ctx, invalidFields(bad));
    const { ip, requestId, sessionToken } = facts(ctx);
    const result = await useCases.confirmTotpEnrolment.execute({
      sessionToken,
      enrolment: enrolment as string,
      code: code as string,
      password: password as string,
      ip,
      requestId,
      userAgent: userAgentOf(ctx),
    });
    renderAnswer(ctx, changeAnswer(result, 'totp_enrolled', settings.cookies));
  });

  router.post('/account/totp/remove', guard, async (ctx) => {
    const { code } = bodyOf(ctx);
    if (typeof code !== 'string' || !CODE.test(code)) return renderAnswer(ctx, invalidFields(['code']));
    const { ip, requestId, sessionToken } = facts(ctx);
    const result = await useCases.removeTotpEnrolment.execute({ sessionToken, code, ip, requestId, userAgent: userAgentOf(ctx) });
    renderAnswer(ctx, changeAnswer(result, 'totp_removed', settings.cookies));
  });
}
