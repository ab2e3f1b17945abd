import { err, ok, type Result } from './result';

/**
 * A passkey (a WebAuthn credential) registered to an account. Times are milliseconds since the
 * epoch; the id and the public key are base64url, as the browser and the authenticator gave them.
 */
export interface Passkey {
  /** The credential id (base64url): unique across every account. */
  readonly id: string;
  /** The account's username (as its user store spells it). */
  readonly username: string;
  /** The person's own name for it ("Laptop", "Phone"). */
  readonly name: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  readonly counter: number;
  /** How the browser may reach the authenticator (`internal`, `usb`, `hybrid`, ...), as it reported. */
  readonly transports: readonly string[];
  readonly createdAt: number;
  /** When it last opened a login; null until then. */
  readonly lastUsedAt: number | null;
}

/** Most passkeys one account may hold: a limit on what one person can make the store keep. */
export const MAX_PASSKEYS_PER_ACCOUNT = 20;

/** Longest name, in characters. */
export const MAX_PASSKEY_NAME_LENGTH = 64;

/** How long a registration or login ceremony may take, from its options to its answer. */
export const PASSKEY_CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;

const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/**
 * A passkey's name as the person typed it: trimmed, inner runs of white space made one space, no
 * control characters, 1 to {@link MAX_PASSKEY_NAME_LENGTH} characters.
 */
export function parsePasskeyName(raw: unknown): Result<string, { readonly code: 'invalid_name' }> {
  if (typeof raw !== 'string') return err({ code: 'invalid_name' });
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(raw.replace(/[\t ]/g, ' '))) return err({ code: 'invalid_name' });
  const name = raw.trim().replace(/\s+/g, ' ');
  if (name === '' || [...name].length > MAX_PASSKEY_NAME_LENGTH) return err({ code: 'invalid_name' });
  return ok(name);
}

/** The transports worth keeping from what a browser reported: known names, once each. */
export function knownTransports(reported: readonly unknown[] | undefined): string[] {
  return [...new Set((reported ?? []).filter((t): t is string => typeof t === 'string' && KNOWN_TRANSPORTS.has(t)))];
}

/**
 * Whether a signature counter from an assertion may follow the one stored. WebAuthn counters only
 * grow; one that does not grow means a second copy of the private key is in use (a cloned
 * authenticator), so it is refused. Authenticators that keep no counter (synced passkeys) report 0
 * every time: 0 after 0 is fine. Once a counter has been seen above 0, 0 is refused like any other
 * step back.
 */
export function counterMayFollow(stored: number, presented: number): boolean {
  if (stored === 0 && presented === 0) return true;
  return presented > stored;
}
