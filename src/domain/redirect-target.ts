import { isWithinDomain, type ProtectedDomain } from './cookie-domain';

/**
 * Decides whether a URL that a client asked to be sent back to is safe: an absolute http(s) URL
 * on the protected domain, without userinfo or the characters browsers "repair" into another host.
 * Returns the normalised URL, or null when the target must be ignored.
 */
export function safeRedirectTarget(raw: unknown, domain: ProtectedDomain): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4096) return null;
  // Backslashes, control characters and whitespace are read differently by browsers and parsers.
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\\\u0000-\u0020\u007f]/.test(raw)) return null;
  if (!/^https?:\/\//i.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  if (url.hostname === '' || !isWithinDomain(url.hostname, domain)) return null;
  return url.toString();
}
