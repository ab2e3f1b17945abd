import type { GetTotpEnrolmentError, TotpEnrolmentState } from '../../application/totp/get-totp-enrolment';
import type { StartTotpEnrolmentError, StartTotpEnrolmentOutput } from '../../application/totp/start-totp-enrolment';
import type { Result } from '../../domain/result';
import type { QrCodeModule } from '../qrcode/qr-code';
import { answer, fixed, type Answer } from './answer';
import { INVALID_CREDENTIALS, locked, NOT_LOGGED_IN, sessionCookie, STORE_UNAVAILABLE, TOTP_INVALID, unmapped } from './answers';
import type { CookieSettings } from './cookies';

// One pure function per TOTP set-up use case, from its result to an answer (see answers.ts).

/** A set-up request that does not provably come from the gateway's own pages (see isFromThisSite). */
export const TOTP_CROSS_SITE = fixed(403, 'totp_cross_site');
const SET_BY_ADMINISTRATOR = fixed(409, 'totp_set_by_administrator');
const NEEDS_PASSWORD = fixed(409, 'totp_needs_password');
const ALREADY_ENROLLED = fixed(409, 'totp_already_enrolled');
const NOT_ENROLLED = fixed(409, 'totp_not_enrolled');

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

/** `GET /api/account/totp`: where the caller's TOTP code comes from. */
export function totpEnrolmentStateAnswer(result: Result<{ readonly state: TotpEnrolmentState }, GetTotpEnrolmentError>): Answer {
  if (result.ok) return answer(200, 'totp_enrolment', [], { fields: { state: result.value.state } });
  const error = result.error;
  switch (error.code) {
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('totp state', error);
  }
}

/** `POST /api/account/totp/setup`: a new secret, its URI and QR code, and the sealed enrolment that confirms it. */
export function totpSetupAnswer(result: Result<StartTotpEnrolmentOutput, StartTotpEnrolmentError>, qrcode: () => QrCodeModule): Answer {
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
export function totpChangeAnswer(result: Result<Reissued, ChangeError>, done: 'totp_enrolled' | 'totp_removed', cookies: CookieSettings): Answer {
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
      return INVALID_CREDENTIALS;
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
