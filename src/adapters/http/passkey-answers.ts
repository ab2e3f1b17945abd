import type { ChangePasskeyError } from '../../application/passkeys/change-passkey';
import type { FinishPasskeyEnrolmentError, FinishPasskeyEnrolmentOutput } from '../../application/passkeys/finish-passkey-enrolment';
import type { StartPasskeyEnrolmentError, StartPasskeyEnrolmentOutput } from '../../application/passkeys/start-passkey-enrolment';
import type { FinishPasskeyLoginError, FinishPasskeyLoginOutput } from '../../application/passkeys/finish-passkey-login';
import type { FinishPasskeyRegistrationError, FinishPasskeyRegistrationOutput } from '../../application/passkeys/finish-passkey-registration';
import type { ChoosePasskeySecondFactorError } from '../../application/passkeys/choose-passkey-second-factor';
import type { ListPasskeysError, ListPasskeysOutput } from '../../application/passkeys/list-passkeys';
import type { StartPasskeyLoginError, StartPasskeyLoginOutput } from '../../application/passkeys/start-passkey-login';
import type { StartPasskeyRegistrationError, StartPasskeyRegistrationOutput } from '../../application/passkeys/start-passkey-registration';
import type { StartPasskeyReauthenticationError, StartPasskeyReauthenticationOutput } from '../../application/passkeys/start-passkey-reauthentication';
import type { ReauthenticationError } from '../../application/passkeys/reauthentication';
import type { Passkey } from '../../domain/passkey';
import type { Result } from '../../domain/result';
import { answer, fixed, type Answer } from './answer';
import { INVALID_CREDENTIALS, invalidFields, locked, NOT_LOGGED_IN, NOT_PENDING, sessionCookie, STORE_UNAVAILABLE, unmapped } from './answers';
import { clearCookie, setCookie, type CookieSettings } from './cookies';

// One pure function per passkey use case, from its result to an answer (see answers.ts).

/** The host-only cookie that carries one sealed ceremony, per purpose, so a login and a registration never clobber each other. */
export const PASSKEY_COOKIES = {
  register: 'portcullis-passkey-register',
  login: 'portcullis-passkey-login',
  second_factor: 'portcullis-passkey-2fa',
  enrol: 'portcullis-passkey-enrol',
  reauthenticate: 'portcullis-passkey-reauth',
} as const;

export const PASSKEY_CROSS_SITE = fixed(403, 'passkey_cross_site');
const INVALID_NAME = fixed(400, 'invalid_name');
const TOO_MANY_PASSKEYS = fixed(409, 'too_many_passkeys');

/** What the account page shows of a passkey: never its public key. */
export function passkeyView(p: Passkey): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    createdAt: new Date(p.createdAt).toISOString(),
    lastUsedAt: p.lastUsedAt === null ? null : new Date(p.lastUsedAt).toISOString(),
    transports: p.transports,
  };
}

/** The options a browser's WebAuthn call takes, with the sealed ceremony in the cookie named for its purpose. */
function ceremonyOptions(
  cookieName: string,
  started: { readonly options: unknown; readonly challengeToken: string; readonly expiresAt: number },
  now: number,
  cookies: CookieSettings,
): Answer {
  const { options, challengeToken, expiresAt } = started;
  return answer(200, 'passkey_options', [], {
    fields: { options },
    // Host-only: only the gateway reads it, never a protected app on the cookie domain.
    cookies: [setCookie(cookieName, challengeToken, Math.max(1, (expiresAt - now) / 1000), cookies, { hostOnly: true })],
  });
}

/** The ceremony's cookie, cleared: a finished ceremony is spent whatever its outcome. */
function spentCeremony(purpose: keyof typeof PASSKEY_COOKIES, cookies: CookieSettings): string {
  return clearCookie(PASSKEY_COOKIES[purpose], cookies, { hostOnly: true });
}

/** A finished registration refused, for an account's new passkey and an enrolment link's first alike: the ceremony's cookie goes. */
function registrationRefused(code: 'challenge_invalid' | 'passkey_invalid' | 'passkey_not_added', spent: string): Answer {
  return answer(code === 'passkey_not_added' ? 409 : 400, code, [], { cookies: [spent] });
}

/**
 * A change that asks the person to prove again who they are, refused for that proof (issue 29):
 * 403 `reauthentication_required` names what to ask for (`password`, or a `passkey` for an
 * account without one); a wrong password or passkey answers as at a login. A passkey's
 * re-authentication ceremony is spent whatever the outcome.
 */
export function reauthenticationRefused(error: ReauthenticationError, cookies: CookieSettings): Answer {
  const spent = [spentCeremony('reauthenticate', cookies)];
  switch (error.code) {
    case 'reauthentication_required':
      return answer(403, 'reauthentication_required', [], { fields: { method: error.method } });
    case 'invalid_credentials':
      return INVALID_CREDENTIALS;
    case 'passkey_invalid':
      return answer(401, 'passkey_invalid', [], { cookies: spent });
    case 'challenge_invalid':
      return answer(400, 'challenge_invalid', [], { cookies: spent });
    case 'account_locked':
      return locked(error.retryAfter);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('re-authentication', error);
  }
}

/** A change made after a passkey's re-authentication: its ceremony's cookie is spent too. */
function withSpentReauthentication(done: Answer, cookies: CookieSettings): Answer {
  return { ...done, cookies: [...(done.cookies ?? []), spentCeremony('reauthenticate', cookies)] };
}

/** `POST /api/passkeys/login/options` with `purpose: reauthenticate`: a passkey-only account's ceremony before a passkey change. */
export function reauthenticationOptionsAnswer(
  result: Result<StartPasskeyReauthenticationOutput, StartPasskeyReauthenticationError>,
  cookies: CookieSettings,
  now: number,
): Answer {
  if (result.ok) return ceremonyOptions(PASSKEY_COOKIES.reauthenticate, result.value, now, cookies);
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return PASSKEY_CROSS_SITE;
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'no_passkey':
      return answer(409, 'no_passkey', []);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('passkey re-authentication options', error);
  }
}

export function registrationOptionsAnswer(
  result: Result<StartPasskeyRegistrationOutput, StartPasskeyRegistrationError>,
  cookies: CookieSettings,
  now: number,
): Answer {
  if (result.ok) return withSpentReauthentication(ceremonyOptions(PASSKEY_COOKIES.register, result.value, now, cookies), cookies);
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return PASSKEY_CROSS_SITE;
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'too_many_passkeys':
      return TOO_MANY_PASSKEYS;
    default:
      return reauthenticationRefused(error, cookies);
  }
}

export function registrationAnswer(result: Result<FinishPasskeyRegistrationOutput, FinishPasskeyRegistrationError>, cookies: CookieSettings): Answer {
  const spent = spentCeremony('register', cookies);
  if (result.ok) return answer(200, 'passkey_added', [], { fields: { passkey: passkeyView(result.value.passkey) }, cookies: [spent] });
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return PASSKEY_CROSS_SITE;
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'invalid_name':
      return INVALID_NAME;
    case 'challenge_invalid':
    case 'passkey_invalid':
    case 'passkey_not_added':
      return registrationRefused(error.code, spent);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('passkey registration', error);
  }
}

export function loginOptionsAnswer(
  result: Result<StartPasskeyLoginOutput, StartPasskeyLoginError>,
  purpose: 'login' | 'second_factor',
  cookies: CookieSettings,
  now: number,
): Answer {
  if (result.ok) return ceremonyOptions(PASSKEY_COOKIES[purpose], result.value, now, cookies);
  const error = result.error;
  switch (error.code) {
    case 'not_pending':
      return NOT_PENDING;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('passkey login options', error);
  }
}

export function passkeyLoginAnswer(
  result: Result<FinishPasskeyLoginOutput, FinishPasskeyLoginError>,
  purpose: 'login' | 'second_factor',
  cookies: CookieSettings,
): Answer {
  const spent = spentCeremony(purpose, cookies);
  if (result.ok) return answer(200, 'logged_in', [], { fields: { totpPending: 'false' }, cookies: [spent, sessionCookie(result.value, cookies)] });
  const error = result.error;
  switch (error.code) {
    case 'challenge_invalid':
      return answer(400, 'challenge_invalid', [], { cookies: [spent] });
    case 'passkey_invalid':
      return answer(401, 'passkey_invalid', [], { cookies: [spent] });
    case 'account_locked':
      return locked(error.retryAfter);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('passkey login', error);
  }
}

export function passkeyListAnswer(result: Result<ListPasskeysOutput, ListPasskeysError>): Answer {
  if (result.ok)
    return answer(200, 'passkeys', [], {
      fields: {
        passkeys: result.value.passkeys.map(passkeyView),
        secondFactor: result.value.secondFactor,
        reauthentication: result.value.reauthentication,
      },
    });
  const error = result.error;
  switch (error.code) {
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('passkey list', error);
  }
}

export function passkeyChangeAnswer(result: Result<unknown, ChangePasskeyError>, kind: 'rename' | 'remove', cookies: CookieSettings): Answer {
  if (result.ok) return kind === 'rename' ? answer(200, 'passkey_renamed', []) : withSpentReauthentication(answer(200, 'passkey_removed', []), cookies);
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return PASSKEY_CROSS_SITE;
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'invalid_name':
      return INVALID_NAME;
    case 'passkey_not_found':
      return answer(404, 'passkey_not_found', []);
    case 'last_passkey':
      return answer(409, 'last_passkey', []);
    default:
      return reauthenticationRefused(error, cookies);
  }
}

/** `POST /api/passkeys/enrolment/options`: the registration options for a redeemed enrolment link (issue 16). */
export function enrolmentOptionsAnswer(result: Result<StartPasskeyEnrolmentOutput, StartPasskeyEnrolmentError>, cookies: CookieSettings, now: number): Answer {
  if (result.ok) {
    const started = ceremonyOptions(PASSKEY_COOKIES.enrol, result.value, now, cookies);
    return { ...started, fields: { ...started.fields, username: result.value.username } };
  }
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return PASSKEY_CROSS_SITE;
    case 'invalid_link':
      return answer(400, 'enrolment_link_invalid', []);
    case 'too_many_passkeys':
      return TOO_MANY_PASSKEYS;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('passkey enrolment options', error);
  }
}

/** `POST /api/passkeys/enrolment`: the first passkey stored, and the person logged in. */
export function enrolmentAnswer(result: Result<FinishPasskeyEnrolmentOutput, FinishPasskeyEnrolmentError>, cookies: CookieSettings): Answer {
  const spent = spentCeremony('enrol', cookies);
  if (result.ok) {
    return answer(200, 'passkey_enrolled', [], {
      fields: { passkey: passkeyView(result.value.passkey) },
      cookies: [spent, sessionCookie(result.value, cookies)],
    });
  }
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return PASSKEY_CROSS_SITE;
    case 'invalid_name':
      return INVALID_NAME;
    case 'challenge_invalid':
    case 'passkey_invalid':
    case 'passkey_not_added':
      return registrationRefused(error.code, spent);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('passkey enrolment', error);
  }
}

/** `POST /api/passkeys/second-factor`: the account's own choice of a passkey after its password. */
export function secondFactorChoiceAnswer(result: Result<{ readonly chosen: boolean }, ChoosePasskeySecondFactorError>, cookies: CookieSettings): Answer {
  if (result.ok) return answer(200, 'second_factor_chosen', [], { fields: { secondFactor: result.value.chosen ? 'chosen' : 'off' } });
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return PASSKEY_CROSS_SITE;
    case 'not_logged_in':
      return NOT_LOGGED_IN;
    case 'invalid_choice':
      return invalidFields(['passkey']);
    case 'not_applicable':
      return answer(409, 'second_factor_not_applicable', []);
    case 'no_passkey':
      return answer(409, 'no_passkey', []);
    default:
      return reauthenticationRefused(error, cookies);
  }
}
