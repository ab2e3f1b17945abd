/**
 * Every message the HTTP API answers with, by its stable `code` (the `code` field of the
 * envelope). Clients switch on the code; the message is for people and may be reworded. The login
 * UI (ui/src) imports the code types from here, so the file stays free of imports: it must
 * type-check under the UI's compiler settings as well.
 */

/** How forwarded headers can fail to name one well-formed request. */
export type ForwardedProblem = 'missing' | 'malformed' | 'repeated';

const FORWARDED_PROBLEMS: Readonly<Record<ForwardedProblem, string>> = {
  missing: 'Missing forwarded header',
  malformed: 'Malformed forwarded header',
  repeated: 'Repeated forwarded header',
};

/** Why a new password was refused (the use case's WeakPasswordCause, repeated here: this file imports nothing). */
export type WeakPasswordReason = 'too_short' | 'too_long' | 'same_as_username' | 'same_as_current' | 'common' | 'directory_policy';

const WEAK_PASSWORD_REASONS: Readonly<Record<WeakPasswordReason, string>> = {
  too_short: 'The new password is too short: use at least 12 characters',
  too_long: 'The new password is too long: use at most 72 bytes (72 plain letters, fewer with accents or other scripts)',
  same_as_username: 'The new password must not be your username',
  same_as_current: 'The new password must differ from the current one',
  common: 'The new password is one of the most common passwords: choose another',
  directory_policy: "The directory's password policy refused the new password",
};

/** The passkey and TOTP set-up routes refuse a cross-site request in the same words (each under its own code). */
const CROSS_SITE_JSON_ONLY = 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site as JSON';

export const MESSAGES = {
  // Success
  ok: () => 'OK',
  // The admin console (issue 36)
  users: () => 'People',
  sessions: () => 'Sessions',
  decision: () => 'Decision',
  audit: () => 'Audit trail',
  admin_required: () => 'Only an administrator may do this',
  admin_step_up_required: () => 'Confirm who you are again with your second factor to use the admin console',
  live_session_not_found: () => 'No live session has that id',
  user_created: () => 'Person added',
  user_updated: () => 'Person changed',
  user_disabled: () => 'Person disabled; their sessions have ended',
  user_enabled: () => 'Person enabled',
  user_deleted: () => 'Person deleted; their sessions have ended',
  user_exists: () => 'A person with that username exists already',
  user_not_found: () => 'No person has that username',
  users_file_changed: () => 'The users file changed since this page read it; reload the list and try again',
  read_only_source: () => 'This account comes from USERS or the directory (LDAP) and cannot be changed here',
  last_admin: () => 'This would take your own administrator access (or leave no administrator)',
  unsupported_format: (field: string) => `The users file's form cannot hold ${field} (the line form has only usernames and passwords)`,
  users_file_unwritable: () => 'The users file could not be written',
  invalid_url: () => 'An http(s) URL the gateway would accept from a proxy is needed',
  apps: () => 'Applications',
  oidc_clients: () => 'OpenID Connect clients',
  // Issue 36: invitations, password resets, and a person's second factors removed from the console.
  invitation: () => 'Invitation made: give the person this link',
  not_passkey_only: () => 'This person has a password: a password reset, or they add passkeys on their account page',
  passkeys_off: () => 'Passkeys are off (PASSKEYS)',
  passkeys_removed: (count: number) => (count === 1 ? 'Removed 1 passkey' : `Removed ${count} passkeys`),
  password_set: () => 'Password set: log in with it',
  invitation_invalid: () => 'This link is not valid: it was used already, has expired or is mistyped. Ask your administrator for a new one',
  ready: (degraded: readonly string[] = []) => (degraded.length === 0 ? 'Ready' : `Ready for forward auth; degraded: ${degraded.join(', ')} unavailable`),
  healthy: () => 'Healthy',
  authenticated: () => 'Authenticated',
  logged_in: () => 'Logged in',
  logged_out: () => 'Logged out',
  totp_pending: () => 'TOTP code required',
  redirecting: () => 'Redirecting',
  sessions_revoked: (count: number) => (count === 1 ? 'Signed out 1 session' : `Signed out ${count} sessions`),
  app_signed_out: () => 'Signed out of the app',
  // Issue 35: an upstream provider's back-channel logout.
  invalid_logout_token: () => 'The logout token is not valid here',
  // Who the caller is
  unauthorized: () => 'Unauthorized',
  login_required: () => 'Redirecting to login',
  step_up_required: () => 'This page asks you to confirm who you are again',
  step_up: () => 'Confirm who you are to continue',
  stepped_up: () => 'Confirmed; you may continue',
  invalid_step_up: () => 'This confirmation request expired or belongs to another session; open the page again',
  step_up_method: () => 'This way of confirming is not accepted here',
  forbidden: () => 'Forbidden',
  token_scope: () => 'Forbidden: the access token is not for this application',
  invalid_token: () => 'Unauthorized: the access token is unknown, expired or revoked',
  invalid_credentials: () => 'Unauthorized',
  account_locked: (retryAfter: number) => `Too many failed login attempts. Try again in ${retryAfter} seconds`,
  not_pending: () => 'No login is waiting for a TOTP code',
  totp_invalid: () => 'Invalid TOTP code',
  session_required: () => 'Log in (completely, with the TOTP code if your account has one) to see your account',
  session_not_found: () => 'No such session of your account',
  app_not_found: () => 'No app holds a sign-in of your account under that id',
  cross_site_request: () => 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site',
  // Passkeys
  passkey_options: () => 'Passkey options',
  passkey_added: () => 'Passkey added',
  passkeys: () => 'Passkeys',
  passkey_renamed: () => 'Passkey renamed',
  passkey_removed: () => 'Passkey removed',
  not_logged_in: () => 'Log in first (with a full login, not a pending one)',
  passkey_cross_site: () => CROSS_SITE_JSON_ONLY,
  too_many_passkeys: () => 'This account holds the most passkeys it may; remove one first',
  invalid_name: () => 'A passkey name is 1 to 64 characters of text',
  challenge_invalid: () => 'The passkey request expired or was already used; start again',
  passkey_invalid: () => 'The passkey was not accepted',
  passkey_not_added: () => 'This passkey is registered already',
  passkey_not_found: () => 'No such passkey on this account',
  passkey_enrolled: () => 'Passkey added; you are signed in',
  second_factor_chosen: () => 'Second factor saved: it applies from your next login',
  second_factor_not_applicable: () => 'This account has no choice to make here (no password, or every account must show its passkey)',
  no_passkey: () => 'Add a passkey first',
  reauthentication_required: () => 'Confirm it is you: send your password with this change (an account without one: a passkey)',
  last_passkey: () => 'This is the only passkey of an account without a password: add another one before removing it',
  enrolment_link_invalid: () => 'This link is not valid: it was used already, has expired or is mistyped. Ask your administrator for a new one',
  // Access tokens (issue 32)
  tokens: () => 'Access tokens',
  token_created: () => 'Token created: copy it now, it is not shown again',
  token_revoked: () => 'Token revoked',
  token_not_found: () => 'No such live token of your account',
  too_many_tokens: () => 'This account holds the most live tokens it may; revoke one first',
  local_account_required: () => 'Access tokens belong to accounts of this gateway; an account of an OAuth provider cannot hold one',
  // Changing one's own password on the account page (issue 36)
  password_change: () => 'Password change',
  password_changed: () => 'Password changed; your other sessions were signed out',
  weak_password: (reason: WeakPasswordReason) => WEAK_PASSWORD_REASONS[reason],
  // A TOTP code set up on the account page (issue 16)
  totp_enrolment: () => 'TOTP code',
  totp_setup: () => 'Scan the QR code, then confirm with the first code your app shows',
  totp_enrolled: () => 'TOTP code set up; your other sessions were signed out',
  totp_removed: () => 'TOTP code removed; your other sessions were signed out',
  totp_set_by_administrator: () => 'Your TOTP code is set by your administrator and cannot be changed here',
  totp_needs_password: () => 'A TOTP code is confirmed with your password, and this account signs in with passkeys only',
  totp_already_enrolled: () => 'This account has a TOTP code already; remove it first',
  totp_not_enrolled: () => 'This account has no TOTP code it set up itself',
  enrolment_invalid: () => 'This TOTP set-up expired or belongs to another session; start again',
  totp_cross_site: () => CROSS_SITE_JSON_ONLY,
  // Forward auth
  unknown_proxy: () => 'Unknown proxy; use one of traefik, nginx, caddy',
  bad_forwarded_headers: (problem: ForwardedProblem, field: string) => `${FORWARDED_PROBLEMS[problem]} ${field}`,
  ambiguous_path: () => 'Ambiguous path',
  // OAuth
  unknown_provider: (configured: readonly string[] = []) =>
    configured.length === 0 ? 'Unknown OAuth provider; none is configured' : `Unknown OAuth provider; configured: ${configured.join(', ')}`,
  provider_not_configured: (provider?: string) =>
    provider === undefined ? 'This OAuth provider is not configured' : `OAuth provider ${provider} is not configured`,
  invalid_callback: () => 'The OAuth callback needs a code and a state',
  oauth_flow_missing: () => 'No OAuth login is in progress in this browser',
  oauth_state_mismatch: () => 'The OAuth state does not match a login of this browser',
  oauth_flow_expired: () => 'The OAuth login took too long; start again',
  oauth_flow_replayed: () => 'This OAuth login was already completed',
  oauth_issuer_mismatch: () => 'The OAuth callback came from another issuer than the login was sent to',
  oauth_issuer_missing: () => 'The OAuth callback lacks the iss parameter its issuer promises',
  provider_denied: () => 'The OAuth provider did not grant the login',
  provider_refused: () => 'The OAuth provider refused the login',
  email_missing: () => 'The OAuth provider vouches for no verified e-mail address',
  identity_invalid: () => 'The OAuth provider gave an e-mail address with characters that cannot be used here',
  not_whitelisted: () => 'This account may not log in here',
  provider_unavailable: () => 'The OAuth provider cannot be reached; try again later',
  provider_invalid_response: () => 'The OAuth provider gave an unexpected answer',
  // Hand-off between gateway domains (issue 17)
  handoff_unknown_domain: () => 'This gateway hands logins to none such domain',
  handoff_invalid_redirect: () => 'The hand-off target is not a web address inside that domain',
  handoff_invalid_state: () => 'The hand-off did not start from a gateway of this login',
  handoff_not_here: () => 'This address only answers on a secondary gateway URL of this login',
  handoff_invalid_code: () => 'This sign-in link is no longer valid; open the application again',
  // The request itself
  invalid_fields: (fields: readonly string[]) => `Invalid or missing fields: ${fields.join(', ')}`,
  malformed_json: () => 'Malformed JSON body',
  unsupported_media_type: () => 'Request body must be application/json',
  unsupported_encoding: () => 'Request body must not be compressed: Content-Encoding is not supported',
  body_too_large: () => 'Request body too large',
  several_session_cookies: () =>
    'Refused: this request carries more than one session cookie of this gateway. Another page of the domain may have set one; clear the cookies of this site and log in again',
  not_found: () => 'Not found',
  method_not_allowed: () => 'Method not allowed',
  // The gateway
  not_ready: (down: readonly string[]) => `Not ready: ${down.join(', ')} unavailable`,
  unhealthy: (down: readonly string[]) => `Unhealthy: ${down.join(', ')} unavailable`,
  store_unavailable: () => 'Service unavailable, try again later',
  internal_error: () => 'Internal server error',
} as const;

/** The codes of `GET /api/account/password` and `POST /api/account/password` (issue 36). */
export type PasswordChangeCode =
  | 'password_change'
  | 'password_changed'
  | 'invalid_fields'
  | 'weak_password'
  | 'invalid_credentials'
  | 'session_required'
  | 'cross_site_request'
  | 'read_only_source'
  | 'users_file_changed'
  | 'account_locked'
  | 'unsupported_media_type'
  | 'store_unavailable';

/** Every `code` an API answer can carry. */
export type AnswerCode = keyof typeof MESSAGES;

/** The codes of `POST /api/login`. */
export type LoginCode = 'logged_in' | 'invalid_fields' | 'invalid_credentials' | 'account_locked' | 'store_unavailable';

/** The codes of `POST /api/totp`; `not_pending` means the password step is over or timed out: log in again. */
export type TotpCode = 'logged_in' | 'invalid_fields' | 'not_pending' | 'totp_invalid' | 'account_locked' | 'store_unavailable';

/** The codes of `GET /api/step-up` (issue 33): what a step-up asks, or why it cannot be asked. */
export type DescribeStepUpCode = 'step_up' | 'invalid_fields' | 'invalid_step_up' | 'not_logged_in' | 'store_unavailable';

/** The codes of `POST /api/step-up` (issue 33). */
export type CompleteStepUpCode =
  | 'stepped_up'
  | 'invalid_fields'
  | 'invalid_step_up'
  | 'step_up_method'
  | 'invalid_credentials'
  | 'totp_invalid'
  | 'passkey_invalid'
  | 'challenge_invalid'
  | 'cross_site_request'
  | 'not_logged_in'
  | 'account_locked'
  | 'store_unavailable';

/** The codes of `POST /api/passkeys/login` (a passkey login, or a passkey as the second factor). */
export type PasskeyLoginCode = 'logged_in' | 'invalid_fields' | 'challenge_invalid' | 'passkey_invalid' | 'account_locked' | 'store_unavailable';

/** The codes of `POST /api/passkeys/login/options`. */
export type PasskeyOptionsCode = 'passkey_options' | 'not_pending' | 'store_unavailable';

/** The codes of `POST /api/passkeys/registration`. */
export type PasskeyRegistrationCode =
  | 'passkey_added'
  | 'invalid_fields'
  | 'invalid_name'
  | 'not_logged_in'
  | 'passkey_cross_site'
  | 'challenge_invalid'
  | 'passkey_invalid'
  | 'passkey_not_added'
  | 'store_unavailable';
/** The codes of `GET /api/account/totp`. */
export type TotpEnrolmentCode = 'totp_enrolment' | 'not_logged_in' | 'store_unavailable';

/** The codes of `POST /api/account/totp/setup`, `/confirm` and `/remove`. */
export type TotpEnrolmentChangeCode =
  | 'totp_setup'
  | 'totp_enrolled'
  | 'totp_removed'
  | 'invalid_fields'
  | 'not_logged_in'
  | 'totp_cross_site'
  | 'totp_set_by_administrator'
  | 'totp_needs_password'
  | 'totp_already_enrolled'
  | 'totp_not_enrolled'
  | 'enrolment_invalid'
  | 'invalid_credentials'
  | 'totp_invalid'
  | 'account_locked'
  | 'store_unavailable'
  | 'unsupported_media_type';

/** The codes every `/api/admin/*` route may answer (issue 36). */
export type AdminCode =
  | 'users'
  | 'sessions'
  | 'sessions_revoked'
  | 'decision'
  | 'audit'
  | 'admin_required'
  | 'step_up_required'
  | 'live_session_not_found'
  | 'user_created'
  | 'user_updated'
  | 'user_disabled'
  | 'user_enabled'
  | 'user_deleted'
  | 'user_exists'
  | 'user_not_found'
  | 'users_file_changed'
  | 'read_only_source'
  | 'last_admin'
  | 'unsupported_format'
  | 'users_file_unwritable'
  | 'invalid_url'
  | 'apps'
  | 'oidc_clients'
  | 'token_revoked'
  | 'token_not_found'
  | 'invalid_fields'
  | 'cross_site_request'
  | 'store_unavailable'
  | 'unsupported_media_type';

/** The codes of the admin console's invitation and second-factor routes (issue 36). */
export type AdminInvitationCode =
  | AdminCode
  | 'invitation'
  | 'user_not_found'
  | 'read_only_source'
  | 'not_passkey_only'
  | 'passkeys_off'
  | 'last_admin'
  | 'totp_removed'
  | 'totp_set_by_administrator'
  | 'totp_not_enrolled'
  | 'passkeys_removed'
  | 'passkey_not_found';

/** The codes of `POST /api/invitations/password` (issue 36). */
export type SetPasswordCode =
  'password_set' | 'weak_password' | 'invitation_invalid' | 'invalid_fields' | 'cross_site_request' | 'store_unavailable' | 'unsupported_media_type';

/** The codes of `GET /api/account`. */
export type AccountCode = 'ok' | 'session_required' | 'store_unavailable';

/** The codes of `POST /api/account/sessions/revoke`. */
export type RevokeSessionsCode =
  'sessions_revoked' | 'invalid_fields' | 'cross_site_request' | 'session_required' | 'session_not_found' | 'store_unavailable' | 'unsupported_media_type';

/** The codes of `POST /api/account/apps/revoke`. */
export type SignOutOfAppCode =
  'app_signed_out' | 'invalid_fields' | 'cross_site_request' | 'session_required' | 'app_not_found' | 'store_unavailable' | 'unsupported_media_type';

/** The codes of `GET /api/account/tokens`. */
export type ListTokensCode = 'tokens' | 'session_required' | 'local_account_required' | 'store_unavailable';

/** The codes of `POST /api/account/tokens`. */
export type CreateTokenCode =
  | 'token_created'
  | 'invalid_fields'
  | 'cross_site_request'
  | 'session_required'
  | 'local_account_required'
  | 'too_many_tokens'
  | 'store_unavailable'
  | 'unsupported_media_type';

/** The codes of `POST /api/account/tokens/revoke`. */
export type RevokeTokenCode =
  | 'token_revoked'
  | 'invalid_fields'
  | 'cross_site_request'
  | 'session_required'
  | 'local_account_required'
  | 'token_not_found'
  | 'store_unavailable'
  | 'unsupported_media_type';

/** The codes of `GET /api/oauth/callback/:provider`, also sent to the UI's error pages as `reason`. */
export type OAuthCallbackCode =
  | 'unknown_provider'
  | 'provider_not_configured'
  | 'invalid_callback'
  | 'oauth_flow_missing'
  | 'oauth_state_mismatch'
  | 'oauth_flow_expired'
  | 'oauth_flow_replayed'
  | 'oauth_issuer_mismatch'
  | 'oauth_issuer_missing'
  | 'provider_denied'
  | 'provider_refused'
  | 'email_missing'
  | 'identity_invalid'
  | 'not_whitelisted'
  | 'provider_unavailable'
  | 'provider_invalid_response'
  | 'store_unavailable';
