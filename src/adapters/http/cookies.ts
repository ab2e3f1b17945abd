import type { ProtectedDomain } from '../../domain/cookie-domain';

export const SESSION_COOKIE = 'portcullis-session';

export interface CookieSettings {
  readonly domain: ProtectedDomain;
  readonly secure: boolean;
}

/** The value of the first cookie called `name` in a `Cookie` header, without parsing the rest. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  let from = 0;
  while (from < header.length) {
    const at = header.indexOf(name, from);
    if (at === -1) return undefined;
    const before = at === 0 ? ' ' : header[at - 1];
    const eq = at + name.length;
    if ((before === ' ' || before === ';') && header[eq] === '=') {
      const end = header.indexOf(';', eq);
      return header.slice(eq + 1, end === -1 ? undefined : end).trim();
    }
    from = at + name.length;
  }
  return undefined;
}

/** Where the value of the first cookie called `name` at or after `from` starts (after its `=`), or -1. */
function cookieValueStart(header: string, name: string, from: number): number {
  while (from < header.length) {
    const at = header.indexOf(name, from);
    if (at === -1) return -1;
    const before = at === 0 ? ' ' : header[at - 1];
    const eq = at + name.length;
    if ((before === ' ' || before === ';') && header[eq] === '=') return eq + 1;
    from = eq;
  }
  return -1;
}

/**
 * The value of the cookie called `name` when the header holds exactly one; `undefined` when it
 * holds none, and `null` when it holds several. Two copies are how a cookie planted by another
 * page of the shared domain (with a longer path, so sent first) would make the gateway decide on
 * one while the application behind the proxy receives the other: the caller refuses them.
 */
export function readSoleCookie(header: string | undefined, name: string): string | undefined | null {
  if (header === undefined) return undefined;
  const start = cookieValueStart(header, name, 0);
  if (start === -1) return undefined;
  const end = header.indexOf(';', start);
  if (end !== -1 && cookieValueStart(header, name, end) !== -1) return null;
  return header.slice(start, end === -1 ? undefined : end).trim();
}

/** Name prefixes of the per-flow OAuth cookies; the flow id completes the name. */
export const OAUTH_FLOW_COOKIE_PREFIX = 'portcullis-oauth-';
export const OAUTH_REDIRECT_COOKIE_PREFIX = 'portcullis-redirect-';

/** Every `name=value` pair whose name starts with `prefix`, at most `max` of them (the rest are ignored). */
export function readCookiesWithPrefix(header: string | undefined, prefix: string, max: number): { suffix: string; value: string }[] {
  const found: { suffix: string; value: string }[] = [];
  if (header === undefined || header.length > 16_384) return found;
  for (const part of header.split(';')) {
    const pair = part.trim();
    if (!pair.startsWith(prefix)) continue;
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    found.push({ suffix: pair.slice(prefix.length, eq), value: pair.slice(eq + 1).trim() });
    if (found.length >= max) break;
  }
  return found;
}

export interface CookieScope {
  /** True for cookies only the gateway itself reads (OAuth flows): no `Domain`, so protected apps never see them. */
  readonly hostOnly?: boolean;
}

function attributes(settings: CookieSettings, maxAgeSeconds: number, scope: CookieScope = {}): string {
  const parts = [`Path=/`, `Max-Age=${maxAgeSeconds}`];
  if (maxAgeSeconds === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (settings.domain.shareable && scope.hostOnly !== true) parts.push(`Domain=${settings.domain.domain}`);
  parts.push('HttpOnly', 'SameSite=Lax');
  if (settings.secure) parts.push('Secure');
  return parts.join('; ');
}

/** A `Set-Cookie` value that stores `value` under `name` for `maxAgeSeconds`. */
export function setCookie(name: string, value: string, maxAgeSeconds: number, settings: CookieSettings, scope?: CookieScope): string {
  return `${name}=${value}; ${attributes(settings, Math.max(0, Math.floor(maxAgeSeconds)), scope)}`;
}

/** A `Set-Cookie` value that tells the client to forget `name`. */
export function clearCookie(name: string, settings: CookieSettings, scope?: CookieScope): string {
  return `${name}=; ${attributes(settings, 0, scope)}`;
}
