import type { AuthorizeProxyRequestError } from '../../application/forward-auth/authorize-proxy-request';
import type { CheckReadinessOutput, CheckReadinessError } from '../../application/readiness/check-readiness';
import type { CompleteOAuthError, CompleteOAuthOutput } from '../../application/oauth/complete-oauth';
import type { GetCurrentUserOutput } from '../../application/sessions/get-current-user';
import type { LoginError, LoginOutput } from '../../application/password/login';
import type { LogoutError } from '../../application/sessions/logout';
import type { StartOAuthError, StartOAuthOutput } from '../../application/oauth/start-oauth';
import type { VerifyTotpError, VerifyTotpOutput } from '../../application/totp/verify-totp';
import type { Result } from '../../domain/result';
import type { ProxyKind } from '../../domain/forwarded-request';
import { acrOf, amrOf, lastProven, SESSION_METHODS, type ProvenMethods } from '../../domain/login-methods';
import { answer, fixed, withHeaders, type Answer, type HeaderPair } from './answer';
import { clearCookie, OAUTH_FLOW_COOKIE_PREFIX, OAUTH_REDIRECT_COOKIE_PREFIX, SESSION_COOKIE, setCookie, type CookieSettings } from './cookies';
import type { OAuthCallbackCode } from './messages';
import { FLOW_ID_PATTERN } from '../../domain/oauth-flow';
import { PREFERENCE_APPLIED } from './prefer';

// One pure function per use case from its result to an answer; every message comes from the
// table in messages.ts. Each maps its error codes in an exhaustive switch: a new code is a compile
// error here until it has an answer.

/** The `default` of those switches: unreachable while every code is mapped (a new one fails to compile first). */
export function unmapped(what: string, value: never): never {
  throw new Error(`unmapped ${what} outcome ${String(value)}`);
}

export const OK = fixed(200, 'ok');
export const NOT_FOUND = fixed(404, 'not_found');
export const INTERNAL_ERROR = fixed(500, 'internal_error');
export const STORE_UNAVAILABLE = fixed(503, 'store_unavailable');
export const MALFORMED_JSON = fixed(400, 'malformed_json');
export const UNSUPPORTED_MEDIA_TYPE = fixed(415, 'unsupported_media_type');
export const UNSUPPORTED_ENCODING = fixed(415, 'unsupported_encoding');
export const BODY_TOO_LARGE = fixed(413, 'body_too_large');
/** More than one session cookie in one request (see readSoleCookie): refused on every route, forward auth included. */
export const SEVERAL_SESSION_COOKIES = fixed(400, 'several_session_cookies');

// Refusals that several endpoints give alike, built once here so each is the same bytes wherever
// it is answered (the route modules' own answers stay next to their mappings).
export const NOT_LOGGED_IN = fixed(401, 'not_logged_in');
export const SESSION_REQUIRED = fixed(401, 'session_required');
export const NOT_PENDING = fixed(401, 'not_pending');
export const INVALID_CREDENTIALS = fixed(401, 'invalid_credentials');
export const TOTP_INVALID = fixed(401, 'totp_invalid');
export const CROSS_SITE_REQUEST = fixed(403, 'cross_site_request');

export function methodNotAllowed(allowed: readonly string[]): Answer {
  return answer(405, 'method_not_allowed', [], { headers: [['allow', allowed.join(', ')]] });
}

export function invalidFields(fields: readonly string[]): Answer {
  return answer(400, 'invalid_fields', [fields], { fields: { fields } });
}

/** 429 for a locked account (a password, TOTP or passkey login alike). */
export function locked(retryAfter: number): Answer {
  // `retryAfter` in the body too, so a client never reads the wait out of the message.
  return answer(429, 'account_locked', [retryAfter], { fields: { retryAfter }, headers: [['retry-after', String(retryAfter)]] });
}

/** The session cookie for a token sealed just now: the session's own lifetime is the cookie's Max-Age. */
export function sessionCookie(
  created: { readonly session: { readonly issuedAt: number; readonly expiresAt: number }; readonly token: string },
  cookies: CookieSettings,
): string {
  return setCookie(SESSION_COOKIE, created.token, (created.session.expiresAt - created.session.issuedAt) / 1000, cookies);
}

/** `/api/ready`: can this replica answer forward auth? A shared store that is down is named in `degraded`, still 200. */
export function readinessAnswer(result: Result<CheckReadinessOutput, CheckReadinessError>): Answer {
  if (result.ok) {
    const { checks, degraded } = result.value;
    return degraded === undefined ? answer(200, 'ready', [], { fields: { checks } }) : answer(200, 'ready', [degraded], { fields: { checks, degraded } });
  }
  const error = result.error;
  switch (error.code) {
    case 'not_ready':
      return answer(503, 'not_ready', [error.down], { fields: { checks: error.checks, down: error.down } });
    default:
      return unmapped('readiness', error.code);
  }
}

/** `/api/health`: does every dependency answer? For monitoring and alerts, not for load balancers. */
export function healthAnswer(result: Result<CheckReadinessOutput, CheckReadinessError>): Answer {
  if (result.ok) return answer(200, 'healthy', [], { fields: { checks: result.value.checks } });
  const error = result.error;
  switch (error.code) {
    case 'not_ready':
      return answer(503, 'unhealthy', [error.down], { fields: { checks: error.checks, down: error.down } });
    default:
      return unmapped('health', error.code);
  }
}

export function loginAnswer(result: Result<LoginOutput, LoginError>, cookies: CookieSettings): Answer {
  if (result.ok) {
    return answer(200, 'logged_in', [], { fields: { totpPending: String(result.value.session.totpPending) }, cookies: [sessionCookie(result.value, cookies)] });
  }
  const error = result.error;
  switch (error.code) {
    case 'invalid_credentials':
      return INVALID_CREDENTIALS;
    case 'account_locked':
      return locked(error.retryAfter);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('login', error);
  }
}

export function totpAnswer(result: Result<VerifyTotpOutput, VerifyTotpError>, cookies: CookieSettings): Answer {
  if (result.ok) return answer(200, 'logged_in', [], { cookies: [sessionCookie(result.value, cookies)] });
  const error = result.error;
  switch (error.code) {
    case 'not_pending':
      return NOT_PENDING;
    // One answer for a wrong and a used code: the code is spent either way.
    case 'invalid_code':
    case 'totp_replayed':
      return TOTP_INVALID;
    case 'account_locked':
      return locked(error.retryAfter);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('totp', error);
  }
}

export function logoutAnswer(result: Result<unknown, LogoutError>, cookies: CookieSettings, frontchannel: readonly string[] = []): Answer {
  if (result.ok)
    return answer(200, 'logged_out', [], {
      cookies: [clearCookie(SESSION_COOKIE, cookies)],
      // Issue 35: the apps' front-channel logout pages, which the page loads in hidden frames.
      ...(frontchannel.length === 0 ? {} : { fields: { frontchannel: [...frontchannel] } }),
    });
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    // The cookie stays: clearing it would look like a logout while a copy of it still works.
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('logout', error);
  }
}

const LOGGED_OUT_USER = { isLoggedIn: false, username: '', name: '', email: '', provider: '', oauth: false, totpPending: 'false' };

/** What `/api/user` tells of a session's proofs (issue 33): each method's time, `amr`, `acr` and `authTime` (ms; null when nothing was proven). */
function provenFields(proven: ProvenMethods): Record<string, unknown> {
  const times: Record<string, number> = {};
  for (const m of SESSION_METHODS) {
    const at = proven[m];
    if (at !== undefined) times[m] = at;
  }
  return { proven: times, amr: amrOf(proven), acr: acrOf(proven), authTime: lastProven(proven) };
}

export function currentUserAnswer(user: GetCurrentUserOutput, cookies?: CookieSettings): Answer {
  if (user.state === 'logged_out') return answer(200, 'unauthorized', [], { fields: LOGGED_OUT_USER });
  const { identity } = user;
  const pending = user.state === 'totp_pending';
  return answer(200, pending ? 'totp_pending' : 'authenticated', [], {
    fields: {
      isLoggedIn: !pending,
      username: identity.username,
      name: identity.name,
      email: identity.email,
      provider: identity.provider,
      oauth: identity.oauth,
      totpPending: String(pending),
      // Issue 33: what this session proved and when (ms), as RFC 8176 `amr`, its `acr`, and the latest proof.
      ...(user.state === 'logged_in' && user.proven !== undefined ? provenFields(user.proven) : {}),
      // Issue 16: which second factors the pending step accepts ('totp', 'passkey').
      ...(user.state === 'totp_pending' && user.secondFactors !== undefined ? { secondFactors: [...user.secondFactors] } : {}),
    },
    // A session renewed by this request (issue 33) gets its new cookie: the gateway's own pages keep it alive too.
    ...(user.state === 'logged_in' && user.renewed !== undefined && cookies !== undefined
      ? { cookies: [setCookie(SESSION_COOKIE, user.renewed.token, user.renewed.maxAgeMs / 1000, cookies)] }
      : {}),
  });
}

/** Flow cookies are read for the gateway only: host-only, so protected apps never receive them. */
const HOST_ONLY = { hostOnly: true } as const;

/** The two `Set-Cookie` values that make the browser forget an OAuth flow. */
function forgetFlow(flowId: string, cookies: CookieSettings): string[] {
  return [clearCookie(`${OAUTH_FLOW_COOKIE_PREFIX}${flowId}`, cookies, HOST_ONLY), clearCookie(`${OAUTH_REDIRECT_COOKIE_PREFIX}${flowId}`, cookies, HOST_ONLY)];
}

/** `configured`: the ids of the configured providers, which an unknown id's answer names. */
export function oauthStartAnswer(
  result: Result<StartOAuthOutput, StartOAuthError>,
  provider: string,
  cookies: CookieSettings,
  configured: readonly string[] = [],
): Answer {
  if (!result.ok) {
    const error = result.error;
    switch (error.code) {
      case 'unknown_provider':
        // 404 like any path that names nothing here; the message says what does exist.
        return answer(404, 'unknown_provider', [configured]);
      case 'provider_not_configured':
        return answer(404, 'provider_not_configured', [provider]);
      case 'provider_unavailable':
        return answer(502, 'provider_unavailable', []);
      default:
        return unmapped('oauth start', error);
    }
  }
  const { flow, redirectTarget, discard, url } = result.value;
  const set: string[] = [];
  for (const id of discard) if (FLOW_ID_PATTERN.test(id)) set.push(...forgetFlow(id, cookies));
  const maxAge = flow.lifetimeMs / 1000;
  set.push(setCookie(`${OAUTH_FLOW_COOKIE_PREFIX}${flow.id}`, flow.token, maxAge, cookies, HOST_ONLY));
  if (redirectTarget !== null) {
    // Mirrors the target for the UI; the callback trusts only the sealed copy in the flow cookie,
    // since a sibling subdomain can plant a plain cookie but cannot forge a sealed one.
    set.push(setCookie(`${OAUTH_REDIRECT_COOKIE_PREFIX}${flow.id}`, encodeURIComponent(redirectTarget), maxAge, cookies, HOST_ONLY));
  }
  return answer(200, 'ok', [], { fields: { url }, cookies: set });
}

/** The HTTP face of a failed callback: status for API mode, page for browser mode. */
function callbackFailure(error: CompleteOAuthError): { status: number; code: OAuthCallbackCode; page: 'error' | 'unauthorized' } {
  switch (error.code) {
    case 'invalid_callback':
    case 'oauth_flow_missing':
    case 'oauth_state_mismatch':
    case 'oauth_flow_expired':
    case 'oauth_flow_replayed':
    case 'oauth_issuer_mismatch':
    case 'oauth_issuer_missing':
      return { status: 400, code: error.code, page: 'error' };
    case 'unknown_provider':
    case 'provider_not_configured':
      return { status: 404, code: error.code, page: 'error' };
    case 'provider_denied':
    case 'provider_refused':
      return { status: 401, code: error.code, page: 'error' };
    case 'email_missing':
    case 'identity_invalid':
    case 'not_whitelisted':
      return { status: 403, code: error.code, page: 'unauthorized' };
    case 'provider_unavailable':
    case 'provider_invalid_response':
      return { status: 502, code: error.code, page: 'error' };
    case 'store_unavailable':
      return { status: 503, code: error.code, page: 'error' };
    default:
      return unmapped('oauth', error);
  }
}

function redirectTo(location: string, cookies: readonly string[]): Answer {
  return answer(302, 'redirecting', [], { headers: [['location', location]], cookies });
}

export function oauthCallbackAnswer(
  result: Result<CompleteOAuthOutput, CompleteOAuthError>,
  apiMode: boolean,
  appUrl: string,
  cookies: CookieSettings,
  configured: readonly string[] = [],
): Answer {
  if (result.ok) {
    const { redirectTarget, flowId } = result.value;
    const set = [...forgetFlow(flowId, cookies), sessionCookie(result.value, cookies)];
    if (redirectTarget !== null) return redirectTo(redirectTarget, set);
    if (!apiMode) return redirectTo(`${appUrl}/login`, set);
    return answer(200, 'logged_in', [], { cookies: set });
  }
  const error = result.error;
  const set = 'flowId' in error ? forgetFlow(error.flowId, cookies) : [];
  const { status, code, page } = callbackFailure(error);
  if (!apiMode) {
    const query = new URLSearchParams({ reason: code });
    // Who was refused, so the page can say it (tinyauth's UI shows nothing without it). Only for
    // not_whitelisted: the address is one the provider verified; an invalid one is never echoed.
    if (error.code === 'not_whitelisted') query.set('username', error.email);
    return redirectTo(`${appUrl}/${page}?${query.toString()}`, set);
  }
  if (code === 'unknown_provider') return answer(status, code, [configured], { cookies: set });
  return answer(status, code, [], { cookies: set });
}

const AUTHENTICATED = fixed(200, 'authenticated');
const UNAUTHORIZED = fixed(401, 'unauthorized');
const FORBIDDEN = fixed(403, 'forbidden');
const LOGIN_REQUIRED = fixed(302, 'login_required');
const FORBIDDEN_REDIRECT = fixed(302, 'forbidden');
const AMBIGUOUS_PATH = fixed(400, 'ambiguous_path');
export const UNKNOWN_PROXY = fixed(400, 'unknown_proxy');
const TOKEN_SCOPE = fixed(403, 'token_scope');
// RFC 6750: the Bearer challenge names what was wrong with the token, never the token.
const INVALID_TOKEN = withHeaders(fixed(401, 'invalid_token'), [['www-authenticate', 'Bearer realm="portcullis", error="invalid_token"']]);

/** What the forward-auth answer depends on besides the use case's result. */
export interface ForwardAuthContext {
  readonly proxy: ProxyKind;
  readonly apiMode: boolean;
  /** `${APP_URL}/login` and `${APP_URL}/unauthorized`. */
  readonly loginUrl: string;
  readonly unauthorizedUrl: string;
}

/** The 200 without its envelope, for a caller that asked for a minimal answer (see prefer.ts). */
const AUTHENTICATED_MINIMAL: Answer = Object.freeze({ ...withHeaders(AUTHENTICATED, [PREFERENCE_APPLIED]), body: Buffer.alloc(0) });

/**
 * An allowed request: the fixed 200 with the upstream's identity headers; `minimal` leaves out the
 * body (the proxy only reads the headers) and says so in `Preference-Applied`.
 */
export function forwardAuthAllowed(headers: readonly HeaderPair[] | null, minimal = false): Answer {
  const empty = headers === null || headers.length === 0;
  if (minimal) return empty ? AUTHENTICATED_MINIMAL : withHeaders(AUTHENTICATED_MINIMAL, [...headers, PREFERENCE_APPLIED]);
  return empty ? AUTHENTICATED : withHeaders(AUTHENTICATED, headers);
}

/**
 * A session that must prove more before this path (issue 33): a browser goes to the login page
 * with the sealed step-up; an API client gets 401 `step_up_required` with the methods and the
 * age in the body, and a challenge in the manner of RFC 9470 (no token is involved: the scheme is
 * the gateway's own).
 */
function stepUpRequired(error: Extract<AuthorizeProxyRequestError, { code: 'step_up_required' }>, context: ForwardAuthContext): Answer {
  const target = `${context.loginUrl}?step_up=${encodeURIComponent(error.reference)}`;
  if (context.proxy !== 'nginx' && !context.apiMode) return answer(302, 'step_up_required', [], { headers: [['location', target]] });
  const age = error.maxAge === null ? '' : `, max_age=${error.maxAge}`;
  const headers: HeaderPair[] = [
    ['www-authenticate', `Portcullis realm="portcullis", error="insufficient_user_authentication", methods="${error.methods.join(' ')}"${age}`],
  ];
  // nginx's auth_request cannot follow a redirect: the place to send the browser travels beside the 401.
  if (context.proxy === 'nginx') headers.push(['x-portcullis-location', target]);
  return answer(401, 'step_up_required', [], { fields: { methods: error.methods, maxAge: error.maxAge }, headers });
}

/**
 * A refused forward-auth request. nginx's auth_request cannot follow a redirect: it always gets
 * the status, and the place to send the browser in `X-Portcullis-Location`.
 */
export function forwardAuthRefused(error: AuthorizeProxyRequestError, context: ForwardAuthContext): Answer {
  const redirects = context.proxy !== 'nginx' && !context.apiMode;
  const sendTo = (target: string, redirect: Answer, refusal: Answer): Answer => {
    if (redirects) return withHeaders(redirect, [['location', target]]);
    if (context.proxy === 'nginx') return withHeaders(refusal, [['x-portcullis-location', target]]);
    return refusal;
  };
  switch (error.code) {
    case 'unauthenticated': {
      const target = error.returnTo === null ? context.loginUrl : `${context.loginUrl}?redirect_uri=${encodeURIComponent(error.returnTo)}`;
      return sendTo(target, LOGIN_REQUIRED, UNAUTHORIZED);
    }
    case 'forbidden': {
      // A machine (an access token) gets the reason as a code, never a page to go to.
      if (error.token === true) return error.reason === 'token_scope' ? TOKEN_SCOPE : FORBIDDEN;
      // Only a logged-in person refused for who they are gets the "not allowed" page; a refused
      // address or an anonymous refusal is a plain 403 (there is nobody to tell, nothing to log in for).
      if (error.network || error.username === '') return FORBIDDEN;
      const params = new URLSearchParams();
      if (error.app !== null) params.set('resource', error.app);
      params.set('username', error.username);
      return sendTo(`${context.unauthorizedUrl}?${params.toString()}`, FORBIDDEN_REDIRECT, FORBIDDEN);
    }
    case 'bad_forwarded_headers':
      return answer(400, 'bad_forwarded_headers', [error.problem, error.field]);
    case 'ambiguous_path':
      // Never a redirect: logging in would not make the path any less ambiguous.
      return AMBIGUOUS_PATH;
    case 'account_locked':
      return locked(error.retryAfter);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    case 'invalid_token':
      return INVALID_TOKEN;
    case 'step_up_required':
      return stepUpRequired(error, context);
    default:
      return unmapped('forward auth', error);
  }
}
