import { readPasswordHash } from '../password-hash';
import { err, ok, type Result } from '../result';
import { usernameProblem } from '../users-list';
import type { PlaceOf } from './authelia-access';

/**
 * Authelia's file user database (`users_database.yml`) and its TOTP export (otpauth:// URIs), as the
 * accounts of a Portcullis YAML users file. Password hashes are kept as they are when the gateway
 * verifies their kind (bcrypt, argon2id, argon2i); any other kind imports the account disabled.
 */

export interface ImportedAccount {
  readonly username: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly groups: readonly string[];
  /** The hash as it was; null when the gateway cannot verify its kind (the account is then disabled). */
  readonly password: string | null;
  readonly disabled: boolean;
  readonly totpSecret: string | null;
}

export interface UsersImport {
  readonly accounts: readonly ImportedAccount[];
  readonly report: readonly string[];
  /** Accounts imported disabled because their hash cannot be verified. */
  readonly disabledForHash: readonly string[];
}

const USER_KEYS = ['password', 'displayname', 'email', 'groups', 'disabled'];
/** Newer Authelia profile fields: known, read, not carried over. */
const PROFILE_KEYS = [
  'given_name',
  'middle_name',
  'family_name',
  'nickname',
  'gender',
  'birthdate',
  'website',
  'profile',
  'picture',
  'zoneinfo',
  'locale',
  'phone_number',
  'phone_extension',
  'address',
  'extra',
];

/** Why the gateway cannot verify this hash (its kind, or Argon2 costs past its bounds); null when it can. */
export function unusableHash(hash: string): string | null {
  const read = readPasswordHash(hash);
  return read.ok ? null : read.problem;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readAccount(username: string, v: unknown, place: PlaceOf, problems: string[], report: string[], disabledForHash: string[]): ImportedAccount | null {
  const at = ['users', username];
  if (!isRecord(v)) {
    problems.push(`${place(at)}: must be a mapping with password, displayname, email, groups`);
    return null;
  }
  const nameProblem = usernameProblem(username);
  if (nameProblem !== null) problems.push(`${place(at)}: the username ${nameProblem}`);
  for (const k of Object.keys(v)) {
    if (!USER_KEYS.includes(k) && !PROFILE_KEYS.includes(k))
      problems.push(`${place([...at, k])}: unknown key "${k}" (known: ${USER_KEYS.join(', ')} and profile fields)`);
  }
  const profile = Object.keys(v).filter((k) => PROFILE_KEYS.includes(k));
  if (profile.length > 0) report.push(`user ${username}: not carried over: ${profile.join(', ')}`);
  if (typeof v.password !== 'string' || v.password === '') problems.push(`${place([...at, 'password'])}: is required (a password hash)`);
  const password = typeof v.password === 'string' ? v.password : '';
  const text = (key: string): string | null => {
    const x = v[key];
    if (x === undefined || x === null) return null;
    if (typeof x !== 'string') problems.push(`${place([...at, key])}: must be text`);
    return typeof x === 'string' && x.trim() !== '' ? x.trim() : null;
  };
  const groupsRaw = v.groups === undefined || v.groups === null ? [] : Array.isArray(v.groups) ? v.groups : [v.groups];
  const groups = groupsRaw.map(String).filter((g) => g.trim() !== '');
  if (v.disabled !== undefined && typeof v.disabled !== 'boolean') problems.push(`${place([...at, 'disabled'])}: must be true or false`);
  let disabled = v.disabled === true;
  const problem = password === '' ? null : unusableHash(password);
  const supported = password !== '' && problem === null;
  if (problem !== null) {
    disabled = true;
    disabledForHash.push(username);
    report.push(`user ${username}: imported DISABLED: ${problem} (set a new password with portcullis user add)`);
  }
  return { username, name: text('displayname'), email: text('email'), groups, password: supported ? password : null, disabled, totpSecret: null };
}

/** Reads the user database document (`users:` mapping username → fields). */
export function parseAutheliaUsers(doc: unknown, place: PlaceOf): Result<UsersImport, string[]> {
  const problems: string[] = [];
  const report: string[] = [];
  const disabledForHash: string[] = [];
  if (!isRecord(doc)) return err([`${place([])}: must be a mapping with a users: section`]);
  for (const k of Object.keys(doc)) if (k !== 'users') problems.push(`${place([k])}: unknown key "${k}" (known: users)`);
  if (!isRecord(doc.users)) return err([...problems, `${place(['users'])}: must be a mapping of username to account`]);
  const accounts: ImportedAccount[] = [];
  for (const [username, v] of Object.entries(doc.users)) {
    const account = readAccount(username, v, place, problems, report, disabledForHash);
    if (account !== null) accounts.push(account);
  }
  return problems.length > 0 ? err(problems) : ok({ accounts, report, disabledForHash });
}

export interface TotpImport {
  readonly accounts: readonly ImportedAccount[];
  readonly report: readonly string[];
}

/**
 * Applies TOTP export lines (one `otpauth://totp/Issuer:user?secret=…` URI a line; blank lines and
 * `#` comments skipped). Only SHA1, 30-second, 6-digit secrets carry over; anything else, an unknown
 * user or a malformed line is named in the report (a malformed line with its number is a problem).
 */
export function applyTotpUris(accounts: readonly ImportedAccount[], text: string, file: string): Result<TotpImport, string[]> {
  const problems: string[] = [];
  const report: string[] = [];
  const secrets = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file}: line ${i + 1}`;
    let url: URL;
    try {
      url = new URL(line);
    } catch {
      problems.push(`${where}: not an otpauth:// URI`);
      return;
    }
    if (url.protocol !== 'otpauth:' || url.host !== 'totp') {
      problems.push(`${where}: not an otpauth://totp/ URI`);
      return;
    }
    const label = decodeURIComponent(url.pathname.replace(/^\//, ''));
    const user = label.includes(':') ? label.slice(label.indexOf(':') + 1).trim() : label.trim();
    const secret = (url.searchParams.get('secret') ?? '').toUpperCase().replace(/=+$/, '');
    if (!/^[A-Z2-7]{16,}$/.test(secret)) {
      problems.push(`${where}: the secret is not base32 of at least 80 bits`);
      return;
    }
    const algorithm = (url.searchParams.get('algorithm') ?? 'SHA1').toUpperCase();
    const digits = url.searchParams.get('digits') ?? '6';
    const period = url.searchParams.get('period') ?? '30';
    const account = accounts.find((a) => a.username === user) ?? accounts.find((a) => a.username.toLowerCase() === user.toLowerCase());
    if (account === undefined) {
      report.push(`TOTP line ${i + 1}: no account "${user}" in the users file: not carried over`);
      return;
    }
    if (algorithm !== 'SHA1' || digits !== '6' || period !== '30') {
      report.push(
        `TOTP line ${i + 1}: ${account.username}'s secret uses ${algorithm}/${period} s/${digits} digits; Portcullis verifies SHA1/30 s/6 digits only: not carried over (enrol again with portcullis totp enroll)`,
      );
      return;
    }
    secrets.set(account.username, secret);
  });
  if (problems.length > 0) return err(problems);
  for (const username of secrets.keys()) report.push(`user ${username}: TOTP secret carried over`);
  return ok({ accounts: accounts.map((a) => (secrets.has(a.username) ? { ...a, totpSecret: secrets.get(a.username) ?? null } : a)), report });
}

/**
 * The Portcullis YAML users file for these accounts (every value double-quoted: read as written).
 * An account whose hash did not carry over gets `unusableHash()` (a bcrypt-shaped value no password
 * matches) and stays disabled.
 */
export function formatUsersYaml(accounts: readonly ImportedAccount[], unusableHash: () => string): string {
  const q = (s: string): string => JSON.stringify(s);
  const lines = ['# Written by portcullis import. Password hashes are kept as they were.', 'users:'];
  for (const a of accounts) {
    lines.push(`  - username: ${q(a.username)}`, `    password: ${q(a.password ?? unusableHash())}`);
    if (a.name !== null) lines.push(`    name: ${q(a.name)}`);
    if (a.email !== null) lines.push(`    email: ${q(a.email)}`);
    if (a.groups.length > 0) lines.push(`    groups: [${a.groups.map(q).join(', ')}]`);
    if (a.totpSecret !== null) lines.push(`    totp_secret: ${q(a.totpSecret)}`);
    if (a.disabled) lines.push('    disabled: true');
  }
  return `${lines.join('\n')}\n`;
}
