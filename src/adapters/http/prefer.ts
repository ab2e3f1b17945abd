/** What the caller asked for with `Prefer: return=minimal` (RFC 7240), as the answer says it was applied. */
export const PREFERENCE_APPLIED: readonly [string, string] = ['preference-applied', 'return=minimal'];

/** Longer `Prefer` values are not read: no proxy we ship sends more than one short preference. */
const MAX_PREFER_LENGTH = 512;

/**
 * True when a `Prefer` header asks for a minimal answer (`return=minimal`, RFC 7240 §4.2) and for
 * nothing contradicting it: a `return` preference with any other value (`representation`, or an
 * unknown one) anywhere in the header means the full answer. Preference names are matched without
 * regard to case, a quoted value like a bare one, and parameters after `;` are ignored. A minimal
 * answer only leaves out the body nobody reads (see forward-auth.ts), so an unclear header costs
 * nothing but that saving.
 */
export function prefersMinimalReturn(prefer: string | string[] | undefined): boolean {
  if (prefer === undefined) return false;
  // What the shipped Caddyfile sends, every request: decided without parsing.
  if (prefer === 'return=minimal') return true;
  const text = Array.isArray(prefer) ? prefer.join(',') : prefer;
  if (text.length > MAX_PREFER_LENGTH) return false;
  let minimal = false;
  for (const preference of text.split(',')) {
    const semicolon = preference.indexOf(';');
    const head = semicolon === -1 ? preference : preference.slice(0, semicolon);
    const equals = head.indexOf('=');
    const name = (equals === -1 ? head : head.slice(0, equals)).trim().toLowerCase();
    if (name !== 'return') continue;
    let value = equals === -1 ? '' : head.slice(equals + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (value !== 'minimal') return false;
    minimal = true;
  }
  return minimal;
}
