import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseUsersList, type UsersListEntry } from '../adapters/users/users-list';
import { parseUsersFile, type UsersFileEntry } from '../adapters/users/users-file';
import { filterTemplateProblem } from '../adapters/users/ldap-filter';
import type { LdapUserStoreSettings } from '../adapters/users/ldap-user-store';
import { buildTrustedProxies } from '../adapters/http/client-address';
import { loadAccessRulesFile } from '../adapters/rules/yaml-file-access-rules-source';
import type { LogLevel } from '../adapters/system/logger';
import { parseRedisUrl, type RedisTarget } from '../adapters/redis/redis-url';
import type { PostgresTarget } from '../adapters/postgres/postgres-database';
import { parseOAuthWhitelist } from '../domain/oauth-whitelist';
import type { GoogleOptions } from '../adapters/providers/google-oauth-provider';
import type { GenericOptions } from '../adapters/providers/generic-oauth-provider';
import { isExampleTotpSecret, isPlaceholderHash, placeholderMarkerIn } from './placeholders';

export interface GitHubConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Web base for the authorize and token endpoints (GitHub Enterprise: its host). */
  readonly url: string;
  /** REST API base. */
  readonly apiUrl: string;
}

/** The adapters' own options but for the timeout, which all providers share ({@link OAuthConfig}). */
export type GoogleConfig = Omit<GoogleOptions, 'timeoutMs'>;
export type GenericConfig = Omit<GenericOptions, 'timeoutMs'>;

/** The OAuth providers that are on (each present only when fully configured) and the rules for all of them. */
export interface OAuthConfig {
  readonly github?: GitHubConfig;
  readonly google?: GoogleConfig;
  readonly generic?: GenericConfig;
  /** `OAUTH_WHITELIST` as given ('' admits everyone); valid by construction. */
  readonly whitelist: string;
  /** Bound on every call to a provider. */
  readonly timeoutSeconds: number;
}

/** Everything Portcullis reads from its environment, validated. */
export interface Config {
  /** True when nothing was configured and a throwaway demo runs. */
  readonly demo: boolean;
  readonly port: number;
  readonly address: string;
  /** Public URL of the gateway, no trailing slash. */
  readonly appUrl: string;
  readonly secret: string;
  /** Accounts of the `USERS` variable. */
  readonly users: readonly UsersListEntry[];
  /** `USERS_FILE` and the accounts it held at start-up (it is watched and reloaded afterwards). */
  readonly usersFile: { readonly path: string; readonly entries: readonly UsersFileEntry[] } | null;
  /** The LDAP directory, when `LDAP_ADDRESS` is set. */
  readonly ldap: LdapUserStoreSettings | null;
  readonly sessionExpirySeconds: number;
  readonly cookieSecure: boolean;
  readonly loginMaxRetries: number;
  readonly loginTimeoutSeconds: number;
  readonly basicCacheTtlSeconds: number;
  readonly appTitle: string;
  readonly forgotPasswordMessage: string;
  readonly genericName: string;
  readonly disableContinue: boolean;
  readonly oauthAutoRedirect: string;
  readonly oauth: OAuthConfig;
  readonly trustedProxies: readonly string[];
  readonly logLevel: LogLevel;
  /** Shared state for several replicas; null keeps it in this process. */
  readonly redis: RedisTarget | null;
  /** Prepended to every Redis key and channel. */
  readonly redisPrefix: string;
  /**
   * `DATA_DIR` as given, or null when unset. Without Redis, the gateway process (`main`) keeps its
   * state in `portcullis.db` there (default `./data`; the demo uses a throwaway directory); a
   * gateway built as a library with no data dir keeps it in memory.
   */
  readonly dataDir: string | null;
  /**
   * Durable state in PostgreSQL, shared by several replicas (`DATABASE_URL` or `DATABASE_URL_FILE`,
   * `DATABASE_SSL`, `DATABASE_CA_FILE`); null: SQLite in DATA_DIR (or Redis alone). With Redis as
   * well, PostgreSQL keeps the revocations and Redis the short-lived state.
   */
  readonly database: PostgresTarget | null;
  /** Port of the separate Prometheus endpoint; null when metrics are off. */
  readonly metricsPort: number | null;
  readonly metricsAddress: string;
  /**
   * Port of the internal forward-auth listener; null keeps `/api/auth/*` on the public listener.
   * When set, the public listener answers `/api/auth/*` with 404.
   */
  readonly forwardAuthPort: number | null;
  readonly forwardAuthAddress: string;
  /** How long a SIGTERM waits for in-flight requests before giving up. */
  readonly shutdownTimeoutSeconds: number;
  /** Path of the YAML access rules file, or null for "every logged-in person passes every application". */
  readonly accessConfig: string | null;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/**
 * Only loopback by default: a trusted peer may name any client address in `X-Forwarded-For`, so
 * trusting the private ranges let every LAN, VPN or pod client choose its own address (and pass an
 * `ip.bypass`). A proxy elsewhere is named in `TRUSTED_PROXIES` by its own address.
 */
export const DEFAULT_TRUSTED_PROXIES = ['127.0.0.0/8', '::1/128'];
export const DEFAULT_FORGOT_PASSWORD_MESSAGE =
  'Accounts are configured by the administrator in the USERS environment variable. Ask them to reset your password.';

/** Options that, when any is set, mean "this gateway is configured": the demo never starts then. */
const CONFIGURING = [
  'APP_URL', 'SECRET', 'SECRET_FILE', 'USERS', 'USERS_FILE',
  'GITHUB_CLIENT_ID', 'GITHUB_CLIENT_ID_FILE', 'GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_ID_FILE', 'GENERIC_CLIENT_ID', 'GENERIC_CLIENT_ID_FILE',
  'LDAP_ADDRESS',
];

const GITHUB_URL = 'https://github.com';
const GITHUB_API_URL = 'https://api.github.com';
const GOOGLE_AUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const GOOGLE_USER_URL = 'https://openidconnect.googleapis.com/v1/userinfo';
const GENERIC_SCOPES = ['openid', 'email', 'profile'];

export const DEFAULT_LDAP_SEARCH_FILTER = '(uid=%s)';
export const DEFAULT_LDAP_GROUP_FILTER = '(|(member=%d)(uniqueMember=%d)(memberUid=%s))';
const LDAP_OPTIONS = [
  'LDAP_ADDRESS', 'LDAP_BIND_DN', 'LDAP_BIND_PASSWORD', 'LDAP_BIND_PASSWORD_FILE', 'LDAP_BASE_DN', 'LDAP_SEARCH_FILTER',
  'LDAP_USERNAME_ATTRIBUTE', 'LDAP_MAIL_ATTRIBUTE', 'LDAP_NAME_ATTRIBUTE', 'LDAP_GROUP_ATTRIBUTE', 'LDAP_GROUP_BASE_DN',
  'LDAP_GROUP_FILTER', 'LDAP_GROUP_NAME_ATTRIBUTE', 'LDAP_TOTP_ATTRIBUTE', 'LDAP_INSECURE', 'LDAP_TIMEOUT', 'LDAP_CACHE_TTL',
] as const;

/** Every option, for `--kebab-case` flags and for telling typos apart. */
export const OPTIONS = [
  'PORT', 'ADDRESS', 'APP_URL', 'SECRET', 'SECRET_FILE', 'USERS', 'USERS_FILE', 'SESSION_EXPIRY', 'COOKIE_SECURE',
  'LOGIN_MAX_RETRIES', 'LOGIN_TIMEOUT', 'BASIC_CACHE_TTL', 'APP_TITLE', 'FORGOT_PASSWORD_MESSAGE', 'GENERIC_NAME',
  'DISABLE_CONTINUE', 'OAUTH_AUTO_REDIRECT', 'TRUSTED_PROXIES', 'LOG_LEVEL', 'ACCESS_CONFIG',
  'REDIS_URL', 'REDIS_URL_FILE', 'REDIS_PREFIX', 'DATA_DIR', 'DATABASE_URL', 'DATABASE_URL_FILE', 'DATABASE_SSL', 'DATABASE_CA_FILE', 'METRICS_PORT', 'METRICS_ADDRESS', 'SHUTDOWN_TIMEOUT',
  'FORWARD_AUTH_PORT', 'FORWARD_AUTH_ADDRESS',
  'GITHUB_CLIENT_ID', 'GITHUB_CLIENT_ID_FILE', 'GITHUB_CLIENT_SECRET', 'GITHUB_CLIENT_SECRET_FILE', 'GITHUB_URL', 'GITHUB_API_URL',
  'GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_ID_FILE', 'GOOGLE_CLIENT_SECRET', 'GOOGLE_CLIENT_SECRET_FILE', 'GOOGLE_AUTH_URL', 'GOOGLE_TOKEN_URL', 'GOOGLE_USER_URL',
  'GENERIC_CLIENT_ID', 'GENERIC_CLIENT_ID_FILE', 'GENERIC_CLIENT_SECRET', 'GENERIC_CLIENT_SECRET_FILE',
  'GENERIC_AUTH_URL', 'GENERIC_TOKEN_URL', 'GENERIC_USER_URL', 'GENERIC_SCOPES',
  'OAUTH_WHITELIST', 'OAUTH_TIMEOUT', ...LDAP_OPTIONS,
] as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Reads `--kebab-case value` and `--kebab-case=value` flags into the matching UPPER_SNAKE names. */
export function flagsToEnv(argv: readonly string[]): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  const known = new Set<string>(OPTIONS);
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (m === null) {
      problems.push(`unexpected argument "${arg}"`);
      continue;
    }
    const name = m[1].toUpperCase().replace(/-/g, '_');
    if (!known.has(name)) {
      problems.push(`unknown option --${m[1]}`);
      if (m[2] === undefined && i + 1 < argv.length && !argv[i + 1].startsWith('--')) i += 1;
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[(i += 1)];
      else value = 'true';
    }
    env[name] = value;
  }
  return { env, problems };
}

export interface ConfigSources {
  readonly env: Env;
  readonly argv?: readonly string[];
  readonly readFile?: (path: string) => string;
}

/**
 * Parses and validates the configuration. Every problem is collected, so one start-up attempt
 * shows them all. Secrets never appear in problem texts.
 */
export function loadConfig(sources: ConfigSources): ConfigResult {
  const flags = flagsToEnv(sources.argv ?? []);
  const env: Env = { ...sources.env, ...flags.env };
  const readFile = sources.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  const problems = [...flags.problems];
  // Names the option and the marker found, never the value.
  const placeholder = (name: string, value: string | undefined, fix: string): boolean => {
    const marker = value === undefined ? null : placeholderMarkerIn(value);
    if (marker !== null) problems.push(`${name} is a placeholder copied from the examples (it contains "${marker}"): ${fix}`);
    return marker !== null;
  };
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const fromFile = (name: string): string | undefined => {
    const direct = get(name);
    const file = get(`${name}_FILE`);
    if (direct !== undefined && file !== undefined) problems.push(`set either ${name} or ${name}_FILE, not both`);
    if (file === undefined) return direct;
    try {
      return readFile(file);
    } catch {
      problems.push(`${name}_FILE: cannot read ${file}`);
      return undefined;
    }
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = get(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false`);
    return fallback;
  };

  const demo = CONFIGURING.every((name) => get(name) === undefined);
  const port = integer('PORT', 3000, 0, 65535);
  const address = get('ADDRESS') ?? '0.0.0.0';

  let appUrl = get('APP_URL') ?? (demo ? `http://localhost:${port}` : undefined);
  if (appUrl === undefined) problems.push('APP_URL is required (the public URL of the gateway, e.g. https://auth.example.com)');
  else {
    try {
      const url = new URL(appUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('APP_URL must be an http or https URL');
      else if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') problems.push('APP_URL must not carry credentials, a query or a fragment');
      else appUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      problems.push('APP_URL is not a valid URL');
    }
  }

  let secret = fromFile('SECRET')?.trim();
  if (secret === undefined) {
    if (demo) secret = randomBytes(32).toString('base64url');
    else problems.push('SECRET (or SECRET_FILE) is required: at least 32 random characters');
  } else if (secret.length < 32) problems.push('SECRET must be at least 32 characters long');
  else placeholder('SECRET', secret, 'make a real one, e.g. openssl rand -base64 48');

  const users: UsersListEntry[] = [];
  const usersVar = get('USERS');
  if (usersVar !== undefined) {
    const parsed = parseUsersList(usersVar, 'comma');
    users.push(...parsed.entries);
    problems.push(...parsed.problems.map((p) => `USERS ${p}`));
    problems.push(...exampleCredentials('USERS', parsed.entries));
  }
  // The file is read here once, so that its problems join all the others at start-up; afterwards
  // the store watches and reloads it.
  let usersFile: Config['usersFile'] = null;
  const usersFilePath = get('USERS_FILE');
  if (usersFilePath !== undefined) {
    try {
      const parsed = parseUsersFile(readFile(usersFilePath), usersFilePath);
      usersFile = { path: usersFilePath, entries: parsed.entries };
      // At start-up a name in both is most likely a mistake; a later reload can only be warned about.
      const inUsers = new Set(users.map((u) => u.username.toLowerCase()));
      for (const entry of parsed.entries) if (inUsers.has(entry.username.toLowerCase())) problems.push(`USERS_FILE: duplicate username ${entry.username} (also in USERS)`);
      problems.push(...parsed.problems.map((p) => `USERS_FILE ${p}`));
      problems.push(...exampleCredentials('USERS_FILE', parsed.entries));
    } catch {
      problems.push(`USERS_FILE: cannot read ${usersFilePath}`);
    }
  }
  const httpUrl = (name: string, fallback?: string): string | undefined => {
    const raw = get(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const url = new URL(raw);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.hash === '') return raw.replace(/\/+$/, '');
    } catch {
      // reported below
    }
    problems.push(`${name} must be an http(s) URL without credentials or fragment`);
    return undefined;
  };
  // A provider is on when its client id and secret are set; anything less is a mistake worth stopping for.
  const client = (prefix: string, required: readonly string[]): { clientId: string; clientSecret: string } | undefined => {
    const clientId = fromFile(`${prefix}_CLIENT_ID`)?.trim();
    const clientSecret = fromFile(`${prefix}_CLIENT_SECRET`)?.trim();
    const others = required.filter((name) => get(name) !== undefined);
    if (clientId === undefined && clientSecret === undefined) {
      if (others.length > 0) problems.push(`${others.join(', ')} set but ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET are not: configure the ${prefix.toLowerCase()} provider fully or not at all`);
      return undefined;
    }
    const missing = [
      ...(clientId === undefined || clientId === '' ? [`${prefix}_CLIENT_ID`] : []),
      ...(clientSecret === undefined || clientSecret === '' ? [`${prefix}_CLIENT_SECRET`] : []),
      ...required.filter((name) => get(name) === undefined),
    ];
    if (missing.length > 0) {
      problems.push(`the ${prefix.toLowerCase()} OAuth provider is half-configured: ${missing.join(', ')} missing`);
      return undefined;
    }
    // OAuth client credentials are printable ASCII (RFC 6749 appendix A); anything else is a paste accident.
    const unprintable = [[`${prefix}_CLIENT_ID`, clientId], [`${prefix}_CLIENT_SECRET`, clientSecret]].filter(([, v]) => !/^[\x20-\x7e]+$/.test(v as string));
    if (unprintable.length > 0) {
      problems.push(`${unprintable.map(([n]) => n).join(' and ')} may hold only printable ASCII characters`);
      return undefined;
    }
    if (placeholder(`${prefix}_CLIENT_SECRET`, clientSecret, `use the client secret your ${prefix.toLowerCase()} OAuth app shows`)) return undefined;
    return { clientId: clientId as string, clientSecret: clientSecret as string };
  };
  const githubClient = client('GITHUB', []);
  const github = githubClient && { ...githubClient, url: httpUrl('GITHUB_URL', GITHUB_URL) ?? '', apiUrl: httpUrl('GITHUB_API_URL', GITHUB_API_URL) ?? '' };
  const googleClient = client('GOOGLE', []);
  const google = googleClient && {
    ...googleClient,
    authUrl: httpUrl('GOOGLE_AUTH_URL', GOOGLE_AUTH_URL) ?? '',
    tokenUrl: httpUrl('GOOGLE_TOKEN_URL', GOOGLE_TOKEN_URL) ?? '',
    userUrl: httpUrl('GOOGLE_USER_URL', GOOGLE_USER_URL) ?? '',
  };
  const genericClient = client('GENERIC', ['GENERIC_AUTH_URL', 'GENERIC_TOKEN_URL', 'GENERIC_USER_URL']);
  const scopes = get('GENERIC_SCOPES')?.split(/[\s,]+/).filter((s) => s !== '') ?? GENERIC_SCOPES;
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) problems.push('GENERIC_SCOPES holds a character a scope may not contain');
  const generic = genericClient && {
    ...genericClient,
    authUrl: httpUrl('GENERIC_AUTH_URL') ?? '',
    tokenUrl: httpUrl('GENERIC_TOKEN_URL') ?? '',
    userUrl: httpUrl('GENERIC_USER_URL') ?? '',
    scopes,
  };
  const whitelist = get('OAUTH_WHITELIST') ?? '';
  const parsedWhitelist = parseOAuthWhitelist(whitelist);
  if (!parsedWhitelist.ok) problems.push(`OAUTH_WHITELIST ${parsedWhitelist.error}`);
  const configuredProviders = [github && 'github', google && 'google', generic && 'generic'].filter((p): p is string => typeof p === 'string');

  const ldap = ldapSettings(get, fromFile, integer, bool, problems);
  if (ldap?.bindPassword !== undefined) placeholder('LDAP_BIND_PASSWORD', ldap.bindPassword, "use the bind account's real password");
  const anyStore = usersVar !== undefined || usersFilePath !== undefined || get('LDAP_ADDRESS') !== undefined;
  if (!demo && !anyStore && configuredProviders.length === 0) {
    problems.push('no way to log in: set USERS, USERS_FILE or LDAP_ADDRESS, or configure an OAuth provider (GITHUB_, GOOGLE_ or GENERIC_CLIENT_ID and _SECRET)');
  }

  const appUrlIsHttps = appUrl?.startsWith('https://') ?? false;
  const cookieSecure = bool('COOKIE_SECURE', appUrlIsHttps);
  const oauthAutoRedirect = get('OAUTH_AUTO_REDIRECT')?.toLowerCase() ?? 'none';
  if (oauthAutoRedirect !== 'none' && !configuredProviders.includes(oauthAutoRedirect)) {
    problems.push(
      configuredProviders.length === 0
        ? 'OAUTH_AUTO_REDIRECT must be none: no OAuth provider is configured'
        : `OAUTH_AUTO_REDIRECT must be none or a configured provider (${configuredProviders.join(', ')})`,
    );
  }

  const trustedProxies = get('TRUSTED_PROXIES')?.split(/[\s,]+/).filter((s) => s !== '') ?? DEFAULT_TRUSTED_PROXIES;
  problems.push(...buildTrustedProxies(trustedProxies).problems);

  const logLevel = (get('LOG_LEVEL')?.toLowerCase() ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) problems.push('LOG_LEVEL must be one of debug, info, warn, error, silent');

  // REDIS_URL may hold a password: problems name the form, never the value.
  let redis: RedisTarget | null = null;
  const redisUrl = fromFile('REDIS_URL')?.trim();
  if (redisUrl !== undefined && redisUrl !== '') {
    const parsed = parseRedisUrl(redisUrl);
    if (parsed.ok) {
      redis = parsed.target;
      const passwords = [parsed.target.password, parsed.target.kind === 'sentinel' ? parsed.target.sentinelPassword : undefined];
      if (passwords.some((pw) => pw !== undefined && placeholderMarkerIn(pw) !== null)) {
        problems.push('REDIS_URL holds a placeholder password copied from the examples: set a real password on Redis and in REDIS_URL');
      }
    } else problems.push(parsed.problem);
  }
  const redisPrefix = get('REDIS_PREFIX') ?? 'portcullis:';
  if (!/^[A-Za-z0-9:_.{}-]{1,64}$/.test(redisPrefix)) problems.push('REDIS_PREFIX must be 1 to 64 characters of letters, digits and :_.{}-');
  const database = databaseSettings(get, fromFile, readFile, problems);
  const metricsPortRaw = integer('METRICS_PORT', 0, 0, 65535);
  // Forward auth on its own listener: the proxy asks there, and the public port never answers it.
  // Loopback by default, the proxy being on the same machine; a container or pod sets an
  // address its proxy can reach, and does not publish the port.
  const forwardAuthPortRaw = get('FORWARD_AUTH_PORT');
  const forwardAuthPort = forwardAuthPortRaw === undefined ? null : integer('FORWARD_AUTH_PORT', 0, 1, 65535);
  const forwardAuthAddress = get('FORWARD_AUTH_ADDRESS') ?? '127.0.0.1';
  if (forwardAuthPort === null && get('FORWARD_AUTH_ADDRESS') !== undefined) problems.push('FORWARD_AUTH_ADDRESS is set but FORWARD_AUTH_PORT is not');
  if (forwardAuthPort !== null && forwardAuthPort !== 0) {
    if (forwardAuthPort === port) problems.push('FORWARD_AUTH_PORT must differ from PORT: forward auth gets a listener of its own');
    if (forwardAuthPort === metricsPortRaw) problems.push('FORWARD_AUTH_PORT must differ from METRICS_PORT');
  }
  // The rules file is validated now, so that start-up lists its problems with all the others.
  const accessConfig = get('ACCESS_CONFIG') ?? null;
  if (accessConfig !== null) {
    const rules = loadAccessRulesFile(accessConfig, readFile);
    if (!rules.ok) problems.push(...rules.error.map((p) => `ACCESS_CONFIG ${accessConfig}: ${p}`));
  }

  const config: Config = {
    demo,
    port,
    address,
    appUrl: appUrl ?? '',
    secret: secret ?? '',
    users,
    usersFile,
    ldap,
    sessionExpirySeconds: integer('SESSION_EXPIRY', 86400, 60, 366 * 86400),
    cookieSecure,
    loginMaxRetries: integer('LOGIN_MAX_RETRIES', 5, 0, 1000),
    loginTimeoutSeconds: integer('LOGIN_TIMEOUT', 300, 0, 86400 * 30),
    basicCacheTtlSeconds: integer('BASIC_CACHE_TTL', 60, 0, 3600),
    appTitle: get('APP_TITLE') ?? 'Portcullis',
    forgotPasswordMessage: get('FORGOT_PASSWORD_MESSAGE') ?? DEFAULT_FORGOT_PASSWORD_MESSAGE,
    genericName: get('GENERIC_NAME') ?? 'Generic',
    disableContinue: bool('DISABLE_CONTINUE', false),
    oauthAutoRedirect,
    oauth: { github, google, generic, whitelist, timeoutSeconds: integer('OAUTH_TIMEOUT', 10, 1, 120) },
    trustedProxies,
    logLevel,
    redis,
    redisPrefix,
    dataDir: get('DATA_DIR') ?? null,
    database,
    metricsPort: metricsPortRaw === 0 ? null : metricsPortRaw,
    metricsAddress: get('METRICS_ADDRESS') ?? '0.0.0.0',
    forwardAuthPort: forwardAuthPort === 0 ? null : forwardAuthPort,
    forwardAuthAddress,
    shutdownTimeoutSeconds: integer('SHUTDOWN_TIMEOUT', 10, 1, 600),
    accessConfig,
  };
  return problems.length === 0 ? { ok: true, config } : { ok: false, problems };
}

/** Accounts whose hash or TOTP secret is one from the examples: named by account, never by value. */
function exampleCredentials(option: string, entries: readonly UsersListEntry[]): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    if (isPlaceholderHash(entry.hash)) {
      problems.push(`${option}: ${entry.username}'s password hash is a placeholder copied from the examples: make a real one with "portcullis user add ${entry.username}"`);
    }
    if (entry.totpSecret !== undefined && isExampleTotpSecret(entry.totpSecret)) {
      problems.push(`${option}: ${entry.username}'s TOTP secret is the example one from the documentation: make a real one with "portcullis totp enroll ${entry.username}"`);
    }
  }
  return problems;
}

/**
 * What a valid configuration still gets a loud warning for (logged at start, printed by
 * `config check`): OAuth with neither OAUTH_WHITELIST nor access rules admits every account of
 * the provider, which is rarely meant (anyone with a GitHub account, for one).
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const providers = (['github', 'google', 'generic'] as const).filter((p) => config.oauth[p] !== undefined);
  if (providers.length > 0 && config.oauth.whitelist.trim() === '' && config.accessConfig === null) {
    warnings.push(
      `OAUTH_WHITELIST is empty and ACCESS_CONFIG is not set: every account of ${providers.join(', ')} can log in and pass every protected application. ` +
        'Set OAUTH_WHITELIST (addresses, *@domain or /regex/) or access rules with oauth.whitelist',
    );
  }
  return warnings;
}

/** Options whose value is a secret: on the command line they show in `ps` and stay in shell history. */
const SECRET_OPTIONS = new Set(['SECRET', 'GITHUB_CLIENT_SECRET', 'GOOGLE_CLIENT_SECRET', 'GENERIC_CLIENT_SECRET', 'LDAP_BIND_PASSWORD']);

/** One warning per secret given as a `--flag` (a REDIS_URL only when it holds a password); never the value. */
export function secretFlagWarnings(argv: readonly string[]): string[] {
  const { env } = flagsToEnv(argv);
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    const withPassword = (name === 'REDIS_URL' || name === 'DATABASE_URL') && /^[^/]*\/\/[^/@]*:[^/@]*@/.test(value);
    if (!SECRET_OPTIONS.has(name) && !withPassword) continue;
    const flag = `--${name.toLowerCase().replace(/_/g, '-')}`;
    warnings.push(`${flag} on the command line is visible to other users (ps) and stays in shell history: use ${flag}-file (${name}_FILE) or the ${name} environment variable`);
  }
  return warnings;
}

const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;

/** The LDAP options, checked together; null when LDAP_ADDRESS is unset (other LDAP_ options are then an error). */
function ldapSettings(
  get: (name: string) => string | undefined,
  fromFile: (name: string) => string | undefined,
  integer: (name: string, fallback: number, min: number, max: number) => number,
  bool: (name: string, fallback: boolean) => boolean,
  problems: string[],
): LdapUserStoreSettings | null {
  const address = get('LDAP_ADDRESS');
  if (address === undefined) {
    const stray = LDAP_OPTIONS.filter((name) => get(name) !== undefined);
    if (stray.length > 0) problems.push(`${stray.join(', ')} set but LDAP_ADDRESS is not`);
    return null;
  }
  const before = problems.length;
  let url = address;
  try {
    const parsed = new URL(address);
    if (parsed.protocol !== 'ldap:' && parsed.protocol !== 'ldaps:') problems.push('LDAP_ADDRESS must start with ldap:// or ldaps://');
    else if (parsed.hostname === '' || parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '' || (parsed.pathname !== '' && parsed.pathname !== '/')) {
      problems.push('LDAP_ADDRESS must be ldap[s]://host[:port] with nothing after the port');
    } else url = `${parsed.protocol}//${parsed.host}`;
  } catch {
    problems.push('LDAP_ADDRESS is not a valid URL (e.g. ldaps://ldap.example.com)');
  }
  const baseDn = get('LDAP_BASE_DN');
  if (baseDn === undefined) problems.push('LDAP_BASE_DN is required with LDAP_ADDRESS (e.g. dc=example,dc=com)');
  else if (!baseDn.includes('=')) problems.push('LDAP_BASE_DN must be a DN such as dc=example,dc=com');
  const bindDn = get('LDAP_BIND_DN');
  // Keep the password exactly as written, apart from the newline most files end with.
  const bindPassword = fromFile('LDAP_BIND_PASSWORD')?.replace(/\r?\n$/, '');
  if (bindDn !== undefined && (bindPassword === undefined || bindPassword === '')) problems.push('LDAP_BIND_PASSWORD (or LDAP_BIND_PASSWORD_FILE) is required with LDAP_BIND_DN');
  if (bindDn === undefined && bindPassword !== undefined) problems.push('LDAP_BIND_PASSWORD is set but LDAP_BIND_DN is not');
  const searchFilter = get('LDAP_SEARCH_FILTER') ?? DEFAULT_LDAP_SEARCH_FILTER;
  const searchProblem = filterTemplateProblem(searchFilter, 's');
  if (searchProblem !== null) problems.push(`LDAP_SEARCH_FILTER ${searchProblem}`);
  const groupBaseDn = get('LDAP_GROUP_BASE_DN');
  const groupFilter = get('LDAP_GROUP_FILTER') ?? DEFAULT_LDAP_GROUP_FILTER;
  if (get('LDAP_GROUP_FILTER') !== undefined && groupBaseDn === undefined) problems.push('LDAP_GROUP_FILTER needs LDAP_GROUP_BASE_DN');
  const groupProblem = filterTemplateProblem(groupFilter, 'sd');
  if (groupProblem !== null) problems.push(`LDAP_GROUP_FILTER ${groupProblem}`);
  if (groupBaseDn !== undefined && !groupBaseDn.includes('=')) problems.push('LDAP_GROUP_BASE_DN must be a DN such as ou=groups,dc=example,dc=com');
  const attribute = (name: string, fallback: string | undefined): string | undefined => {
    const value = get(name) ?? fallback;
    if (value !== undefined && !ATTRIBUTE.test(value)) problems.push(`${name} must be an attribute name such as ${fallback ?? 'memberOf'}`);
    return value;
  };
  const settings: LdapUserStoreSettings = {
    url,
    bindDn,
    bindPassword,
    baseDn: baseDn ?? '',
    searchFilter,
    usernameAttribute: attribute('LDAP_USERNAME_ATTRIBUTE', 'uid') as string,
    mailAttribute: attribute('LDAP_MAIL_ATTRIBUTE', 'mail') as string,
    nameAttribute: attribute('LDAP_NAME_ATTRIBUTE', 'displayName') as string,
    groupAttribute: attribute('LDAP_GROUP_ATTRIBUTE', undefined),
    groupBaseDn,
    groupFilter,
    groupNameAttribute: attribute('LDAP_GROUP_NAME_ATTRIBUTE', 'cn') as string,
    totpAttribute: attribute('LDAP_TOTP_ATTRIBUTE', undefined),
    insecure: bool('LDAP_INSECURE', false),
    timeoutMs: integer('LDAP_TIMEOUT', 5, 1, 60) * 1000,
    cacheTtlMs: integer('LDAP_CACHE_TTL', 60, 0, 3600) * 1000,
  };
  return problems.length === before ? settings : null;
}

/**
 * DATABASE_URL (or DATABASE_URL_FILE, so the password stays out of the environment), DATABASE_SSL
 * and DATABASE_CA_FILE. The URL holds a password: problems name the form, never the value.
 */
function databaseSettings(
  get: (name: string) => string | undefined,
  fromFile: (name: string) => string | undefined,
  readFile: (path: string) => string,
  problems: string[],
): PostgresTarget | null {
  const raw = fromFile('DATABASE_URL')?.trim();
  const ssl = get('DATABASE_SSL')?.toLowerCase();
  const caFile = get('DATABASE_CA_FILE');
  if (raw === undefined || raw === '') {
    if (ssl !== undefined || caFile !== undefined) problems.push('DATABASE_SSL and DATABASE_CA_FILE need DATABASE_URL');
    return null;
  }
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (url === null || !['postgres:', 'postgresql:'].includes(url.protocol) || url.hostname === '') {
    problems.push('DATABASE_URL must look like postgres://user:password@host:5432/database');
    return null;
  }
  if (placeholderMarkerIn(url.password) !== null) {
    problems.push('DATABASE_URL holds a placeholder password copied from the examples: set a real password on PostgreSQL and in DATABASE_URL');
  }
  if (ssl !== undefined && !['require', 'verify-full'].includes(ssl)) problems.push('DATABASE_SSL must be require or verify-full');
  if (ssl !== undefined && url.searchParams.has('sslmode')) problems.push('set TLS either with DATABASE_SSL or with sslmode in DATABASE_URL, not both');
  if (caFile !== undefined && ssl !== 'verify-full') problems.push('DATABASE_CA_FILE needs DATABASE_SSL=verify-full');
  let ca: string | null = null;
  if (caFile !== undefined) {
    try {
      ca = readFile(caFile);
    } catch {
      problems.push(`DATABASE_CA_FILE: cannot read ${caFile}`);
    }
  }
  return { url: raw, ssl: ssl === 'require' || ssl === 'verify-full' ? ssl : null, ca };
}
