import { err, ok, type Result } from './result';

/**
 * Why a name cannot be part of an identity:
 * - `empty`, `too_long` (over 256 characters);
 * - `invisible_character`: a control (Cc), format (Cf: zero-width space, soft hyphen, bidi
 *   controls, BOM), surrogate, private-use or unassigned character;
 * - `white_space`: a space or other separator where none may be (usernames, e-mails), or around
 *   a group name;
 * - `unsupported_character`: a character outside printable Latin-1, which an HTTP header cannot
 *   carry as it is;
 * - `comma`: in a group name, where `Remote-Groups` separates groups with commas.
 */
export type IdentityNameError = {
  readonly code: 'empty' | 'too_long' | 'invisible_character' | 'white_space' | 'unsupported_character' | 'comma';
};

const MAX_LENGTH = 256;
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/u;
const SEPARATOR = /\p{Z}/u;
// Printable Latin-1 without the no-break space: what `Remote-*` headers carry byte for byte.
const HEADER_SAFE = /^[\u0020-\u007e\u00a1-\u00ff]*$/;

/*
 * Identity names are checked where they enter (every user store, OAuth), before any decision, so
 * the name a rule decides on is exactly the one the upstream receives. Cleaning them later, at the
 * header, made `al\u200bice` arrive upstream as `alice` after rules had judged `al\u200bice`, and a
 * group `admins,staff` arrive as two groups.
 */

/** A username or e-mail address: printable Latin-1, no white space, no invisible characters. */
export function parseUsername(raw: string): Result<string, IdentityNameError> {
  return parseName(raw, false);
}

/** A group name: printable Latin-1, inner spaces allowed (`Domain Admins`), no comma. */
export function parseGroupName(raw: string): Result<string, IdentityNameError> {
  const parsed = parseName(raw, true);
  if (parsed.ok && parsed.value.includes(',')) return err({ code: 'comma' });
  return parsed;
}

/**
 * A display name: any visible text with ordinary spaces (`Zoë Li`), no invisible characters and
 * no line breaks. It decides nothing; characters a header cannot carry are left out of `Remote-Name`.
 */
export function parseDisplayName(raw: string): Result<string, IdentityNameError> {
  if (raw === '') return err({ code: 'empty' });
  if (raw.length > MAX_LENGTH) return err({ code: 'too_long' });
  if (INVISIBLE.test(raw)) return err({ code: 'invisible_character' });
  if (/[\u2028\u2029]/.test(raw) || raw.trim() !== raw) return err({ code: 'white_space' });
  return ok(raw);
}

function parseName(raw: string, innerSpaces: boolean): Result<string, IdentityNameError> {
  if (raw === '') return err({ code: 'empty' });
  if (raw.length > MAX_LENGTH) return err({ code: 'too_long' });
  if (INVISIBLE.test(raw)) return err({ code: 'invisible_character' });
  const spaces = innerSpaces ? raw.replace(/(?<=\S) (?=\S)/g, '') : raw;
  if (SEPARATOR.test(spaces)) return err({ code: 'white_space' });
  if (!HEADER_SAFE.test(raw)) return err({ code: 'unsupported_character' });
  return ok(raw);
}

/** A short English reason for logs and configuration problems. */
export function describeIdentityNameError(error: IdentityNameError): string {
  switch (error.code) {
    case 'empty':
      return 'is empty';
    case 'too_long':
      return 'is longer than 256 characters';
    case 'invisible_character':
      return 'contains a control or invisible character (e.g. a zero-width space)';
    case 'white_space':
      return 'contains white space';
    case 'unsupported_character':
      return 'contains a character outside printable Latin-1, which a header cannot carry';
    case 'comma':
      return 'contains a comma (Remote-Groups separates groups with commas)';
    default: {
      const unreachable: never = error.code;
      throw new Error(`unknown name error ${String(unreachable)}`);
    }
  }
}
