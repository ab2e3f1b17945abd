/**
 * Personal and service access tokens (issue 32): a secret a machine presents instead of a session
 * cookie, scoped to applications of the rules file, with an expiry. Only its keyed hash is stored.
 */

/** The prefix that makes a Portcullis token recognisable (secret scanners, the proxies' header filters). */
export const TOKEN_PREFIX = 'pct_';
/** Random bytes in a token: 256 bits, base64url without padding (43 characters). */
export const TOKEN_RANDOM_BYTES = 32;
/** The exact length of a well-formed token. */
export const TOKEN_LENGTH = TOKEN_PREFIX.length + 43;
/** Live tokens an account may hold. */
export const MAX_TOKENS_PER_ACCOUNT = 50;
/** The longest token name. */
export const MAX_TOKEN_NAME_LENGTH = 64;
/** The most applications one token may name. */
export const MAX_TOKEN_APPS = 32;
/** A revoked or expired token's record is kept this long for the account page, then forgotten. */
export const TOKEN_RECORD_GRACE_MS = 30 * 24 * 3600 * 1000;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** True for a value shaped like a Portcullis token (prefix, length, alphabet); says nothing of its validity. */
export function isTokenShaped(value: string): boolean {
  return value.length === TOKEN_LENGTH && value.startsWith(TOKEN_PREFIX) && BASE64URL.test(value.slice(TOKEN_PREFIX.length));
}

/** A token as the store keeps it: never the secret, only its keyed hash. */
export interface AccessTokenRecord {
  /** Public id (shown on the account page, used to revoke). */
  readonly id: string;
  /** The keyed hash of the secret: how a presented token is found. */
  readonly hash: string;
  readonly username: string;
  readonly name: string;
  /** The applications (names in the rules file) it passes; null: every application its owner may open. */
  readonly apps: readonly string[] | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** When it was last used, as recorded (written in batches); null: never. */
  readonly lastUsedAt: number | null;
  /** When it was revoked; null: not revoked. */
  readonly revokedAt: number | null;
}

/** The id under which a token's revocation is replicated with the session revocations. */
export function tokenRevocationId(id: string): string {
  return `token:${id}`;
}

/** A token passes only until it expires and while it is not revoked. */
export function isLiveToken(record: AccessTokenRecord, now: number): boolean {
  return record.revokedAt === null && record.expiresAt > now;
}

export type TokenFieldProblem = 'name' | 'apps' | 'expiresInDays';

/** What a request to create a token asks for, checked: a name, optional applications, an expiry within the bound. */
export function checkTokenRequest(
  input: { readonly name: unknown; readonly apps?: unknown; readonly expiresInDays?: unknown },
  maxLifetimeDays: number,
): { ok: true; name: string; apps: readonly string[] | null; days: number } | { ok: false; fields: TokenFieldProblem[] } {
  const fields: TokenFieldProblem[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name === '' || name.length > MAX_TOKEN_NAME_LENGTH || hasControlCharacter(name)) fields.push('name');
  let apps: readonly string[] | null = null;
  if (input.apps !== undefined && input.apps !== null) {
    const list = input.apps;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      list.length > MAX_TOKEN_APPS ||
      !list.every((a) => typeof a === 'string' && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(a))
    )
      fields.push('apps');
    else apps = [...new Set(list as string[])];
  }
  let days = maxLifetimeDays;
  if (input.expiresInDays !== undefined && input.expiresInDays !== null) {
    const d = input.expiresInDays;
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > maxLifetimeDays) fields.push('expiresInDays');
    else days = d;
  }
  return fields.length > 0 ? { ok: false, fields } : { ok: true, name, apps, days };
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
