import { localAccountEmail, type Account } from './account';
import { describeIdentityNameError, parseUsername } from './identity-name';

/** One account as written in `USERS`: `username:bcrypt-hash[:base32-totp-secret]`. */
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

const HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
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
  const raw = separator === 'comma' ? text.split(',') : text.split(/\r?\n/).map((l) => l.replace(/(^|\s)#.*$/, ''));
  raw.forEach((chunk, index) => {
    const line = chunk.trim().replace(/\$\$/g, '$');
    if (line === '') return;
    const where = separator === 'comma' ? `entry ${index + 1}` : `line ${index + 1}`;
    const parts = line.split(':');
    if (parts.length < 2 || parts.length > 3) {
      problems.push(`${where}: expected username:bcrypt-hash[:totp-secret]`);
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
    if (!HASH.test(hash)) {
      problems.push(
        `${where} (${username}): password must be a bcrypt hash ($2a$, $2b$ or $2y$)${separator !== 'line' && !hash.includes('$') ? EXPANDED_HINT : ''}`,
      );
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

/**
 * The bcrypt cost most of the entries' hashes use (the higher one on a tie), or undefined without
 * entries. The decoy check for unknown accounts runs at this cost so it takes as long as a real one.
 */
export function typicalBcryptCost(entries: readonly UsersListEntry[]): number | undefined {
  const counts = new Map<number, number>();
  for (const { hash } of entries) {
    if (!HASH.test(hash)) continue; // a passkey-only account has none
    const cost = Number(hash.slice(4, 6));
    counts.set(cost, (counts.get(cost) ?? 0) + 1);
  }
  let best: { cost: number; n: number } | undefined;
  for (const [cost, n] of counts) if (best === undefined || n > best.n || (n === best.n && cost > best.cost)) best = { cost, n };
  return best?.cost;
}
