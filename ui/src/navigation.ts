/**
 * Pure rules the pages share: where a `redirect_uri` may lead, how it travels between pages, and
 * what an OAuth `reason` means. No DOM here, so unit tests run them under Node.
 */

// Type only, erased by the build: the callback's codes as the server declares them.
import type { OAuthCallbackCode } from '../../src/adapters/http/messages';
import { t, type MessageKey } from './i18n';

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
 * interaction page, or the authorization request a browser without a login was sent here from;
 * same origin as the page): the person asked an app to log them in, so the "Continue to …?"
 * question would only be an extra click. Going to the authorization endpoint after a login is
 * what single sign-on does for any link to it anyway.
 */
export function isProviderReturn(target: URL, pageOrigin: string): boolean {
  if (target.origin !== pageOrigin) return false;
  if (target.pathname === '/oidc/auth') return target.search !== '';
  return /^\/oidc\/interaction\/[A-Za-z0-9_-]+$/.test(target.pathname) && target.search === '';
}

/** `path` with `redirect_uri` carried along when there is one, so login → totp → continue keeps it. */
export function withRedirect(path: string, redirectUri: string | null): string {
  if (redirectUri === null || redirectUri === '') return path;
  return `${path}?redirect_uri=${encodeURIComponent(redirectUri)}`;
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
const REASONS: Readonly<Record<OAuthCallbackCode, MessageKey>> = {
  unknown_provider: 'reason.unknown_provider',
  provider_not_configured: 'reason.provider_not_configured',
  invalid_callback: 'reason.invalid_callback',
  oauth_flow_missing: 'reason.oauth_flow_missing',
  oauth_state_mismatch: 'reason.oauth_state_mismatch',
  oauth_flow_expired: 'reason.oauth_flow_expired',
  oauth_flow_replayed: 'reason.oauth_flow_replayed',
  oauth_issuer_mismatch: 'reason.oauth_issuer_mismatch',
  oauth_issuer_missing: 'reason.oauth_issuer_missing',
  provider_denied: 'reason.provider_denied',
  provider_refused: 'reason.provider_refused',
  email_missing: 'reason.email_missing',
  identity_invalid: 'reason.identity_invalid',
  not_whitelisted: 'reason.not_whitelisted',
  provider_unavailable: 'reason.provider_unavailable',
  provider_invalid_response: 'reason.provider_invalid_response',
  store_unavailable: 'reason.store_unavailable',
};

export function reasonText(reason: string): string {
  return Object.prototype.hasOwnProperty.call(REASONS, reason) ? t(REASONS[reason as OAuthCallbackCode]) : reason;
}
