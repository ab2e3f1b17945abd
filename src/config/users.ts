import { parseUsersList, type UsersListEntry } from '../domain/users-list';
import type { EnvReader } from './env';
import { options, text } from './option-spec';
import { isExampleTotpSecret, isPlaceholderHash } from './placeholders';
import { cannotRead } from './unreadable-file';
import { parseUsersFile, type UsersFileEntry } from './users-file';
import { LDAP_OPTIONS } from './ldap';

/** The users section: the accounts of USERS and USERS_FILE (LDAP and OAuth have sections of their own). */

export const USERS_OPTIONS = options({
  USERS: {
    group: 'gateway',
    parse: text,
    fallback: undefined,
    configures: true,
    doc: {
      default: '—',
      meaning:
        '`username:password-hash[:base32-totp-secret]` (bcrypt, or Argon2id/Argon2i as Authelia writes them), comma-separated (file: one per line, `#` comments, or the YAML form; reloaded when it changes). `$$` stands for `$` (docker-compose). A username may be an e-mail address. LDAP: see [LDAP](#ldap)',
    },
  },
  USERS_FILE: { group: 'gateway', parse: text, fallback: undefined, configures: true, doc: { sameRowAs: 'USERS' } },
});

export interface UsersConfig {
  /** Accounts of the `USERS` variable. */
  readonly users: readonly UsersListEntry[];
  /** `USERS_FILE` and the accounts it held at start-up (it is watched and reloaded afterwards). */
  readonly usersFile: { readonly path: string; readonly entries: readonly UsersFileEntry[] } | null;
}

/** USERS, and USERS_FILE read once, so that its problems join all the others at start-up; afterwards its store watches and reloads it. */
export function readUsers(r: EnvReader, yaml: () => typeof import('yaml')): UsersConfig {
  const users: UsersListEntry[] = [];
  const usersVar = r.option(USERS_OPTIONS, 'USERS');
  if (usersVar !== undefined) {
    const parsed = parseUsersList(usersVar, 'comma');
    users.push(...parsed.entries);
    r.problems.push(...parsed.problems.map((p) => `USERS ${p}`));
    r.problems.push(...exampleCredentials('USERS', parsed.entries));
  }
  let usersFile: UsersConfig['usersFile'] = null;
  const usersFilePath = r.option(USERS_OPTIONS, 'USERS_FILE');
  if (usersFilePath !== undefined) {
    try {
      const parsed = parseUsersFile(r.readFile(usersFilePath), usersFilePath, yaml);
      usersFile = { path: usersFilePath, entries: parsed.entries };
      // At start-up a name in both is most likely a mistake; a later reload can only be warned about.
      const inUsers = new Set(users.map((u) => u.username.toLowerCase()));
      for (const entry of parsed.entries)
        if (inUsers.has(entry.username.toLowerCase())) r.problems.push(`USERS_FILE: duplicate username ${entry.username} (also in USERS)`);
      r.problems.push(...parsed.problems.map((p) => `USERS_FILE ${p}`));
      r.problems.push(...exampleCredentials('USERS_FILE', parsed.entries));
    } catch (e) {
      r.problems.push(`USERS_FILE: ${cannotRead(usersFilePath, e)}`);
    }
  }
  return { users, usersFile };
}

/** Outside the demo, some way to log in: USERS, USERS_FILE, LDAP_ADDRESS or an OAuth provider. */
export function checkSomeWayToLogIn(r: EnvReader, demo: boolean, configuredProviders: readonly string[]): void {
  const anyStore =
    r.option(USERS_OPTIONS, 'USERS') !== undefined ||
    r.option(USERS_OPTIONS, 'USERS_FILE') !== undefined ||
    r.option(LDAP_OPTIONS, 'LDAP_ADDRESS') !== undefined;
  if (!demo && !anyStore && configuredProviders.length === 0) {
    r.problems.push(
      'no way to log in: set USERS, USERS_FILE or LDAP_ADDRESS, or configure an OAuth provider (GITHUB_, GOOGLE_, GENERIC_ or OAUTH_PROVIDERS_<ID>_CLIENT_ID and _SECRET)',
    );
  }
}

/** Accounts whose hash or TOTP secret is one from the examples: named by account, never by value. */
function exampleCredentials(option: string, entries: readonly (UsersListEntry & { readonly service?: boolean })[]): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    // Passkey-only and service accounts have no hash to be a placeholder, nor has a disabled one without a password.
    if (entry.passkeyOnly !== true && entry.service !== true && entry.hash !== '' && isPlaceholderHash(entry.hash)) {
      problems.push(
        `${option}: ${entry.username}'s password hash is a placeholder copied from the examples: make a real one with "portcullis user add ${entry.username}"`,
      );
    }
    if (entry.totpSecret !== undefined && isExampleTotpSecret(entry.totpSecret)) {
      problems.push(
        `${option}: ${entry.username}'s TOTP secret is the example one from the documentation: make a real one with "portcullis totp enroll ${entry.username}"`,
      );
    }
  }
  return problems;
}
