import { err, ok, type Result } from './result';

/** The fewest characters a new password has (issue 36): long beats clever, and no list of rules. */
export const MIN_PASSWORD_LENGTH = 12;
/** bcrypt reads only the first 72 bytes: a longer password would be cut without a word. */
export const MAX_PASSWORD_BYTES = 72;

/** Why a new password is refused: too short, or too long for bcrypt. */
export type WeakPassword = { readonly code: 'weak_password'; readonly reason: 'too_short' | 'too_long' };

/**
 * The strength rule for a password a person chooses (an invitation, a reset): at least
 * {@link MIN_PASSWORD_LENGTH} characters (counted as the person sees them), at most
 * {@link MAX_PASSWORD_BYTES} bytes of UTF-8. Checked before a link is spent, so it knows no username.
 */
export function checkNewPassword(password: unknown): Result<string, WeakPassword> {
  if (typeof password !== 'string' || [...password].length < MIN_PASSWORD_LENGTH) return err({ code: 'weak_password', reason: 'too_short' });
  if (new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES) return err({ code: 'weak_password', reason: 'too_long' });
  return ok(password);
}
