import { filterTemplateProblem } from '../domain/ldap-filter';
import type { EnvReader } from './env';
import type { ConfigLibraries } from './libraries';
import { boolean, integer, oneOf, options, text } from './option-spec';
import { cannotRead } from './unreadable-file';

/** The ldap section: the directory people log in with (LDAP_ADDRESS and the options that need it). */

export const DEFAULT_LDAP_SEARCH_FILTER = '(uid=%s)';
export const DEFAULT_LDAP_GROUP_FILTER = '(|(member=%d)(uniqueMember=%d)(memberUid=%s))';

export const LDAP_OPTIONS = options({
  LDAP_ADDRESS: {
    group: 'ldap',
    parse: text,
    fallback: undefined,
    configures: true,
    doc: {
      default: '—',
      meaning: '`ldap://host[:389]` (with `LDAP_START_TLS=true` for TLS) or `ldaps://host[:636]`; setting it enables the directory',
    },
  },
  LDAP_BIND_DN: {
    group: 'ldap',
    parse: text,
    fallback: undefined,
    doc: { label: '`LDAP_BIND_DN` / `LDAP_BIND_PASSWORD` (`_FILE`)', default: 'anonymous', meaning: 'service account used for searches' },
  },
  LDAP_BIND_PASSWORD: { group: 'ldap', parse: text, fallback: undefined, file: true, secret: true, doc: { sameRowAs: 'LDAP_BIND_DN' } },
  LDAP_BASE_DN: { group: 'ldap', parse: text, fallback: undefined, doc: { default: 'required', meaning: 'where people are searched (subtree)' } },
  LDAP_SEARCH_FILTER: {
    group: 'ldap',
    parse: text,
    fallback: DEFAULT_LDAP_SEARCH_FILTER,
    doc: {
      default: '`(uid=%s)`',
      meaning:
        '`%s` is the login as typed, escaped per RFC 4515; e.g. `(&(objectClass=person)(\\|(uid=%s)(mail=%s)))` to allow e-mail logins, or `(sAMAccountName=%s)` for Active Directory',
    },
  },
  LDAP_USERNAME_ATTRIBUTE: { group: 'ldap', parse: text, fallback: 'uid', doc: { default: '`uid`', meaning: 'becomes `Remote-User`' } },
  LDAP_MAIL_ATTRIBUTE: {
    group: 'ldap',
    parse: text,
    fallback: 'mail',
    doc: { default: '`mail`', meaning: 'becomes `Remote-Email` (default `<username>@<cookie domain>`)' },
  },
  LDAP_NAME_ATTRIBUTE: {
    group: 'ldap',
    parse: text,
    fallback: 'displayName',
    doc: { default: '`displayName`', meaning: 'becomes `Remote-Name` (falls back to `cn`)' },
  },
  LDAP_GROUP_ATTRIBUTE: {
    group: 'ldap',
    parse: text,
    fallback: undefined,
    doc: {
      default: '—',
      meaning: 'attribute of the person listing groups, e.g. `memberOf`; DNs are shown by their first value (`cn=admins,ou=groups,…` → `admins`)',
    },
  },
  LDAP_GROUP_BASE_DN: { group: 'ldap', parse: text, fallback: undefined, doc: { default: '—', meaning: 'also search groups here…' } },
  LDAP_GROUP_FILTER: {
    group: 'ldap',
    parse: text,
    fallback: DEFAULT_LDAP_GROUP_FILTER,
    doc: { default: '`(\\|(member=%d)(uniqueMember=%d)(memberUid=%s))`', meaning: "…with this filter: `%d` the person's DN, `%s` the username" },
  },
  LDAP_GROUP_NAME_ATTRIBUTE: { group: 'ldap', parse: text, fallback: 'cn', doc: { default: '`cn`', meaning: "the group's name in `Remote-Groups`" } },
  LDAP_NESTED_GROUPS: {
    group: 'ldap',
    parse: oneOf(['off', 'ad', 'recursive'] as const),
    fallback: 'off',
    doc: {
      default: '`off`',
      meaning:
        "groups of groups: `ad` asks Active Directory for every group the person is in at any depth (`LDAP_MATCHING_RULE_IN_CHAIN`, under `LDAP_GROUP_BASE_DN` or else `LDAP_BASE_DN`; replaces `LDAP_GROUP_FILTER`); `recursive` (any directory) walks up from the person's groups through `member`/`uniqueMember`, at most 8 levels and 1,000 groups ([nested groups](user-stores.md#nested-groups))",
    },
  },
  LDAP_TOTP_ATTRIBUTE: {
    group: 'ldap',
    parse: text,
    fallback: undefined,
    doc: { default: '—', meaning: "attribute holding a person's base32 TOTP secret; when set and filled, the account needs a code after its password" },
  },
  LDAP_START_TLS: {
    group: 'ldap',
    parse: boolean,
    fallback: false,
    doc: {
      default: '`false`',
      meaning:
        'on `ldap://`, upgrade every connection with StartTLS before any bind, the certificate verified; if the upgrade is refused or fails, the directory counts as unavailable (503) and no password is sent: never a plain-text fallback. Not with `ldaps://` (already TLS)',
    },
  },
  LDAP_CA_FILE: {
    group: 'ldap',
    parse: text,
    fallback: undefined,
    doc: {
      default: "— (the system's CAs)",
      meaning: "PEM file of the CA that signed the directory's certificate (a private CA), for `ldaps://` or `LDAP_START_TLS`; read at start-up",
    },
  },
  LDAP_INSECURE: {
    group: 'ldap',
    parse: boolean,
    fallback: false,
    doc: { default: '`false`', meaning: 'accept any certificate on `ldaps://` or StartTLS (self-signed test servers only; prefer `LDAP_CA_FILE`)' },
  },
  LDAP_TIMEOUT: {
    group: 'ldap',
    parse: integer(1, 60),
    fallback: 5,
    doc: { default: '`5`', meaning: 'seconds, 1–60: bound on connecting and on every operation' },
  },
  LDAP_PASSWORD_CHANGE: {
    group: 'ldap',
    parse: boolean,
    fallback: false,
    doc: {
      default: '`false`',
      meaning:
        "let directory accounts change their own password on the account page, through the password modify extended operation (RFC 3062) bound as the person with the current password: the directory's access rules must let a person write their own `userPassword`, and its password policy applies ([changing your own password](user-stores.md#changing-your-own-password))",
    },
  },
  LDAP_CACHE_TTL: {
    group: 'ldap',
    parse: integer(0, 3600),
    fallback: 60,
    doc: {
      default: '`60`',
      meaning:
        "seconds, 0–3600: the re-check interval of sessions: how long a session check may reuse the directory's answer, so how long a deletion, password or group change may take to reach existing sessions ([session checks](user-stores.md#ldap))",
    },
  },
  LDAP_ACCOUNT_CHECK_INTERVAL: {
    group: 'ldap',
    parse: integer(0, 3600),
    fallback: 1,
    doc: {
      default: '`1`',
      meaning:
        "seconds, 0–3600 (0 off): how often the directory is asked whether the people who hold live sessions or access tokens are still there (one search per 50 of them); one deleted, or no longer matched by `LDAP_SEARCH_FILTER`, is signed out everywhere: sessions, tokens, apps' grants and back-channel logouts ([removed accounts](user-stores.md#removed-and-disabled-accounts)). A directory that does not answer ends nothing",
    },
  },
});

/** The directory as the LDAP user store needs it (its settings, but for the test-only nesting limits). */
export interface LdapSettings {
  /** `ldap://host[:port]` or `ldaps://host[:port]`. */
  readonly url: string;
  /** Service account for searches; absent means anonymous searches. */
  readonly bindDn?: string;
  readonly bindPassword?: string;
  readonly baseDn: string;
  /** Filter template; `%s` is replaced by the escaped login. */
  readonly searchFilter: string;
  readonly usernameAttribute: string;
  readonly mailAttribute: string;
  /** Display name; `cn` is used when the entry has none. */
  readonly nameAttribute: string;
  /** Attribute of the user entry that lists groups (e.g. `memberOf`); DNs become their first RDN's value. */
  readonly groupAttribute?: string;
  /** Where to search for groups that name the user; absent means no group search. */
  readonly groupBaseDn?: string;
  /** Group filter template: `%s` the username, `%d` the user's DN. */
  readonly groupFilter: string;
  readonly groupNameAttribute: string;
  /** Attribute holding a person's base32 TOTP secret; absent means directory accounts have no TOTP. */
  readonly totpAttribute?: string;
  /** On `ldap://`: StartTLS before anything else, never a plain-text fallback. */
  readonly startTls: boolean;
  /** PEM certificate(s) of the CA that signed the directory's certificate (`LDAP_CA_FILE`); absent: the system's CAs. */
  readonly ca?: string;
  /** Accept any server certificate (self-signed test servers). */
  readonly insecure: boolean;
  /** How group memberships that come through other groups are found (`LDAP_NESTED_GROUPS`). */
  readonly nestedGroups: 'off' | 'ad' | 'recursive';
  /** Bound on connecting and on each operation, milliseconds. */
  readonly timeoutMs: number;
  /** How long a session check may reuse an earlier answer, milliseconds. */
  readonly cacheTtlMs: number;
  /** How often the accounts with live sessions or tokens are looked for in the directory, milliseconds; 0: never (issue 35). */
  readonly accountCheckIntervalMs: number;
  /** People may change their own password on the account page (LDAP_PASSWORD_CHANGE, issue 36); absent: false. */
  readonly passwordChange?: boolean;
}

export interface LdapConfig {
  /** The LDAP directory, when `LDAP_ADDRESS` is set. */
  readonly ldap: LdapSettings | null;
}

const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;

type AttributeOption =
  'LDAP_USERNAME_ATTRIBUTE' | 'LDAP_MAIL_ATTRIBUTE' | 'LDAP_NAME_ATTRIBUTE' | 'LDAP_GROUP_ATTRIBUTE' | 'LDAP_GROUP_NAME_ATTRIBUTE' | 'LDAP_TOTP_ATTRIBUTE';

/** The LDAP options, checked together; null when LDAP_ADDRESS is unset (other LDAP_ options are then an error). */
export function readLdap(r: EnvReader, libraries: Pick<ConfigLibraries, 'parseLdapFilter'>): LdapConfig {
  const address = r.option(LDAP_OPTIONS, 'LDAP_ADDRESS');
  if (address === undefined) {
    const stray = (Object.keys(LDAP_OPTIONS) as (keyof typeof LDAP_OPTIONS)[])
      .flatMap((name) => ('file' in LDAP_OPTIONS[name] ? [name, `${name}_FILE`] : [name]))
      .filter((name) => r.get(name) !== undefined);
    if (stray.length > 0) r.problems.push(`${stray.join(', ')} set but LDAP_ADDRESS is not`);
    return { ldap: null };
  }
  const before = r.problems.length;
  const url = ldapUrl(r, address);
  const baseDn = r.option(LDAP_OPTIONS, 'LDAP_BASE_DN');
  if (baseDn === undefined) r.problems.push('LDAP_BASE_DN is required with LDAP_ADDRESS (e.g. dc=example,dc=com)');
  else if (!baseDn.includes('=')) r.problems.push('LDAP_BASE_DN must be a DN such as dc=example,dc=com');
  const bindDn = r.option(LDAP_OPTIONS, 'LDAP_BIND_DN');
  // Keep the password exactly as written, apart from the newline most files end with.
  const bindPassword = r.fromFile('LDAP_BIND_PASSWORD')?.replace(/\r?\n$/, '');
  if (bindDn !== undefined && (bindPassword === undefined || bindPassword === '') && !r.unreadable('LDAP_BIND_PASSWORD'))
    r.problems.push('LDAP_BIND_PASSWORD (or LDAP_BIND_PASSWORD_FILE) is required with LDAP_BIND_DN');
  if (bindDn === undefined && bindPassword !== undefined) r.problems.push('LDAP_BIND_PASSWORD is set but LDAP_BIND_DN is not');
  const { searchFilter, groupBaseDn, groupFilter } = ldapFilters(r, libraries.parseLdapFilter);
  const startTls = r.option(LDAP_OPTIONS, 'LDAP_START_TLS');
  if (startTls && url.startsWith('ldaps:')) r.problems.push('LDAP_START_TLS is for ldap:// addresses: ldaps:// is TLS from the start (drop one of them)');
  const ca = ldapCa(r, url, startTls);
  const nestedGroups = r.option(LDAP_OPTIONS, 'LDAP_NESTED_GROUPS');
  if (nestedGroups === 'ad' && r.get('LDAP_GROUP_FILTER') !== undefined)
    r.problems.push(
      'LDAP_GROUP_FILTER and LDAP_NESTED_GROUPS=ad together: ad searches groups with its own filter (member:1.2.840.113556.1.4.1941:=<DN>); drop one',
    );
  if (nestedGroups === 'recursive' && r.option(LDAP_OPTIONS, 'LDAP_GROUP_ATTRIBUTE') === undefined && groupBaseDn === undefined)
    r.problems.push("LDAP_NESTED_GROUPS=recursive needs the person's own groups first: set LDAP_GROUP_ATTRIBUTE (e.g. memberOf) or LDAP_GROUP_BASE_DN");
  const attribute = (name: AttributeOption): string | undefined => {
    const value: string | undefined = r.option(LDAP_OPTIONS, name);
    const example: string | undefined = LDAP_OPTIONS[name].fallback;
    if (value !== undefined && !ATTRIBUTE.test(value)) r.problems.push(`${name} must be an attribute name such as ${example ?? 'memberOf'}`);
    return value;
  };
  const settings: LdapSettings = {
    url,
    bindDn,
    bindPassword,
    baseDn: baseDn ?? '',
    searchFilter,
    usernameAttribute: attribute('LDAP_USERNAME_ATTRIBUTE') as string,
    mailAttribute: attribute('LDAP_MAIL_ATTRIBUTE') as string,
    nameAttribute: attribute('LDAP_NAME_ATTRIBUTE') as string,
    groupAttribute: attribute('LDAP_GROUP_ATTRIBUTE'),
    groupBaseDn,
    groupFilter,
    groupNameAttribute: attribute('LDAP_GROUP_NAME_ATTRIBUTE') as string,
    totpAttribute: attribute('LDAP_TOTP_ATTRIBUTE'),
    startTls,
    ...(ca !== undefined ? { ca } : {}),
    insecure: r.option(LDAP_OPTIONS, 'LDAP_INSECURE'),
    nestedGroups,
    timeoutMs: r.option(LDAP_OPTIONS, 'LDAP_TIMEOUT') * 1000,
    cacheTtlMs: r.option(LDAP_OPTIONS, 'LDAP_CACHE_TTL') * 1000,
    accountCheckIntervalMs: r.option(LDAP_OPTIONS, 'LDAP_ACCOUNT_CHECK_INTERVAL') * 1000,
    passwordChange: r.option(LDAP_OPTIONS, 'LDAP_PASSWORD_CHANGE'),
  };
  if (r.problems.length !== before) return { ldap: null };
  if (settings.bindPassword !== undefined) r.placeholder('LDAP_BIND_PASSWORD', settings.bindPassword, "use the bind account's real password");
  return { ldap: settings };
}

/** LDAP_ADDRESS as `ldap[s]://host[:port]`; the address as given when it is not one (the problem reported). */
function ldapUrl(r: EnvReader, address: string): string {
  try {
    const parsed = new URL(address);
    if (parsed.protocol !== 'ldap:' && parsed.protocol !== 'ldaps:') r.problems.push('LDAP_ADDRESS must start with ldap:// or ldaps://');
    else if (
      parsed.hostname === '' ||
      parsed.username !== '' ||
      parsed.password !== '' ||
      parsed.search !== '' ||
      parsed.hash !== '' ||
      (parsed.pathname !== '' && parsed.pathname !== '/')
    ) {
      r.problems.push('LDAP_ADDRESS must be ldap[s]://host[:port] with nothing after the port');
    } else return `${parsed.protocol}//${parsed.host}`;
  } catch {
    r.problems.push('LDAP_ADDRESS is not a valid URL (e.g. ldaps://ldap.example.com)');
  }
  return address;
}

/** LDAP_SEARCH_FILTER, LDAP_GROUP_BASE_DN and LDAP_GROUP_FILTER, each filter parsed with `parseFilter`. */
function ldapFilters(r: EnvReader, parseFilter: (filter: string) => unknown): { searchFilter: string; groupBaseDn: string | undefined; groupFilter: string } {
  const searchFilter = r.option(LDAP_OPTIONS, 'LDAP_SEARCH_FILTER');
  const searchProblem = filterTemplateProblem(searchFilter, 's', parseFilter);
  if (searchProblem !== null) r.problems.push(`LDAP_SEARCH_FILTER ${searchProblem}`);
  const groupBaseDn = r.option(LDAP_OPTIONS, 'LDAP_GROUP_BASE_DN');
  const groupFilter = r.option(LDAP_OPTIONS, 'LDAP_GROUP_FILTER');
  if (r.get('LDAP_GROUP_FILTER') !== undefined && groupBaseDn === undefined) r.problems.push('LDAP_GROUP_FILTER needs LDAP_GROUP_BASE_DN');
  const groupProblem = filterTemplateProblem(groupFilter, 'sd', parseFilter);
  if (groupProblem !== null) r.problems.push(`LDAP_GROUP_FILTER ${groupProblem}`);
  if (groupBaseDn !== undefined && !groupBaseDn.includes('=')) r.problems.push('LDAP_GROUP_BASE_DN must be a DN such as ou=groups,dc=example,dc=com');
  return { searchFilter, groupBaseDn, groupFilter };
}

/** LDAP_CA_FILE's PEM, read now; undefined when unset or unreadable (the problem reported). */
function ldapCa(r: EnvReader, url: string, startTls: boolean): string | undefined {
  const caFile = r.option(LDAP_OPTIONS, 'LDAP_CA_FILE');
  if (caFile === undefined) return undefined;
  let ca: string | undefined;
  if (!startTls && !url.startsWith('ldaps:'))
    r.problems.push('LDAP_CA_FILE needs TLS: set LDAP_START_TLS=true, or use an ldaps:// LDAP_ADDRESS (on plain ldap:// it would never be used)');
  if (r.option(LDAP_OPTIONS, 'LDAP_INSECURE'))
    r.problems.push('LDAP_CA_FILE and LDAP_INSECURE together: LDAP_INSECURE turns verification off, so the CA would be ignored (drop LDAP_INSECURE)');
  try {
    ca = r.readFile(caFile);
  } catch (e) {
    r.problems.push(`LDAP_CA_FILE: ${cannotRead(caFile, e)}`);
  }
  if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----'))
    r.problems.push(`LDAP_CA_FILE: ${caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return ca;
}

export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** How the directory connection is protected, for `config check` and the start-up log; never a secret. */
export function describeLdapTls(ldap: LdapSettings): string {
  const trust = ldap.insecure
    ? 'certificate NOT verified (LDAP_INSECURE)'
    : ldap.ca !== undefined
      ? 'certificate verified against LDAP_CA_FILE'
      : "certificate verified against the system's CAs";
  if (ldap.url.startsWith('ldaps:')) return `TLS (ldaps://), ${trust}`;
  if (ldap.startTls) return `StartTLS required (no plain-text fallback), ${trust}`;
  return 'no TLS: passwords cross the network in plain text (set LDAP_START_TLS=true or use ldaps://)';
}
