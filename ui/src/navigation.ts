/**
 * Pure rules the pages share: where a `redirect_uri` may lead, how it travels between pages, and
 * how a wait is told to a person. No DOM here, so unit tests run them under Node.
 */

// Type only, erased by the build: the callback's codes as the server declares them.
import type { OAuthCallbackCode } from '../../src/adapters/http/messages';

/** Why a continue target was refused; `null` target means "nothing to continue to". */
export type TargetCheck =
  { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: 'not_a_url' | 'bad_scheme' | 'credentials' | 'off_domain' };

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** Mirrors the gateway's rule: an IP or one-label domain protects only itself; others also their subdomains. */
function isShareable(domain: string): boolean {
  return !IPV4.test(domain) && !domain.startsWith('[') && !domain.includes(':') && domain.includes('.');
}

/**
 * Accepts only absolute http(s) URLs without credentials whose host is the protected `domain` or,
 * for a shareable domain, one of its subdomains (compared label-wise and lower-cased).
 */
export function checkTarget(raw: string, domain: string): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not_a_url' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'bad_scheme' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials' };
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const d = domain.toLowerCase().replace(/\.$/, '');
  if (d === '') return { ok: false, reason: 'off_domain' };
  if (host === d) return { ok: true, url };
  if (isShareable(d) && host.endsWith(`.${d}`) && host.length > d.length + 1) return { ok: true, url };
  return { ok: false, reason: 'off_domain' };
}

/**
 * True when `target` is this gateway's own OpenID Connect provider taking the login back (its
 * interaction page, same origin as the page): the person asked an app to log them in, so the
 * "Continue to …?" question would only be an extra click.
 */
export function isProviderReturn(target: URL, pageOrigin: string): boolean {
  return target.origin === pageOrigin && /^\/oidc\/interaction\/[A-Za-z0-9_-]+$/.test(target.pathname) && target.search === '';
}

/** `path` with `redirect_uri` carried along when there is one, so login → totp → continue keeps it. */
export function withRedirect(path: string, redirectUri: string | null): string {
  if (redirectUri === null || redirectUri === '') return path;
  return `${path}?redirect_uri=${encodeURIComponent(redirectUri)}`;
}

/** "30 seconds", "1 minute", "5 minutes", "2 hours": rounded up, so the wait is never understated. */
export function formatWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return s === 1 ? '1 second' : `${s} seconds`;
  const m = Math.ceil(s / 60);
  if (m < 60) return m === 1 ? '1 minute' : `${m} minutes`;
  const h = Math.ceil(m / 60);
  return h === 1 ? '1 hour' : `${h} hours`;
}

const PROVIDER_NAMES: Readonly<Record<string, string>> = { github: 'GitHub', google: 'Google' };

/** Identity sources that are not OAuth providers (the gateway lists local accounts as `username`). */
const LOCAL_SOURCES: ReadonlySet<string> = new Set(['username', 'ldap', 'basic']);

/** OAuth providers in the order the gateway lists them (github, google, generic, then `OAUTH_PROVIDERS_<ID>_…` ones); `username` is not OAuth. */
export function oauthProviders(configured: readonly string[]): string[] {
  return configured.filter((p) => !LOCAL_SOURCES.has(p));
}

/** The label a person sees for a provider: `genericName` for the generic one, the configured name for the others (`/api/app`'s `providers`). */
export function providerLabel(provider: string, genericName: string, named: readonly { readonly id: string; readonly name: string }[] = []): string {
  if (provider === 'generic') return genericName.trim() === '' ? 'OAuth' : genericName;
  return named.find((p) => p.id === provider)?.name ?? PROVIDER_NAMES[provider] ?? provider;
}

/** The password form shows unless only OAuth providers are configured. */
export function showsPasswordForm(configured: readonly string[]): boolean {
  return configured.length === 0 || configured.some((p) => oauthProviders([p]).length === 0);
}

/**
 * The provider to go to straight away: `oauthAutoRedirect` names a configured OAuth provider and
 * the person came with a `redirect_uri` (a direct visit to /login always shows the page).
 */
export function autoRedirectProvider(setting: string, configured: readonly string[], redirectUri: string | null): string | null {
  if (redirectUri === null || redirectUri === '' || setting === '' || setting === 'none') return null;
  return oauthProviders(configured).includes(setting) ? setting : null;
}

/**
 * What a `reason` code from the OAuth callback means to a person, for every code the server can
 * send (the type comes from the server: a new code is a compile error until it has a text).
 * Unknown reasons are shown as they came (text only).
 */
const REASONS: Readonly<Record<OAuthCallbackCode, string>> = {
  unknown_provider: 'That login provider does not exist here.',
  provider_not_configured: 'That login provider is not set up on this gateway.',
  invalid_callback: 'The provider sent you back without the details of the login.',
  oauth_flow_missing: 'This browser has no login in progress. It may have expired, or the login was started in another browser.',
  oauth_state_mismatch: 'The answer from the provider does not belong to a login of this browser.',
  oauth_flow_expired: 'The login took too long. Start again.',
  oauth_flow_replayed: 'This login was already completed. Start again if you are not logged in.',
  oauth_issuer_mismatch: 'The answer came from another login provider than the one this login was sent to. Start again.',
  oauth_issuer_missing: 'The login provider did not say who it is, as it promised to. Start again.',
  provider_denied: 'The provider did not grant the login (it was cancelled or refused there).',
  provider_refused: 'The provider refused the login.',
  email_missing: 'The provider did not share a verified e-mail address, which this login needs.',
  identity_invalid: 'The provider gave an e-mail address with characters that cannot be used here.',
  not_whitelisted: 'This account is not on the list of accounts allowed to log in here.',
  provider_unavailable: 'The login provider cannot be reached right now. Try again later.',
  provider_invalid_response: 'The login provider gave an unexpected answer. Try again later.',
  store_unavailable: 'The login service is unavailable right now. Try again in a moment.',
};

export function reasonText(reason: string): string {
  return Object.prototype.hasOwnProperty.call(REASONS, reason) ? REASONS[reason as OAuthCallbackCode] : reason;
}
