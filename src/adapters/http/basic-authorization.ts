import type { BasicCredentials } from '../../domain/credentials';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * True when the header claims the Basic scheme at all (even if its payload is junk): `basic `
 * in any case of ASCII letters. Compared code by code (`c | 0x20` folds exactly `B`/`b` and so
 * on, nothing else): it runs on every forward-auth request, twice for Basic ones, and a slice
 * lower-cased each time cost a string or two per request.
 */
export const isBasicAuthorization = (header: string | undefined): header is string =>
  header !== undefined &&
  header.length > 6 &&
  (header.charCodeAt(0) | 0x20) === 0x62 &&
  (header.charCodeAt(1) | 0x20) === 0x61 &&
  (header.charCodeAt(2) | 0x20) === 0x73 &&
  (header.charCodeAt(3) | 0x20) === 0x69 &&
  (header.charCodeAt(4) | 0x20) === 0x63 &&
  header.charCodeAt(5) === 0x20;

/** Decodes a Basic `Authorization` header; null for another scheme, bad base64, no colon, or an empty username. */
export function parseBasicAuthorization(header: string | undefined): BasicCredentials | null {
  if (!isBasicAuthorization(header)) return null;
  const payload = header.slice(6).trim();
  if (payload.length > 4096 || !BASE64.test(payload)) return null;
  const decoded = Buffer.from(payload, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
