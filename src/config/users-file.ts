import { extname } from 'node:path';
import type { Node as YamlNode } from 'yaml';
import { localAccountEmail, PASSKEY_ONLY_CREDENTIAL, SERVICE_ACCOUNT_CREDENTIAL, type Account } from '../domain/account';
import { describeIdentityNameError, parseDisplayName, parseGroupName, parseUsername } from '../domain/identity-name';
import { readPasswordHash } from '../domain/password-hash';
import { parseUsersList, usernameProblem, type UsersListEntry } from '../domain/users-list';

/**
 * Hands over the `yaml` library when it is first needed: composition loads it (optional-modules.ts),
 * and only a file in the YAML form asks for it, so the line form never loads it.
 */
export type YamlLoader = () => typeof import('yaml');

/** One account of a users file; the YAML form can say more than a `USERS` line. */
export interface UsersFileEntry extends UsersListEntry {
  readonly email?: string;
  readonly name?: string;
  readonly groups?: readonly string[];
  /** A disabled account is known but cannot log in, and its sessions end. */
  readonly disabled?: boolean;
  /** A service account (issue 32): no password, no TOTP, no passkey; it acts only through its access tokens. */
  readonly service?: boolean;
}

export type UsersFileFormat = 'lines' | 'yaml';

export interface ParseUsersFileResult {
  readonly format: UsersFileFormat;
  readonly entries: UsersFileEntry[];
  /** Each names a line and the username where known, never a hash or a secret. */
  readonly problems: string[];
}

const BASE32 = /^[A-Z2-7]+=*$/;
const FIELDS = new Set(['username', 'password', 'email', 'name', 'groups', 'totp_secret', 'disabled', 'passkey_only', 'service']);

/**
 * Which of the two forms a users file is written in: `.yaml`/`.yml` files are YAML; otherwise a
 * file whose first meaningful line is `users:` (or a `---` document marker) is YAML, and anything
 * else is the `USERS` line format.
 */
export function detectUsersFileFormat(text: string, fileName: string): UsersFileFormat {
  const ext = extname(fileName).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    return /^users\s*:/.test(line) || line === '---' ? 'yaml' : 'lines';
  }
  return 'lines';
}

/** Parses a users file in either form (see {@link detectUsersFileFormat}), collecting every problem. */
export function parseUsersFile(text: string, fileName: string, yaml: YamlLoader): ParseUsersFileResult {
  const format = detectUsersFileFormat(text, fileName);
  if (format === 'lines') return { format, ...parseUsersList(text, 'line') };
  return { format, ...parseUsersYaml(text, yaml()) };
}

/**
 * The YAML form:
 * ```yaml
 * users:
 *   - username: alice
 *     password: $2b$10$...   # bcrypt hash, or Argon2: $argon2id$v=19$m=65536,t=3,p=4$...
 *     email: alice@example.com
 *     name: Alice Liddell
 *     groups: [admins, staff]
 *     totp_secret: JBSWY3DPEHPK3PXP
 *     disabled: false
 *   - username: carol
 *     passkey_only: true     # no password: signs in with a passkey (first one from `portcullis passkeys enrol`)
 *   - username: backup-bot
 *     service: true          # a machine: never logs in, acts with tokens from `portcullis tokens create`
 *     groups: [backups]
 * ```
 * Scalars are read as plain strings (YAML's failsafe schema), so `0123` stays `0123` and nothing
 * turns into a date or a number behind the writer's back.
 */
function parseUsersYaml(text: string, yaml: typeof import('yaml')): { entries: UsersFileEntry[]; problems: string[] } {
  const entries: UsersFileEntry[] = [];
  const problems: string[] = [];
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { schema: 'failsafe', lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const lineOf = (node: YamlNode | null | undefined): number => (node?.range ? lines.linePos(node.range[0]).line : 1);

  if (doc.errors.length > 0) {
    // yaml's messages quote the offending source; only its first sentence and position are kept.
    for (const error of doc.errors.slice(0, 5)) {
      const line = error.linePos?.[0]?.line ?? 1;
      problems.push(`line ${line}: invalid YAML (${error.message.split(/ at line |\n/)[0]})`);
    }
    return { entries, problems };
  }
  const root = doc.contents;
  if (root === null) return { entries, problems };
  if (!yaml.isMap(root)) return { entries, problems: ['line 1: expected a mapping with a "users:" list'] };
  for (const pair of root.items) {
    const key = String((pair.key as { value?: unknown } | null)?.value ?? pair.key);
    if (key !== 'users') problems.push(`line ${lineOf(pair.key as YamlNode)}: unknown top-level key "${printable(key)}" (expected only "users")`);
  }
  const list = doc.get('users', true) as YamlNode | undefined;
  if (list === undefined || list === null || (list as { value?: unknown }).value === '') return { entries, problems };
  if (!yaml.isSeq(list)) return { entries, problems: [...problems, `line ${lineOf(list)}: "users" must be a list`] };

  const seen = new Set<string>();
  list.items.forEach((item, index) => {
    const line = lineOf(item as YamlNode);
    if (!yaml.isMap(item)) {
      problems.push(`line ${line}: users[${index}] must be a mapping with username and password`);
      return;
    }
    // A bounded alias count keeps a hostile file from expanding into a huge structure.
    const value = item.toJS(doc, { maxAliasCount: 50 }) as Record<string, unknown>;
    const username = typeof value.username === 'string' ? value.username.trim() : '';
    const where = username === '' ? `line ${line}` : `line ${line} (${printable(username)})`;
    const before = problems.length;
    for (const key of Object.keys(value)) if (!FIELDS.has(key)) problems.push(`${where}: unknown field "${printable(key)}"`);
    const invalidName = username === '' ? null : usernameProblem(username);
    if (username === '' || invalidName !== null) problems.push(`${where}: username is missing or invalid${invalidName === null ? '' : ` (${invalidName})`}`);
    const passkeyOnly = flag(value.passkey_only);
    if (passkeyOnly === null) problems.push(`${where}: passkey_only must be true or false`);
    const service = flag(value.service);
    if (service === null) problems.push(`${where}: service must be true or false`);
    const disabled = flag(value.disabled);
    if (disabled === null) problems.push(`${where}: disabled must be true or false`);
    const hash = typeof value.password === 'string' ? value.password.trim() : '';
    const hasPassword = value.password !== undefined && value.password !== null && value.password !== '';
    if (service === true) {
      // A machine's account: a password beside the mark would be a way in nobody meant to leave open.
      if (hasPassword) problems.push(`${where}: a service account has no password (it acts with access tokens only)`);
      if (passkeyOnly === true) problems.push(`${where}: a service account is not passkey_only (it acts with access tokens only)`);
    } else if (passkeyOnly === true) {
      // No password at all: a hash beside the mark would be a password nobody could use, or one that works by mistake.
      if (hasPassword) problems.push(`${where}: a passkey_only account has no password`);
    } else if (disabled !== true || hasPassword) {
      // A disabled account may go without a password (one imported from a hash kind no check here
      // knows, say): it cannot log in, and enabling it asks for a hash first.
      const read = readPasswordHash(hash);
      if (!read.ok) problems.push(`${where}: ${read.problem}; make one with "portcullis user add"`);
    }
    const email = optionalString(value.email);
    const emailParsed = email ? parseUsername(email) : null;
    if (emailParsed !== null && !emailParsed.ok) problems.push(`${where}: email is not an e-mail address (${describeIdentityNameError(emailParsed.error)})`);
    else if (email === null || (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email))) problems.push(`${where}: email is not an e-mail address`);
    const name = optionalString(value.name);
    const nameParsed = name ? parseDisplayName(name) : null;
    if (name === null) problems.push(`${where}: name must be text of at most 256 characters`);
    else if (nameParsed !== null && !nameParsed.ok) problems.push(`${where}: name is invalid (${describeIdentityNameError(nameParsed.error)})`);
    const groups = groupList(value.groups);
    if (groups === null) problems.push(`${where}: groups must be a list of names without commas`);
    else if (typeof groups === 'string') problems.push(`${where}: groups must be a list of names (${groups})`);
    const secretRaw = optionalString(value.totp_secret);
    const secret = secretRaw?.replace(/\s+/g, '').toUpperCase();
    if (secretRaw === null || (secret !== undefined && secret !== '' && (!BASE32.test(secret) || secret.length < 16))) {
      problems.push(`${where}: totp_secret must be base32, at least 16 characters`);
    }
    if (passkeyOnly === true && secret !== undefined && secret !== '')
      problems.push(`${where}: a passkey_only account has no TOTP secret (the passkey is both factors)`);
    if (service === true && secret !== undefined && secret !== '') problems.push(`${where}: a service account has no TOTP secret (it never logs in)`);
    if (username !== '' && seen.has(username.toLowerCase())) problems.push(`${where}: duplicate username`);
    seen.add(username.toLowerCase());
    if (
      problems.length > before ||
      email === null ||
      name === null ||
      groups === null ||
      typeof groups === 'string' ||
      disabled === null ||
      passkeyOnly === null ||
      service === null
    )
      return;
    entries.push({
      username,
      hash: passkeyOnly || service ? '' : hash,
      ...(passkeyOnly ? { passkeyOnly: true } : {}),
      ...(service ? { service: true } : {}),
      ...(secret ? { totpSecret: secret } : {}),
      ...(email !== undefined ? { email: email.toLowerCase() } : {}),
      ...(name !== undefined && name !== '' ? { name } : {}),
      ...(groups !== undefined ? { groups } : {}),
      ...(disabled ? { disabled: true } : {}),
    });
  });
  return { entries, problems };
}

/** undefined when absent, null when present but not a string. */
function optionalString(v: unknown): string | undefined | null {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v.trim() : null;
}

/** The groups; undefined when absent, null when not a list of strings, a reason (string) when a name is invalid. */
function groupList(v: unknown): string[] | undefined | null | string {
  if (v === undefined || v === null || v === '') return undefined;
  const raw = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : null;
  if (raw === null || raw.some((g) => typeof g !== 'string')) return null;
  const groups = (raw as string[]).map((g) => g.trim()).filter((g) => g !== '');
  for (const g of groups) {
    const parsed = parseGroupName(g);
    if (!parsed.ok) return parsed.error.code === 'comma' ? null : describeIdentityNameError(parsed.error);
  }
  return groups;
}

function flag(v: unknown): boolean | null {
  if (v === undefined || v === null || v === '') return false;
  if (typeof v !== 'string') return null;
  const s = v.trim().toLowerCase();
  if (['true', 'yes', 'on'].includes(s)) return true;
  if (['false', 'no', 'off'].includes(s)) return false;
  return null;
}

/** Keeps problem texts on one printable line whatever a file contains. */
function printable(s: string): string {
  const clean = s.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}...` : clean;
}

/** The account a users-file entry describes; missing e-mail and name are derived as for `USERS`. */
export function accountFromFileEntry(entry: UsersFileEntry, domain: string): Account {
  const at = entry.username.indexOf('@');
  return {
    username: entry.username,
    email: entry.email ?? localAccountEmail(entry.username, domain),
    name: entry.name ?? (at > 0 ? entry.username.slice(0, at) : entry.username),
    groups: entry.groups ?? [],
    totpSecret: entry.totpSecret,
    ...(entry.service === true
      ? { credentialVersion: SERVICE_ACCOUNT_CREDENTIAL, service: true }
      : entry.passkeyOnly === true
        ? { credentialVersion: PASSKEY_ONLY_CREDENTIAL, passkeyOnly: true }
        : { credentialVersion: entry.hash }),
  };
}
