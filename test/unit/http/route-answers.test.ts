import { bodyOf, envelopeOf, type Answer } from '../../../src/adapters/http/answer';
import { loginAnswer, logoutAnswer, totpAnswer } from '../../../src/adapters/http/answers';
import { accountAnswer, revokeSessionsAnswer } from '../../../src/adapters/http/account-routes';
import { handoffIssueRefused, handoffRedeemRefused } from '../../../src/adapters/http/handoff-routes';
import {
  enrolmentAnswer,
  enrolmentOptionsAnswer,
  loginOptionsAnswer,
  passkeyChangeAnswer,
  passkeyListAnswer,
  passkeyLoginAnswer,
  registrationAnswer,
  registrationOptionsAnswer,
  secondFactorChoiceAnswer,
} from '../../../src/adapters/http/passkey-answers';
import { TOTP_CROSS_SITE, totpChangeAnswer, totpEnrolmentStateAnswer, totpSetupAnswer } from '../../../src/adapters/http/totp-enrolment-answers';
import type { CookieSettings } from '../../../src/adapters/http/cookies';
import type { Passkey } from '../../../src/domain/passkey';
import { err, ok } from '../../../src/domain/result';
import type { Session } from '../../../src/domain/session';

const cookies: CookieSettings = { domain: { domain: 'example.com', shareable: true }, secure: true };
const noQr = () => {
  throw new Error('a refusal draws no QR code');
};

/** A `Set-Cookie` that makes the browser forget a passkey ceremony (host-only, so no Domain). */
const cleared = (name: string): string => `${name}=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax; Secure`;

interface Wire {
  readonly status: number;
  readonly body: string;
  readonly headers: readonly (readonly [string, string | number])[];
  readonly cookies: readonly string[];
}

/** What a client receives: the status, the JSON envelope as written, the answer's own headers and cookies. */
function wire(
  status: number,
  code: string,
  message: string,
  extra: { readonly fields?: Record<string, unknown>; readonly headers?: Wire['headers']; readonly cookies?: readonly string[] } = {},
): Wire {
  return { status, body: JSON.stringify({ status, code, message, ...extra.fields }), headers: extra.headers ?? [], cookies: extra.cookies ?? [] };
}

function wireOf(answer: Answer): Wire {
  return { status: answer.status, body: JSON.stringify(envelopeOf(answer)), headers: answer.headers ?? [], cookies: answer.cookies ?? [] };
}

// Pins every refusal of the account, passkey, TOTP set-up and hand-off routes (and the login
// refusals they share answers with) to the bytes a client gets, so answers shared between route
// modules cannot drift from what each endpoint answered on its own.
const REFUSALS: ReadonlyArray<readonly [string, Answer, Wire]> = [
  ['login invalid_credentials', loginAnswer(err({ code: 'invalid_credentials' }), cookies), wire(401, 'invalid_credentials', 'Unauthorized')],
  ['totp not_pending', totpAnswer(err({ code: 'not_pending' }), cookies), wire(401, 'not_pending', 'No login is waiting for a TOTP code')],
  ['totp invalid_code', totpAnswer(err({ code: 'invalid_code' }), cookies), wire(401, 'totp_invalid', 'Invalid TOTP code')],
  [
    'logout cross_site_request',
    logoutAnswer(err({ code: 'cross_site_request' }), cookies),
    wire(403, 'cross_site_request', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site'),
  ],
  [
    'logout store_unavailable',
    logoutAnswer(err({ code: 'store_unavailable' }), cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'account session_required',
    accountAnswer(err({ code: 'session_required' })),
    wire(401, 'session_required', 'Log in (completely, with the TOTP code if your account has one) to see your account'),
  ],
  ['account store_unavailable', accountAnswer(err({ code: 'store_unavailable' })), wire(503, 'store_unavailable', 'Service unavailable, try again later')],
  [
    'revoke cross_site_request',
    revokeSessionsAnswer(err({ code: 'cross_site_request' }), cookies),
    wire(403, 'cross_site_request', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site'),
  ],
  [
    'revoke session_required',
    revokeSessionsAnswer(err({ code: 'session_required' }), cookies),
    wire(401, 'session_required', 'Log in (completely, with the TOTP code if your account has one) to see your account'),
  ],
  [
    'revoke session_not_found',
    revokeSessionsAnswer(err({ code: 'session_not_found' }), cookies),
    wire(404, 'session_not_found', 'No such session of your account'),
  ],
  [
    'revoke store_unavailable',
    revokeSessionsAnswer(err({ code: 'store_unavailable' }), cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'totp set-up cross-site',
    TOTP_CROSS_SITE,
    wire(403, 'totp_cross_site', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON'),
  ],
  [
    'totp state not_logged_in',
    totpEnrolmentStateAnswer(err({ code: 'not_logged_in' })),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'totp state store_unavailable',
    totpEnrolmentStateAnswer(err({ code: 'store_unavailable' })),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'totp setup not_logged_in',
    totpSetupAnswer(err({ code: 'not_logged_in' }), noQr),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'totp setup totp_set_by_administrator',
    totpSetupAnswer(err({ code: 'totp_set_by_administrator' }), noQr),
    wire(409, 'totp_set_by_administrator', 'Your TOTP code is set by your administrator and cannot be changed here'),
  ],
  [
    'totp setup totp_needs_password',
    totpSetupAnswer(err({ code: 'totp_needs_password' }), noQr),
    wire(409, 'totp_needs_password', 'A TOTP code is confirmed with your password, and this account signs in with passkeys only'),
  ],
  [
    'totp setup totp_already_enrolled',
    totpSetupAnswer(err({ code: 'totp_already_enrolled' }), noQr),
    wire(409, 'totp_already_enrolled', 'This account has a TOTP code already; remove it first'),
  ],
  [
    'totp setup store_unavailable',
    totpSetupAnswer(err({ code: 'store_unavailable' }), noQr),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'totp change not_logged_in',
    totpChangeAnswer(err({ code: 'not_logged_in' }), 'totp_enrolled', cookies),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'totp change totp_set_by_administrator',
    totpChangeAnswer(err({ code: 'totp_set_by_administrator' }), 'totp_enrolled', cookies),
    wire(409, 'totp_set_by_administrator', 'Your TOTP code is set by your administrator and cannot be changed here'),
  ],
  [
    'totp change totp_already_enrolled',
    totpChangeAnswer(err({ code: 'totp_already_enrolled' }), 'totp_enrolled', cookies),
    wire(409, 'totp_already_enrolled', 'This account has a TOTP code already; remove it first'),
  ],
  [
    'totp change totp_not_enrolled',
    totpChangeAnswer(err({ code: 'totp_not_enrolled' }), 'totp_removed', cookies),
    wire(409, 'totp_not_enrolled', 'This account has no TOTP code it set up itself'),
  ],
  [
    'totp change enrolment_invalid',
    totpChangeAnswer(err({ code: 'enrolment_invalid' }), 'totp_enrolled', cookies),
    wire(400, 'enrolment_invalid', 'This TOTP set-up expired or belongs to another session; start again'),
  ],
  [
    'totp change invalid_credentials',
    totpChangeAnswer(err({ code: 'invalid_credentials' }), 'totp_enrolled', cookies),
    wire(401, 'invalid_credentials', 'Unauthorized'),
  ],
  ['totp change invalid_code', totpChangeAnswer(err({ code: 'invalid_code' }), 'totp_removed', cookies), wire(401, 'totp_invalid', 'Invalid TOTP code')],
  ['totp change totp_replayed', totpChangeAnswer(err({ code: 'totp_replayed' }), 'totp_removed', cookies), wire(401, 'totp_invalid', 'Invalid TOTP code')],
  [
    'totp change account_locked',
    totpChangeAnswer(err({ code: 'account_locked', retryAfter: 30 }), 'totp_removed', cookies),
    wire(429, 'account_locked', 'Too many failed login attempts. Try again in 30 seconds', { fields: { retryAfter: 30 }, headers: [['retry-after', '30']] }),
  ],
  [
    'totp change store_unavailable',
    totpChangeAnswer(err({ code: 'store_unavailable' }), 'totp_removed', cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey registration options cross_site_request',
    registrationOptionsAnswer(err({ code: 'cross_site_request' }), cookies, 0),
    wire(403, 'passkey_cross_site', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON'),
  ],
  [
    'passkey registration options not_logged_in',
    registrationOptionsAnswer(err({ code: 'not_logged_in' }), cookies, 0),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'passkey registration options too_many_passkeys',
    registrationOptionsAnswer(err({ code: 'too_many_passkeys' }), cookies, 0),
    wire(409, 'too_many_passkeys', 'This account holds the most passkeys it may; remove one first'),
  ],
  [
    'passkey registration options store_unavailable',
    registrationOptionsAnswer(err({ code: 'store_unavailable' }), cookies, 0),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey registration cross_site_request',
    registrationAnswer(err({ code: 'cross_site_request' }), cookies),
    wire(403, 'passkey_cross_site', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON'),
  ],
  [
    'passkey registration not_logged_in',
    registrationAnswer(err({ code: 'not_logged_in' }), cookies),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'passkey registration invalid_name',
    registrationAnswer(err({ code: 'invalid_name' }), cookies),
    wire(400, 'invalid_name', 'A passkey name is 1 to 64 characters of text'),
  ],
  [
    'passkey registration challenge_invalid',
    registrationAnswer(err({ code: 'challenge_invalid' }), cookies),
    wire(400, 'challenge_invalid', 'The passkey request expired or was already used; start again', { cookies: [cleared('portcullis-passkey-register')] }),
  ],
  [
    'passkey registration passkey_invalid',
    registrationAnswer(err({ code: 'passkey_invalid' }), cookies),
    wire(400, 'passkey_invalid', 'The passkey was not accepted', { cookies: [cleared('portcullis-passkey-register')] }),
  ],
  [
    'passkey registration passkey_not_added',
    registrationAnswer(err({ code: 'passkey_not_added' }), cookies),
    wire(409, 'passkey_not_added', 'This passkey is registered already', { cookies: [cleared('portcullis-passkey-register')] }),
  ],
  [
    'passkey registration store_unavailable',
    registrationAnswer(err({ code: 'store_unavailable' }), cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey login options not_pending',
    loginOptionsAnswer(err({ code: 'not_pending' }), 'second_factor', cookies, 0),
    wire(401, 'not_pending', 'No login is waiting for a TOTP code'),
  ],
  [
    'passkey login options store_unavailable',
    loginOptionsAnswer(err({ code: 'store_unavailable' }), 'login', cookies, 0),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey login challenge_invalid',
    passkeyLoginAnswer(err({ code: 'challenge_invalid' }), 'login', cookies),
    wire(400, 'challenge_invalid', 'The passkey request expired or was already used; start again', { cookies: [cleared('portcullis-passkey-login')] }),
  ],
  [
    'passkey second factor passkey_invalid',
    passkeyLoginAnswer(err({ code: 'passkey_invalid' }), 'second_factor', cookies),
    wire(401, 'passkey_invalid', 'The passkey was not accepted', { cookies: [cleared('portcullis-passkey-2fa')] }),
  ],
  [
    'passkey login account_locked',
    passkeyLoginAnswer(err({ code: 'account_locked', retryAfter: 7 }), 'login', cookies),
    wire(429, 'account_locked', 'Too many failed login attempts. Try again in 7 seconds', { fields: { retryAfter: 7 }, headers: [['retry-after', '7']] }),
  ],
  [
    'passkey login store_unavailable',
    passkeyLoginAnswer(err({ code: 'store_unavailable' }), 'login', cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey list not_logged_in',
    passkeyListAnswer(err({ code: 'not_logged_in' })),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'passkey list store_unavailable',
    passkeyListAnswer(err({ code: 'store_unavailable' })),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey rename cross_site_request',
    passkeyChangeAnswer(err({ code: 'cross_site_request' }), 'rename', cookies),
    wire(403, 'passkey_cross_site', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON'),
  ],
  [
    'passkey rename not_logged_in',
    passkeyChangeAnswer(err({ code: 'not_logged_in' }), 'rename', cookies),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'passkey rename invalid_name',
    passkeyChangeAnswer(err({ code: 'invalid_name' }), 'rename', cookies),
    wire(400, 'invalid_name', 'A passkey name is 1 to 64 characters of text'),
  ],
  [
    'passkey remove passkey_not_found',
    passkeyChangeAnswer(err({ code: 'passkey_not_found' }), 'remove', cookies),
    wire(404, 'passkey_not_found', 'No such passkey on this account'),
  ],
  [
    'passkey remove last_passkey',
    passkeyChangeAnswer(err({ code: 'last_passkey' }), 'remove', cookies),
    wire(409, 'last_passkey', 'This is the only passkey of an account without a password: add another one before removing it'),
  ],
  [
    'passkey remove store_unavailable',
    passkeyChangeAnswer(err({ code: 'store_unavailable' }), 'remove', cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey enrolment options cross_site_request',
    enrolmentOptionsAnswer(err({ code: 'cross_site_request' }), cookies, 0),
    wire(403, 'passkey_cross_site', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON'),
  ],
  [
    'passkey enrolment options invalid_link',
    enrolmentOptionsAnswer(err({ code: 'invalid_link' }), cookies, 0),
    wire(400, 'enrolment_link_invalid', 'This link is not valid: it was used already, has expired or is mistyped. Ask your administrator for a new one'),
  ],
  [
    'passkey enrolment options too_many_passkeys',
    enrolmentOptionsAnswer(err({ code: 'too_many_passkeys' }), cookies, 0),
    wire(409, 'too_many_passkeys', 'This account holds the most passkeys it may; remove one first'),
  ],
  [
    'passkey enrolment options store_unavailable',
    enrolmentOptionsAnswer(err({ code: 'store_unavailable' }), cookies, 0),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'passkey enrolment cross_site_request',
    enrolmentAnswer(err({ code: 'cross_site_request' }), cookies),
    wire(403, 'passkey_cross_site', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON'),
  ],
  [
    'passkey enrolment invalid_name',
    enrolmentAnswer(err({ code: 'invalid_name' }), cookies),
    wire(400, 'invalid_name', 'A passkey name is 1 to 64 characters of text'),
  ],
  [
    'passkey enrolment challenge_invalid',
    enrolmentAnswer(err({ code: 'challenge_invalid' }), cookies),
    wire(400, 'challenge_invalid', 'The passkey request expired or was already used; start again', { cookies: [cleared('portcullis-passkey-enrol')] }),
  ],
  [
    'passkey enrolment passkey_invalid',
    enrolmentAnswer(err({ code: 'passkey_invalid' }), cookies),
    wire(400, 'passkey_invalid', 'The passkey was not accepted', { cookies: [cleared('portcullis-passkey-enrol')] }),
  ],
  [
    'passkey enrolment passkey_not_added',
    enrolmentAnswer(err({ code: 'passkey_not_added' }), cookies),
    wire(409, 'passkey_not_added', 'This passkey is registered already', { cookies: [cleared('portcullis-passkey-enrol')] }),
  ],
  [
    'passkey enrolment store_unavailable',
    enrolmentAnswer(err({ code: 'store_unavailable' }), cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'second factor cross_site_request',
    secondFactorChoiceAnswer(err({ code: 'cross_site_request' }), cookies),
    wire(403, 'passkey_cross_site', 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON'),
  ],
  [
    'second factor not_logged_in',
    secondFactorChoiceAnswer(err({ code: 'not_logged_in' }), cookies),
    wire(401, 'not_logged_in', 'Log in first (with a full login, not a pending one)'),
  ],
  [
    'second factor invalid_choice',
    secondFactorChoiceAnswer(err({ code: 'invalid_choice' }), cookies),
    wire(400, 'invalid_fields', 'Invalid or missing fields: passkey', { fields: { fields: ['passkey'] } }),
  ],
  [
    'second factor not_applicable',
    secondFactorChoiceAnswer(err({ code: 'not_applicable' }), cookies),
    wire(409, 'second_factor_not_applicable', 'This account has no choice to make here (no password, or every account must show its passkey)'),
  ],
  ['second factor no_passkey', secondFactorChoiceAnswer(err({ code: 'no_passkey' }), cookies), wire(409, 'no_passkey', 'Add a passkey first')],
  [
    'second factor reauthentication_required',
    secondFactorChoiceAnswer(err({ code: 'reauthentication_required', method: 'password' }), cookies),
    wire(403, 'reauthentication_required', 'Confirm it is you: send your password with this change (an account without one: a passkey)', {
      fields: { method: 'password' },
    }),
  ],
  [
    'second factor invalid_credentials',
    secondFactorChoiceAnswer(err({ code: 'invalid_credentials' }), cookies),
    wire(401, 'invalid_credentials', 'Unauthorized'),
  ],
  [
    'second factor store_unavailable',
    secondFactorChoiceAnswer(err({ code: 'store_unavailable' }), cookies),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'handoff issue unknown_domain',
    handoffIssueRefused({ code: 'unknown_domain' }),
    wire(400, 'handoff_unknown_domain', 'This gateway hands logins to none such domain'),
  ],
  [
    'handoff issue invalid_redirect',
    handoffIssueRefused({ code: 'invalid_redirect' }),
    wire(400, 'handoff_invalid_redirect', 'The hand-off target is not a web address inside that domain'),
  ],
  [
    'handoff issue invalid_state',
    handoffIssueRefused({ code: 'invalid_state' }),
    wire(400, 'handoff_invalid_state', 'The hand-off did not start from a gateway of this login'),
  ],
  [
    'handoff issue store_unavailable',
    handoffIssueRefused({ code: 'store_unavailable' }),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
  [
    'handoff redeem invalid_code',
    handoffRedeemRefused({ code: 'invalid_code' }),
    wire(400, 'handoff_invalid_code', 'This sign-in link is no longer valid; open the application again', { headers: [['referrer-policy', 'no-referrer']] }),
  ],
  [
    'handoff redeem store_unavailable',
    handoffRedeemRefused({ code: 'store_unavailable' }),
    wire(503, 'store_unavailable', 'Service unavailable, try again later'),
  ],
];

describe('the refusals of the account, passkey, TOTP set-up and hand-off routes', () => {
  it.each(REFUSALS)('%s keeps its status, code, message, headers and cookies', (_label, answer, expected) => {
    expect(wireOf(answer)).toEqual(expected);
  });

  it.each(REFUSALS)('%s has the same body on the raw path as through Koa', (_label, answer) => {
    expect(bodyOf(answer).toString()).toBe(JSON.stringify(envelopeOf(answer)));
  });

  it('a passkey login and an enrolment clear the ceremony and set the session cookie for the session’s own lifetime', () => {
    const session = { issuedAt: 1_000_000, expiresAt: 1_000_000 + 7_200_000, totpPending: false } as Session;
    const passkey = { id: 'pk1', name: 'Laptop', createdAt: 0, lastUsedAt: null, transports: ['internal'] } as unknown as Passkey;
    const sessionCookie = 'portcullis-session=sealed; Path=/; Max-Age=7200; Domain=example.com; HttpOnly; SameSite=Lax; Secure';
    expect(wireOf(passkeyLoginAnswer(ok({ session, token: 'sealed' }), 'second_factor', cookies))).toEqual(
      wire(200, 'logged_in', 'Logged in', { fields: { totpPending: 'false' }, cookies: [cleared('portcullis-passkey-2fa'), sessionCookie] }),
    );
    const passkeyView = { id: 'pk1', name: 'Laptop', createdAt: '1970-01-01T00:00:00.000Z', lastUsedAt: null, transports: ['internal'] };
    expect(wireOf(enrolmentAnswer(ok({ passkey, session, token: 'sealed' }), cookies))).toEqual(
      wire(200, 'passkey_enrolled', 'Passkey added; you are signed in', {
        fields: { passkey: passkeyView },
        cookies: [cleared('portcullis-passkey-enrol'), sessionCookie],
      }),
    );
  });
});
