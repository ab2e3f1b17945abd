/**
 * The rule a password chosen on the account page must meet (issue 36). Deliberately small and
 * documented (docs/account.md): length is what makes a password hard to guess, so the rule asks
 * for length and refuses the few choices every guessing list tries first; it asks for no mix of
 * character classes (NIST SP 800-63B, 5.1.1.2).
 */

/** Fewest characters (code points, not bytes) a new password may have. */
export const MIN_PASSWORD_LENGTH = 12;

/** Most bytes (UTF-8) a new password may have: bcrypt reads only the first 72, a longer one would be cut without a word. */
export const MAX_PASSWORD_BYTES = 72;

/** Why a new password is refused. */
export type WeakPasswordReason = 'too_short' | 'too_long' | 'same_as_username' | 'same_as_current' | 'common';

/**
 * Passwords of twelve characters or more that head public lists of leaked passwords, lower-cased.
 * A short list on purpose: it catches the habitual choices, not a dictionary attack.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789abc',
  '1q2w3e4r5t6y',
  'qwertyuiopasdf',
  'qwertyuiop123',
  'qwerty123456',
  'qwertyqwerty',
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'p@ssw0rd1234',
  'letmeinletmein',
  'iloveyou1234',
  'administrator',
  'administrator1',
  'changeme1234',
  'welcome12345',
  'welcome123456',
  'abcdefghijkl',
  'abc123abc123',
  'aaaaaaaaaaaa',
  '111111111111',
  '000000000000',
  'trustno1trustno1',
  'football1234',
  'baseball1234',
  'superman1234',
  'portcullis123',
  'portcullis1234',
]);

/** The number of characters (code points) in `s`. */
const lengthOf = (s: string): number => [...s].length;

/**
 * Why `password` may not replace the account's password, or null when it may: at least
 * {@link MIN_PASSWORD_LENGTH} characters, at most {@link MAX_PASSWORD_BYTES} bytes, not the username
 * (in any case), not the current password (each when given: an invitation knows neither), not one of a few common passwords, and not one
 * character repeated.
 */
export function weakPasswordReason(password: string, context: { readonly username?: string; readonly current?: string } = {}): WeakPasswordReason | null {
  if (lengthOf(password) < MIN_PASSWORD_LENGTH) return 'too_short';
  if (new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES) return 'too_long';
  const folded = password.toLowerCase();
  if (context.username !== undefined && folded === context.username.toLowerCase()) return 'same_as_username';
  if (context.current !== undefined && password === context.current) return 'same_as_current';
  if (COMMON_PASSWORDS.has(folded) || new Set(folded).size === 1) return 'common';
  return null;
}
