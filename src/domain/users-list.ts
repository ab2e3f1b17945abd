import { localAccountEmail, type Account } from './account';
import { describeIdentityNameError, parseUsername } from './identity-name';
import { decoyParameters, readPasswordHash, type PasswordHashParameters } from './password-hash';

/** One account as written in `USERS`: `username:password-hash[:base32-totp-secret]` (bcrypt or Argon2). */
export interface UsersListEntry {
  readonly username: string;
  readonly hash: string;
  readonly totpSecret?: string;
  /** No password (`hash` is empty): the account signs in with a passkey only (users file only, issue 16). */
  readonly passkeyOnly?: boolean;
}

/** What a users-file line says in place of the hash for a passkey-only account: `alice:passkey-only`. */
export const PASSKEY_ONLY_MARK = 'passkey-only';

export type ParseUsersResult = { readonly entries: UsersListEntry[]; readonly problems: string[] };

const BASE32 = /^[A-Z2-7]+=*$/;

/** A username that fits the `USERS` format: a valid identity name (see identity-name) without comma or colon. */
/**
 * A hash with no `$` left in it is most often one that a shell (double quotes) or docker compose
 * expanded: `$2b$10$…` reads as variables and vanishes. Said next to the problem, since the value
 * the operator typed looks right to them.
 */
const EXPANDED_HINT =
  '; it holds no "$": if it was a hash, a shell or docker compose expanded its $ signs away. Quote the value in single quotes (\'alice:$2b$…\'), write each $ as $$ in a compose file, or keep accounts in USERS_FILE ("portcullis user add")';

export function isValidUsername(username: string): boolean {
  return usernameProblem(username) === null;
}

/** Why `username` cannot be a local account's name, or null when it can. */
export function usernameProblem(username: string): string | null {
  const parsed = parseUsername(username);
  if (!parsed.ok) return describeIdentityNameError(parsed.error);
  return /[,:]/.test(username) ? 'contains a comma or a colon' : null;
}

/** `$` doubled, as a value inside docker-compose.yml must be written. */
export function composeEscaped(entry: string): string {
  return entry.replace(/\$/g, '$$$$');
}

/** A `USERS` entry for an account: `username:hash[:totp-secret]` (`username:passkey-only` in a users file). */
export function formatUsersEntry(entry: UsersListEntry): string {
  if (entry.passkeyOnly === true) return `${entry.username}:${PASSKEY_ONLY_MARK}`;
  return entry.totpSecret ? `${entry.username}:${entry.hash}:${entry.totpSecret}` : `${entry.username}:${entry.hash}`;
}

/**
 * Parses the `USERS` format: entries separated by commas (the variable) or lines (the file, where
 * `#` starts a comment). `$$` stands for `$`, as docker-compose users must write it.
 * Problems name the entry by position and username, never the hash.
 */
export function parseUsersList(text: string, separator: 'comma' | 'line'): ParseUsersResult {
  const entries: UsersListEntry[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  const raw = separator === 'comma' ? splitEntries(text) : text.split(/\r?\n/).map((l) => l.replace(/(^|\s)#.*$/, ''));
  raw.forEach((chunk, index) => {
    const line = chunk.trim().replace(/\$\$/g, '$');
    if (line === '') return;
    const where = separator === 'comma' ? `entry ${index + 1}` : `line ${index + 1}`;
    const parts = line.split(':');
    if (parts.length < 2 || parts.length > 3) {
      problems.push(`${where}: expected username:password-hash[:totp-secret]`);
      return;
    }
    const [username, hash, totp] = parts.map((p) => p.trim());
    const invalid = usernameProblem(username);
    if (invalid !== null) {
      // The name itself is not repeated: it may hold what a log line should not.
      problems.push(`${where}: invalid username (${invalid})`);
      return;
    }
    // Only a users file may hold passkey-only accounts (issue 16): the USERS variable stays a list of passwords.
    if (separator === 'line' && hash === PASSKEY_ONLY_MARK && (totp === undefined || totp === '')) {
      if (seen.has(username.toLowerCase())) {
        problems.push(`${where}: duplicate username ${username}`);
        return;
      }
      seen.add(username.toLowerCase());
      entries.push({ username, hash: '', passkeyOnly: true });
      return;
    }
    const read = readPasswordHash(hash);
    if (!read.ok) {
      problems.push(`${where} (${username}): ${read.problem}${separator !== 'line' && !hash.includes('$') ? EXPANDED_HINT : ''}`);
      return;
    }
    const secret = totp?.replace(/\s+/g, '').toUpperCase();
    if (secret !== undefined && secret !== '' && (!BASE32.test(secret) || secret.length < 16)) {
      problems.push(`${where} (${username}): TOTP secret must be base32, at least 16 characters`);
      return;
    }
    if (seen.has(username.toLowerCase())) {
      problems.push(`${where}: duplicate username ${username}`);
      return;
    }
    seen.add(username.toLowerCase());
    entries.push(secret ? { username, hash, totpSecret: secret } : { username, hash });
  });
  return { entries, problems };
}

/**
 * The `USERS` variable's entries: split at commas, except those inside an Argon2 hash's parameters
 * (`$argon2id$v=19$m=65536,t=3,p=4$…`), which join the pieces again.
 */
function splitEntries(text: string): string[] {
  const entries: string[] = [];
  for (const chunk of text.split(',')) {
    const last = entries.length - 1;
    if (last >= 0 && /\$argon2/.test(entries[last]) && /[a-z]=\d{1,10}$/.test(entries[last]) && /^[a-z]=\d{1,10}(,|\$|$)/.test(chunk))
      entries[last] += `,${chunk}`;
    else entries.push(chunk);
  }
  return entries;
}

/** The account a `USERS` entry describes; its e-mail is derived from the protected domain. */
export function accountFromEntry(entry: UsersListEntry, domain: string): Account {
  return {
    username: entry.username,
    email: localAccountEmail(entry.username, domain),
    name: entry.username.includes('@') ? entry.username.slice(0, entry.username.indexOf('@')) : entry.username,
    groups: [],
    totpSecret: entry.totpSecret,
    credentialVersion: entry.hash,
  };
}

/** What the decoy check for unknown accounts is made of, from the entries' hashes (see {@link decoyParameters}). */
export function entriesDecoy(entries: readonly UsersListEntry[]): PasswordHashParameters | undefined {
  return decoyParameters(entries.map((e) => e.hash));
}
