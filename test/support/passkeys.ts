import { postJson } from './http';
import { cookieFrom, type RunningGateway } from './server';
import type { SoftAuthenticator } from './soft-authenticator';

/** The origin a passkey is bound to in the in-process gateways: {@link startGateway}'s APP_URL. */
export const PASSKEY_ORIGIN = 'https://auth.example.test';

/** What a browser sends from the gateway's own page: the passkey routes refuse a cross-site request. */
export const SAME_SITE = { 'sec-fetch-site': 'same-origin' };

/** The cookies that carry a passkey ceremony's challenge from its options to its answer: adding a passkey, ... */
export const REGISTER_COOKIE = 'portcullis-passkey-register';
/** ... a passkey login, ... */
export const LOGIN_COOKIE = 'portcullis-passkey-login';
/** ... a passkey as the second step after the password, ... */
export const SECOND_FACTOR_COOKIE = 'portcullis-passkey-2fa';
/** ... a passkey-only account proving itself again before a passkey change, ... */
export const REAUTHENTICATE_COOKIE = 'portcullis-passkey-reauth';
/** ... and a passkey-only account's first passkey from an enrolment link. */
export const ENROL_COOKIE = 'portcullis-passkey-enrol';

/**
 * Adds a passkey to the account of `session` (a Cookie header) as the account page does: the
 * registration options with the account's `password` asked again (their answer must be 200), the authenticator's answer to them, and the
 * registration with the ceremony's cookie. Resolves the registration's answer.
 */
export async function registerPasskey(
  gw: RunningGateway,
  session: string,
  authenticator: SoftAuthenticator,
  name: string,
  password: string,
): Promise<Response> {
  const start = await postJson(gw, '/api/passkeys/registration/options', { password }, { cookie: session, ...SAME_SITE });
  expect(start.status).toBe(200);
  const { options } = (await start.json()) as { options: Record<string, unknown> };
  const challenge = cookieFrom(start, REGISTER_COOKIE)?.value;
  return postJson(
    gw,
    '/api/passkeys/registration',
    { name, response: authenticator.register(options) },
    { cookie: challenge === undefined ? session : `${session}; ${REGISTER_COOKIE}=${challenge}`, ...SAME_SITE },
  );
}
