import { readOidcConfig, type OidcConfig } from './oidc-config';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cannotRead } from './unreadable-file';
import { didYouMean } from '../domain/near-miss';
import type { BlockList } from 'node:net';
import { parseUsersList, type UsersListEntry } from '../adapters/users/users-list';
import { parseUsersFile, type UsersFileEntry } from '../adapters/users/users-file';
import { filterTemplateProblem } from '../adapters/users/ldap-filter';
import type { LdapUserStoreSettings } from '../adapters/users/ldap-user-store';
import { buildTrustedProxies } from '../adapters/http/client-address';
import { loadAccessRulesFile } from '../adapters/rules/yaml-file-access-rules-source';
import { parseRedisUrl, type RedisTarget } from '../config/redis-url';
import type { PostgresTarget } from '../adapters/state/postgres/postgres-database';
import { parseOAuthWhitelist, type OAuthWhitelist } from '../domain/oauth-whitelist';
import { isIpLiteral } from '../domain/cookie-domain';
import { gatewayUrlProblems, onPublicName } from './cookie-domain';
import type { AccessRules } from '../domain/access-rules';
import type { GoogleOptions } from '../adapters/providers/google-oauth-provider';
import type { GenericOptions } from '../adapters/providers/generic-oauth-provider';
import { optionalModules } from './optional-modules';
import { isExampleTotpSecret, isPlaceholderHash, placeholderMarkerIn } from './placeholders';
import type { LogLevel } from '../adapters/system/logger';
import type { ForgotPasswordStores } from '../adapters/http/app-context';
import {
  CONFIGURING_OPTIONS,
  CONFIGURING_PROVIDER_FIELDS,
  DEFAULT_FORGOT_PASSWORD_MESSAGE,
  OPTION_NAMES,
  OPTION_TABLE,
  SECRET_OPTIONS,
  isProviderVariableName,
  optionsIn,
  providerVariable,
  type OAuthProviderField,
  type OptionName,
  type OptionValue,
} from './options';
import { isOAuthProviderId, RESERVED_OAUTH_PROVIDER_IDS } from '../domain/oauth-flow';
import { parseDisplayName } from '../domain/identity-name';
import type { GitHubGroups } from '../adapters/providers/github-oauth-provider';

export interface GitHubConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Web base for the authorize and token endpoints (GitHub Enterprise: its host). */
  readonly url: string;
  /** REST API base. */
  readonly apiUrl: string;
  /** Memberships read as groups (`GITHUB_GROUPS`, at least `orgs` when `GITHUB_ORGS` is set). */
  readonly groups: GitHubGroups;
  /** `GITHUB_ORGS`, lower case: the organisations whose members may log in; empty admits any account. */
  readonly orgs: readonly string[];
}

/** The adapters' own options but for the timeout, which all providers share ({@link OAuthConfig}). */
export type GoogleConfig = Omit<GoogleOptions, 'timeoutMs'>;
export type GenericConfig = Omit<GenericOptions, 'timeoutMs'> & {
  readonly id: string;
  readonly name: string;
  /** `OAUTH_PROVIDERS_<ID>_WHITELIST`, replacing `OAUTH_WHITELIST` for this provider; undefined: the global one. */
  readonly whitelist?: OAuthWhitelist;
};

/** The OAuth providers that are on (each present only when fully configured) and the rules for all of them. */
export interface OAuthConfig {
  readonly github?: GitHubConfig;
  readonly google?: GoogleConfig;
  /** The `GENERIC_*` provider (id `generic`). */
  readonly generic?: GenericConfig;
  /** The `OAUTH_PROVIDERS_<ID>_…` providers, by id in alphabetical order. */
  readonly providers: readonly GenericConfig[];
  /** `OAUTH_WHITELIST`, parsed once here (empty admits everyone: kind `anyone`). */
  readonly whitelist: OAuthWhitelist;
  /** Bound on every call to a provider. */
  readonly timeoutSeconds: number;
}

/** Everything Portcullis reads from its environment, validated. */
export interface Config {
  /** True when nothing was configured and a throwaway demo runs. */
  readonly demo: boolean;
  readonly port: number;
  readonly address: string;
  /** Public URL of the gateway, no trailing slash: the primary (first) one when APP_URL lists several. */
  readonly appUrl: string;
  /**
   * Every gateway URL of APP_URL, primary first, each normalised like `appUrl` (issue 17: one
   * gateway for several root domains). One element for a single URL.
   */
  readonly appUrls: readonly string[];
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
  /** The stores the default forgot-password text names, or null when FORGOT_PASSWORD_MESSAGE is set (the UI translates the default only). */
  readonly forgotPasswordStores: ForgotPasswordStores | null;
  readonly genericName: string;
  readonly disableContinue: boolean;
  /** PASSKEYS: passkey routes, buttons and logins. */
  readonly passkeys: boolean;
  /** PASSKEY_SECOND_FACTOR: a password account holding a passkey owes it (or its TOTP code) after the password. */
  readonly passkeySecondFactor: boolean;
  /** PASSKEY_ENROL_LINK_LIFETIME, in ms: how long a first-passkey link of a passkey-only account works. */
  readonly passkeyEnrolLinkLifetimeMs: number;
  /** BACKGROUND_IMAGE: an http(s) URL or a path on the login host, or '' for none. */
  readonly backgroundImage: string;
  /** UI_LANGUAGE: the login UI's one language (a catalog tag), or '' to let the browser choose. */
  readonly uiLanguage: string;
  /** UI_LANGUAGES: the languages the UI's menu offers, in order; empty for all. */
  readonly uiLanguages: readonly string[];
  readonly oauthAutoRedirect: string;
  readonly oauth: OAuthConfig;
  /** `TRUSTED_PROXIES`, parsed once by loadConfig into the addresses whose `X-Forwarded-For` is believed. */
  readonly trustedProxies: BlockList;
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
  /** The rules `accessConfig` held when the configuration was loaded (read once; the gateway watches it from then on). */
  readonly accessRules: AccessRules | null;
  /** The OpenID Connect provider (`OIDC_*`): off when no client is configured. */
  readonly oidc: OidcConfig & { readonly accessTokenTtlSeconds: number; readonly refreshTokenTtlSeconds: number };
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

export { DEFAULT_FORGOT_PASSWORD_MESSAGE, DEFAULT_LDAP_GROUP_FILTER, DEFAULT_LDAP_SEARCH_FILTER, DEFAULT_TRUSTED_PROXIES } from './options';

/** Every option name (`_FILE` variants included), for `--kebab-case` flags and for telling typos apart. */
export const OPTIONS = OPTION_NAMES;

type Env = Readonly<Record<string, string | undefined>>;

const flagOf = (name: string): string => `--${name.toLowerCase().replace(/_/g, '-')}`;

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
    if (!known.has(name) && !isProviderVariableName(name)) {
      problems.push(`unknown option --${m[1]}${didYouMean(`--${m[1]}`, [...known].map(flagOf))}`);
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
  // Options whose _FILE could not be read: already reported, so "X is required" would only say it again.
  const unreadable = new Set<string>();
  const fromFile = (name: string): string | undefined => {
    const direct = get(name);
    const file = get(`${name}_FILE`);
    if (direct !== undefined && file !== undefined) problems.push(`set either ${name} or ${name}_FILE, not both`);
    if (file === undefined) return direct;
    try {
      return readFile(file);
    } catch (e) {
      problems.push(`${name}_FILE: ${cannotRead(file, e)}`);
      unreadable.add(name);
      return undefined;
    }
  };
  // Every plain value goes through the option table: its parser, or its fallback when unset or invalid.
  const read = <K extends OptionName>(name: K): OptionValue<K> => {
    const spec = OPTION_TABLE[name];
    const raw = get(name);
    if (raw === undefined) return spec.fallback as OptionValue<K>;
    const parsed = spec.parse(raw, name);
    if (parsed.ok) return parsed.value as OptionValue<K>;
    problems.push(parsed.problem);
    return spec.fallback as OptionValue<K>;
  };

  const demo =
    CONFIGURING_OPTIONS.every((name) => get(name) === undefined) &&
    !Object.keys(env).some((name) => {
      const v = providerVariable(name);
      return v !== null && CONFIGURING_PROVIDER_FIELDS.has(v.field) && get(name) !== undefined;
    });
  const port = read('PORT');
  // The demo prints its password: it listens on this machine only unless ADDRESS says otherwise.
  const address = demo && get('ADDRESS') === undefined ? '127.0.0.1' : read('ADDRESS');

  let appUrl = read('APP_URL') ?? (demo ? `http://localhost:${port}` : undefined);
  let appUrls: string[] = [];
  if (appUrl === undefined) problems.push('APP_URL is required (the public URL of the gateway, e.g. https://auth.example.com)');
  else {
    // A comma list names one gateway URL per protected domain (first: the primary login host).
    // Each entry gets the single-URL checks; then the list as a whole gets the cookie-domain ones.
    const entries = appUrl.includes(',') ? appUrl.split(',').map((e) => e.trim()) : [appUrl];
    const listProblems = entries.map((e, i) => (e === '' ? `APP_URL entry ${i + 1} is empty: separate gateway URLs with single commas` : appUrlProblem(e)));
    const entryProblems = listProblems.filter((p): p is string => p !== null);
    if (entryProblems.length > 0) problems.push(...entryProblems);
    else {
      appUrls = entries.map((e) => {
        const url = new URL(e);
        return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
      });
      appUrl = appUrls[0];
      problems.push(...gatewayUrlProblems(appUrls));
    }
  }

  let secret = fromFile('SECRET')?.trim();
  if (secret === undefined) {
    if (demo) secret = randomBytes(32).toString('base64url');
    else if (!unreadable.has('SECRET')) problems.push('SECRET (or SECRET_FILE) is required: at least 32 random characters');
  } else if (secret.length < 32) problems.push('SECRET must be at least 32 characters long');
  else placeholder('SECRET', secret, 'make a real one, e.g. openssl rand -base64 48');

  const users: UsersListEntry[] = [];
  const usersVar = read('USERS');
  if (usersVar !== undefined) {
    const parsed = parseUsersList(usersVar, 'comma');
    users.push(...parsed.entries);
    problems.push(...parsed.problems.map((p) => `USERS ${p}`));
    problems.push(...exampleCredentials('USERS', parsed.entries));
  }
  // The file is read here once, so that its problems join all the others at start-up; afterwards
  // the store watches and reloads it.
  let usersFile: Config['usersFile'] = null;
  const usersFilePath = read('USERS_FILE');
  if (usersFilePath !== undefined) {
    try {
      const parsed = parseUsersFile(readFile(usersFilePath), usersFilePath, optionalModules.yaml);
      usersFile = { path: usersFilePath, entries: parsed.entries };
      // At start-up a name in both is most likely a mistake; a later reload can only be warned about.
      const inUsers = new Set(users.map((u) => u.username.toLowerCase()));
      for (const entry of parsed.entries)
        if (inUsers.has(entry.username.toLowerCase())) problems.push(`USERS_FILE: duplicate username ${entry.username} (also in USERS)`);
      problems.push(...parsed.problems.map((p) => `USERS_FILE ${p}`));
      problems.push(...exampleCredentials('USERS_FILE', parsed.entries));
    } catch (e) {
      problems.push(`USERS_FILE: ${cannotRead(usersFilePath, e)}`);
    }
  }
  const httpUrl = (
    name:
      | 'GITHUB_URL'
      | 'GITHUB_API_URL'
      | 'GOOGLE_AUTH_URL'
      | 'GOOGLE_TOKEN_URL'
      | 'GOOGLE_USER_URL'
      | 'GENERIC_AUTH_URL'
      | 'GENERIC_TOKEN_URL'
      | 'GENERIC_USER_URL',
  ): string | undefined => httpUrlValue(name, read(name));
  // Any http(s) URL option, by name and value (the provider pattern's names are not in the table).
  const httpUrlValue = (name: string, raw: string | undefined): string | undefined => {
    if (raw === undefined) return undefined;
    try {
      const url = new URL(raw);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.hash === '')
        return raw.replace(/\/+$/, '');
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
      if (others.length > 0)
        problems.push(
          `${others.join(', ')} set but ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET are not: configure the ${prefix.toLowerCase()} provider fully or not at all`,
        );
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
    const unprintable = [
      [`${prefix}_CLIENT_ID`, clientId],
      [`${prefix}_CLIENT_SECRET`, clientSecret],
    ].filter(([, v]) => !/^[\x20-\x7e]+$/.test(v as string));
    if (unprintable.length > 0) {
      problems.push(`${unprintable.map(([n]) => n).join(' and ')} may hold only printable ASCII characters`);
      return undefined;
    }
    if (placeholder(`${prefix}_CLIENT_SECRET`, clientSecret, `use the client secret your ${prefix.toLowerCase()} OAuth app shows`)) return undefined;
    return { clientId: clientId as string, clientSecret: clientSecret as string };
  };
  const githubClient = client('GITHUB', []);
  const githubOrgs = read('GITHUB_ORGS').map((o) => o.toLowerCase());
  if (githubOrgs.some((o) => !/^[a-z0-9](?:[a-z0-9-]{0,38})$/.test(o))) problems.push('GITHUB_ORGS holds a name that is not a GitHub organisation name');
  const githubGroupsRead = read('GITHUB_GROUPS');
  // Membership of an organisation can only be checked by reading the organisations.
  const githubGroups: GitHubGroups = githubOrgs.length > 0 && githubGroupsRead === 'off' ? 'orgs' : githubGroupsRead;
  const github = githubClient && {
    ...githubClient,
    url: httpUrl('GITHUB_URL') ?? '',
    apiUrl: httpUrl('GITHUB_API_URL') ?? '',
    groups: githubGroups,
    orgs: githubOrgs,
  };
  const googleClient = client('GOOGLE', []);
  const hostedDomains = read('GOOGLE_HOSTED_DOMAINS').map((d) => d.toLowerCase());
  if (hostedDomains.some((d) => !/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/.test(d)))
    problems.push('GOOGLE_HOSTED_DOMAINS holds an entry that is not a domain name');
  const google = googleClient && {
    ...googleClient,
    authUrl: httpUrl('GOOGLE_AUTH_URL') ?? '',
    tokenUrl: httpUrl('GOOGLE_TOKEN_URL') ?? '',
    userUrl: httpUrl('GOOGLE_USER_URL') ?? '',
    hostedDomains,
  };
  const genericIssuer = issuerValue('GENERIC_ISSUER', read('GENERIC_ISSUER'), problems);
  const genericClient = client('GENERIC', genericIssuer === undefined ? ['GENERIC_AUTH_URL', 'GENERIC_TOKEN_URL', 'GENERIC_USER_URL'] : []);
  const scopes = [...read('GENERIC_SCOPES')];
  if (scopes.some((s) => !SCOPE.test(s))) problems.push('GENERIC_SCOPES holds a character a scope may not contain');
  const generic: GenericConfig | undefined = genericClient && {
    ...genericClient,
    id: 'generic',
    name: read('GENERIC_NAME'),
    authUrl: httpUrl('GENERIC_AUTH_URL'),
    tokenUrl: httpUrl('GENERIC_TOKEN_URL'),
    userUrl: httpUrl('GENERIC_USER_URL'),
    issuer: genericIssuer,
    scopes,
  };
  const providers = patternProviders(env, get, httpUrlValue, client, appUrl, problems);
  const parsedWhitelist = parseOAuthWhitelist(read('OAUTH_WHITELIST'));
  if (!parsedWhitelist.ok) problems.push(`OAUTH_WHITELIST ${parsedWhitelist.error}`);
  // Only reached in a returned Config when there is no problem, so the fallback is never used; it admits nobody.
  const whitelist: OAuthWhitelist = parsedWhitelist.ok ? parsedWhitelist.value : { kind: 'list', emails: new Set(), domains: new Set() };
  const configuredProviders = [
    ...[github && 'github', google && 'google', generic && 'generic'].filter((p): p is string => typeof p === 'string'),
    ...providers.map((p) => p.id),
  ];

  const ldap = ldapSettings(read, get, fromFile, readFile, problems, unreadable);
  if (ldap?.bindPassword !== undefined) placeholder('LDAP_BIND_PASSWORD', ldap.bindPassword, "use the bind account's real password");
  const anyStore = usersVar !== undefined || usersFilePath !== undefined || read('LDAP_ADDRESS') !== undefined;
  if (!demo && !anyStore && configuredProviders.length === 0) {
    problems.push(
      'no way to log in: set USERS, USERS_FILE or LDAP_ADDRESS, or configure an OAuth provider (GITHUB_, GOOGLE_, GENERIC_ or OAUTH_PROVIDERS_<ID>_CLIENT_ID and _SECRET)',
    );
  }

  const appUrlIsHttps = appUrl?.startsWith('https://') ?? false;
  const cookieSecure = read('COOKIE_SECURE') ?? appUrlIsHttps;
  // Issue 17: one Secure flag for every gateway URL; a browser drops a Secure cookie set over http.
  if (cookieSecure && appUrls.length > 1 && appUrls.some((u) => u.startsWith('http://')))
    problems.push(
      'APP_URL lists http:// gateway URLs while the session cookie is Secure (https primary or COOKIE_SECURE=true): browsers drop it there; use https:// for every entry',
    );
  const forgotPasswordStores: ForgotPasswordStores = {
    users: usersVar !== undefined,
    usersFile: usersFilePath !== undefined,
    ldap: ldap !== null,
    providers: [github && 'GitHub', google && 'Google', generic && read('GENERIC_NAME'), ...providers.map((p) => p.name)].filter(
      (p): p is string => typeof p === 'string',
    ),
  };
  const uiLanguage = read('UI_LANGUAGE');
  const uiLanguages = read('UI_LANGUAGES');
  if (uiLanguage !== '' && uiLanguages.length > 0 && !uiLanguages.includes(uiLanguage))
    problems.push(`UI_LANGUAGE (${uiLanguage}) is not among UI_LANGUAGES (${uiLanguages.join(', ')}): add it there or unset one of them`);
  const oauthAutoRedirect = read('OAUTH_AUTO_REDIRECT');
  if (oauthAutoRedirect !== 'none' && !configuredProviders.includes(oauthAutoRedirect)) {
    problems.push(
      configuredProviders.length === 0
        ? 'OAUTH_AUTO_REDIRECT must be none: no OAuth provider is configured'
        : `OAUTH_AUTO_REDIRECT must be none or a configured provider (${configuredProviders.join(', ')})`,
    );
  }

  const { list: trustedProxies, problems: proxyProblems } = buildTrustedProxies(read('TRUSTED_PROXIES'));
  problems.push(...proxyProblems);

  const logLevel = read('LOG_LEVEL');

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
  const redisPrefix = read('REDIS_PREFIX');
  if (!/^[A-Za-z0-9:_.{}-]{1,64}$/.test(redisPrefix)) problems.push('REDIS_PREFIX must be 1 to 64 characters of letters, digits and :_.{}-');
  const database = databaseSettings(read, get, fromFile, readFile, problems);
  const metricsPortRaw = read('METRICS_PORT');
  // Forward auth on its own listener: the proxy asks there, and the public port never answers it.
  // Loopback by default, the proxy being on the same machine; a container or pod sets an
  // address its proxy can reach, and does not publish the port.
  const forwardAuthPort = read('FORWARD_AUTH_PORT');
  const forwardAuthAddress = read('FORWARD_AUTH_ADDRESS');
  if (get('FORWARD_AUTH_PORT') === undefined && get('FORWARD_AUTH_ADDRESS') !== undefined)
    problems.push('FORWARD_AUTH_ADDRESS is set but FORWARD_AUTH_PORT is not');
  if (forwardAuthPort !== null) {
    if (forwardAuthPort === port) problems.push('FORWARD_AUTH_PORT must differ from PORT: forward auth gets a listener of its own');
    if (forwardAuthPort === metricsPortRaw) problems.push('FORWARD_AUTH_PORT must differ from METRICS_PORT');
  }
  // The rules file is validated now, so that start-up lists its problems with all the others.
  const accessConfig = read('ACCESS_CONFIG');
  let accessRules: AccessRules | null = null;
  if (accessConfig !== null) {
    const rules = loadAccessRulesFile(accessConfig, optionalModules.yaml(), readFile);
    if (rules.ok) accessRules = rules.value;
    else problems.push(...rules.error.map((p) => `ACCESS_CONFIG ${accessConfig}: ${p}`));
  }

  const oidc = readOidcConfig(env, readFile);
  problems.push(...oidc.problems);
  const config: Config = {
    demo,
    port,
    address,
    appUrl: appUrl ?? '',
    appUrls: appUrls.length > 0 ? appUrls : [appUrl ?? ''],
    secret: secret ?? '',
    users,
    usersFile,
    ldap,
    sessionExpirySeconds: read('SESSION_EXPIRY'),
    cookieSecure,
    loginMaxRetries: read('LOGIN_MAX_RETRIES'),
    loginTimeoutSeconds: read('LOGIN_TIMEOUT'),
    basicCacheTtlSeconds: read('BASIC_CACHE_TTL'),
    appTitle: read('APP_TITLE'),
    forgotPasswordMessage: read('FORGOT_PASSWORD_MESSAGE') ?? defaultForgotPasswordMessage(forgotPasswordStores),
    forgotPasswordStores: read('FORGOT_PASSWORD_MESSAGE') === undefined ? forgotPasswordStores : null,
    genericName: read('GENERIC_NAME'),
    disableContinue: read('DISABLE_CONTINUE'),
    passkeys: read('PASSKEYS'),
    passkeySecondFactor: read('PASSKEY_SECOND_FACTOR'),
    passkeyEnrolLinkLifetimeMs: read('PASSKEY_ENROL_LINK_LIFETIME') * 1000,
    backgroundImage: read('BACKGROUND_IMAGE'),
    uiLanguage,
    uiLanguages,
    oauthAutoRedirect,
    oauth: { github, google, generic, providers, whitelist, timeoutSeconds: read('OAUTH_TIMEOUT') },
    trustedProxies,
    logLevel,
    redis,
    redisPrefix,
    dataDir: read('DATA_DIR'),
    database,
    metricsPort: metricsPortRaw === 0 ? null : metricsPortRaw,
    metricsAddress: read('METRICS_ADDRESS'),
    forwardAuthPort,
    forwardAuthAddress,
    shutdownTimeoutSeconds: read('SHUTDOWN_TIMEOUT'),
    accessConfig,
    accessRules,
    oidc: { ...oidc.config, accessTokenTtlSeconds: read('OIDC_ACCESS_TOKEN_TTL'), refreshTokenTtlSeconds: read('OIDC_REFRESH_TOKEN_TTL') },
  };
  return problems.length === 0 ? { ok: true, config } : { ok: false, problems };
}

/**
 * What is wrong with APP_URL, or null. Strict on purpose: a comma list was read as one URL whose
 * host was `auth.example.com,http`, and a cookie for `example.com,http` follows. Accepted: an
 * http(s) URL whose host is a DNS name (letters, digits and hyphens, labels of at most 63
 * characters, no empty label, so no trailing dot) or an IP literal, an optional port and path;
 * refused: credentials, a query, a fragment, and anything else in the host.
 */
function appUrlProblem(raw: string): string | null {
  // A list is separated by commas only (split by the caller): `https://a.example.com https://b.example.org` is a typo, not a list.
  if (/\s/.test(raw) && raw.split('://').length > 2) {
    return 'APP_URL lists several gateway URLs separated by commas (e.g. https://auth.example.com,https://auth.example.org), not by spaces';
  }
  if (/\s/.test(raw)) return 'APP_URL is not a valid URL (e.g. https://auth.example.com)';
  // `auth.example.com:8443` and `localhost:3000` parse as URLs whose scheme is the host name.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(raw)) return `APP_URL needs a scheme: add https:// in front (APP_URL=https://${raw.replace(/\/+$/, '')})`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'APP_URL is not a valid URL (e.g. https://auth.example.com)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'APP_URL must be an http or https URL';
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || raw.includes('@'))
    return 'APP_URL must not carry credentials, a query or a fragment';
  if (!isHostName(url.hostname) && !isIpLiteral(url.hostname))
    return `APP_URL's host "${url.hostname}" is not a valid host name: use a DNS name (letters, digits and hyphens between dots) or an IP address`;
  return null;
}

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A DNS host name as the URL parser leaves it (lower case, international names in punycode). */
function isHostName(host: string): boolean {
  return host.length <= 253 && host.split('.').every((label) => DNS_LABEL.test(label));
}

/**
 * The forgot-password text when FORGOT_PASSWORD_MESSAGE is unset: it says where the reader's
 * password lives, for each configured store (USERS alone for the demo, whose account is one).
 */
export function defaultForgotPasswordMessage(stores: ForgotPasswordStores): string {
  const local = [stores.users && 'the USERS environment variable', stores.usersFile && "the gateway's users file"].filter(
    (s): s is string => typeof s === 'string',
  );
  const parts: string[] = [];
  if (local.length > 0) parts.push(`Accounts are configured by the administrator in ${local.join(' and ')}. Ask them to reset your password.`);
  if (stores.ldap) parts.push('Accounts of the directory (LDAP): reset your password where your organisation manages its directory, or ask its help desk.');
  if (stores.providers.length > 0) parts.push(`If you sign in with ${stores.providers.join(' or ')}, reset your password there: this gateway never sees it.`);
  return parts.length > 0 ? parts.join(' ') : DEFAULT_FORGOT_PASSWORD_MESSAGE;
}

/** Accounts whose hash or TOTP secret is one from the examples: named by account, never by value. */
function exampleCredentials(option: string, entries: readonly UsersListEntry[]): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    if (entry.passkeyOnly !== true && isPlaceholderHash(entry.hash)) {
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

/**
 * What a valid configuration still gets a loud warning for (logged at start, printed by
 * `config check`): OAuth with neither OAUTH_WHITELIST nor access rules admits every account of
 * the provider, which is rarely meant (anyone with a GitHub account, for one).
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  // A provider with its own whitelist, GitHub limited to organisations or Google to Workspace domains is not open to everyone.
  const open = [
    ...(config.oauth.github !== undefined && config.oauth.github.orgs.length === 0 ? ['github'] : []),
    ...(config.oauth.google !== undefined && (config.oauth.google.hostedDomains ?? []).length === 0 ? ['google'] : []),
    ...[config.oauth.generic, ...config.oauth.providers].filter((p) => p !== undefined && p.whitelist === undefined).map((p) => (p as GenericConfig).id),
  ];
  const providers = open;
  if (providers.length > 0 && config.oauth.whitelist.kind === 'anyone' && config.accessConfig === null) {
    warnings.push(
      `OAUTH_WHITELIST is empty and ACCESS_CONFIG is not set: every account of ${providers.join(', ')} can log in and pass every protected application. ` +
        'Set OAUTH_WHITELIST (addresses, *@domain or /regex/) or access rules with oauth.whitelist',
    );
  }
  warnings.push(...config.oidc.warnings);
  for (const url of config.appUrls.filter((u) => u.startsWith('http:') && onPublicName(u)))
    warnings.push(
      `APP_URL ${url} is plain http:// on a public name: cookies lose Secure and sessions cross the network readable. ` +
        'Serve the login page over https:// (the proxy terminates TLS) and write APP_URL with https://',
    );
  if (config.ldap !== null && !config.ldap.startTls && config.ldap.url.startsWith('ldap:') && !isLoopbackUrl(config.ldap.url)) {
    warnings.push(
      `LDAP_ADDRESS ${config.ldap.url} is plain ldap:// to another machine: passwords cross the network unencrypted. Set LDAP_START_TLS=true (LDAP_CA_FILE for a private CA) or use ldaps://`,
    );
  }
  return warnings;
}

function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** How the directory connection is protected, for `config check` and the start-up log; never a secret. */
export function describeLdapTls(ldap: LdapUserStoreSettings): string {
  const trust = ldap.insecure
    ? 'certificate NOT verified (LDAP_INSECURE)'
    : ldap.ca !== undefined
      ? 'certificate verified against LDAP_CA_FILE'
      : "certificate verified against the system's CAs";
  if (ldap.url.startsWith('ldaps:')) return `TLS (ldaps://), ${trust}`;
  if (ldap.startTls) return `StartTLS required (no plain-text fallback), ${trust}`;
  return 'no TLS: passwords cross the network in plain text (set LDAP_START_TLS=true or use ldaps://)';
}

/** One warning per secret given as a `--flag` (a REDIS_URL only when it holds a password); never the value. */
export function secretFlagWarnings(argv: readonly string[]): string[] {
  const { env } = flagsToEnv(argv);
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    const withPassword = (name === 'REDIS_URL' || name === 'DATABASE_URL') && /^[^/]*\/\/[^/@]*:[^/@]*@/.test(value);
    const providerSecret = providerVariable(name)?.field === 'CLIENT_SECRET' && !name.endsWith('_FILE');
    if (!SECRET_OPTIONS.has(name) && !withPassword && !providerSecret) continue;
    const flag = `--${name.toLowerCase().replace(/_/g, '-')}`;
    warnings.push(
      `${flag} on the command line is visible to other users (ps) and stays in shell history: use ${flag}-file (${name}_FILE) or the ${name} environment variable`,
    );
  }
  return warnings;
}

const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;

/** The LDAP options, checked together; null when LDAP_ADDRESS is unset (other LDAP_ options are then an error). */
function ldapSettings(
  read: <K extends OptionName>(name: K) => OptionValue<K>,
  get: (name: string) => string | undefined,
  fromFile: (name: string) => string | undefined,
  readFile: (path: string) => string,
  problems: string[],
  unreadable: ReadonlySet<string>,
): LdapUserStoreSettings | null {
  const address = read('LDAP_ADDRESS');
  if (address === undefined) {
    const stray = optionsIn('ldap')
      .flatMap((name) => ('file' in OPTION_TABLE[name] ? [name, `${name}_FILE`] : [name]))
      .filter((name) => get(name) !== undefined);
    if (stray.length > 0) problems.push(`${stray.join(', ')} set but LDAP_ADDRESS is not`);
    return null;
  }
  const before = problems.length;
  let url = address;
  try {
    const parsed = new URL(address);
    if (parsed.protocol !== 'ldap:' && parsed.protocol !== 'ldaps:') problems.push('LDAP_ADDRESS must start with ldap:// or ldaps://');
    else if (
      parsed.hostname === '' ||
      parsed.username !== '' ||
      parsed.password !== '' ||
      parsed.search !== '' ||
      parsed.hash !== '' ||
      (parsed.pathname !== '' && parsed.pathname !== '/')
    ) {
      problems.push('LDAP_ADDRESS must be ldap[s]://host[:port] with nothing after the port');
    } else url = `${parsed.protocol}//${parsed.host}`;
  } catch {
    problems.push('LDAP_ADDRESS is not a valid URL (e.g. ldaps://ldap.example.com)');
  }
  const baseDn = read('LDAP_BASE_DN');
  if (baseDn === undefined) problems.push('LDAP_BASE_DN is required with LDAP_ADDRESS (e.g. dc=example,dc=com)');
  else if (!baseDn.includes('=')) problems.push('LDAP_BASE_DN must be a DN such as dc=example,dc=com');
  const bindDn = read('LDAP_BIND_DN');
  // Keep the password exactly as written, apart from the newline most files end with.
  const bindPassword = fromFile('LDAP_BIND_PASSWORD')?.replace(/\r?\n$/, '');
  if (bindDn !== undefined && (bindPassword === undefined || bindPassword === '') && !unreadable.has('LDAP_BIND_PASSWORD'))
    problems.push('LDAP_BIND_PASSWORD (or LDAP_BIND_PASSWORD_FILE) is required with LDAP_BIND_DN');
  if (bindDn === undefined && bindPassword !== undefined) problems.push('LDAP_BIND_PASSWORD is set but LDAP_BIND_DN is not');
  const searchFilter = read('LDAP_SEARCH_FILTER');
  const searchProblem = filterTemplateProblem(searchFilter, 's', optionalModules.ldapts());
  if (searchProblem !== null) problems.push(`LDAP_SEARCH_FILTER ${searchProblem}`);
  const groupBaseDn = read('LDAP_GROUP_BASE_DN');
  const groupFilter = read('LDAP_GROUP_FILTER');
  if (get('LDAP_GROUP_FILTER') !== undefined && groupBaseDn === undefined) problems.push('LDAP_GROUP_FILTER needs LDAP_GROUP_BASE_DN');
  const groupProblem = filterTemplateProblem(groupFilter, 'sd', optionalModules.ldapts());
  if (groupProblem !== null) problems.push(`LDAP_GROUP_FILTER ${groupProblem}`);
  if (groupBaseDn !== undefined && !groupBaseDn.includes('=')) problems.push('LDAP_GROUP_BASE_DN must be a DN such as ou=groups,dc=example,dc=com');
  const startTls = read('LDAP_START_TLS');
  if (startTls && url.startsWith('ldaps:')) problems.push('LDAP_START_TLS is for ldap:// addresses: ldaps:// is TLS from the start (drop one of them)');
  const caFile = read('LDAP_CA_FILE');
  let ca: string | undefined;
  if (caFile !== undefined) {
    if (!startTls && !url.startsWith('ldaps:'))
      problems.push('LDAP_CA_FILE needs TLS: set LDAP_START_TLS=true, or use an ldaps:// LDAP_ADDRESS (on plain ldap:// it would never be used)');
    if (read('LDAP_INSECURE'))
      problems.push('LDAP_CA_FILE and LDAP_INSECURE together: LDAP_INSECURE turns verification off, so the CA would be ignored (drop LDAP_INSECURE)');
    try {
      ca = readFile(caFile);
    } catch (e) {
      problems.push(`LDAP_CA_FILE: ${cannotRead(caFile, e)}`);
    }
    if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----'))
      problems.push(`LDAP_CA_FILE: ${caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  const nestedGroups = read('LDAP_NESTED_GROUPS');
  if (nestedGroups === 'ad' && get('LDAP_GROUP_FILTER') !== undefined)
    problems.push(
      'LDAP_GROUP_FILTER and LDAP_NESTED_GROUPS=ad together: ad searches groups with its own filter (member:1.2.840.113556.1.4.1941:=<DN>); drop one',
    );
  if (nestedGroups === 'recursive' && read('LDAP_GROUP_ATTRIBUTE') === undefined && groupBaseDn === undefined)
    problems.push("LDAP_NESTED_GROUPS=recursive needs the person's own groups first: set LDAP_GROUP_ATTRIBUTE (e.g. memberOf) or LDAP_GROUP_BASE_DN");
  type AttributeOption =
    'LDAP_USERNAME_ATTRIBUTE' | 'LDAP_MAIL_ATTRIBUTE' | 'LDAP_NAME_ATTRIBUTE' | 'LDAP_GROUP_ATTRIBUTE' | 'LDAP_GROUP_NAME_ATTRIBUTE' | 'LDAP_TOTP_ATTRIBUTE';
  const attribute = (name: AttributeOption): string | undefined => {
    const value: string | undefined = read(name);
    const example: string | undefined = OPTION_TABLE[name].fallback;
    if (value !== undefined && !ATTRIBUTE.test(value)) problems.push(`${name} must be an attribute name such as ${example ?? 'memberOf'}`);
    return value;
  };
  const settings: LdapUserStoreSettings = {
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
    insecure: read('LDAP_INSECURE'),
    nestedGroups,
    timeoutMs: read('LDAP_TIMEOUT') * 1000,
    cacheTtlMs: read('LDAP_CACHE_TTL') * 1000,
  };
  return problems.length === before ? settings : null;
}

/**
 * DATABASE_URL (or DATABASE_URL_FILE, so the password stays out of the environment), DATABASE_SSL
 * and DATABASE_CA_FILE. The URL holds a password: problems name the form, never the value.
 */
function databaseSettings(
  read: <K extends OptionName>(name: K) => OptionValue<K>,
  get: (name: string) => string | undefined,
  fromFile: (name: string) => string | undefined,
  readFile: (path: string) => string,
  problems: string[],
): PostgresTarget | null {
  const raw = fromFile('DATABASE_URL')?.trim();
  const ssl = read('DATABASE_SSL');
  const caFile = read('DATABASE_CA_FILE');
  if (raw === undefined || raw === '') {
    if (get('DATABASE_SSL') !== undefined || caFile !== null) problems.push('DATABASE_SSL and DATABASE_CA_FILE need DATABASE_URL');
    return null;
  }
  let url: URL | null;
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
  // An unknown DATABASE_SSL was reported by its parser (read), and reads as unset here.
  if (get('DATABASE_SSL') !== undefined && url.searchParams.has('sslmode'))
    problems.push('set TLS either with DATABASE_SSL or with sslmode in DATABASE_URL, not both');
  if (caFile !== null && ssl !== 'verify-full') problems.push('DATABASE_CA_FILE needs DATABASE_SSL=verify-full');
  let ca: string | null = null;
  if (caFile !== null) {
    try {
      ca = readFile(caFile);
    } catch (e) {
      problems.push(`DATABASE_CA_FILE: ${cannotRead(caFile, e)}`);
    }
  }
  return { url: raw, ssl, ca };
}

/** The characters RFC 6749 allows in a scope token. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** An issuer identifier: an https (or, for local tests, http) URL without query or fragment (RFC 8414 section 2). */
function issuerValue(name: string, raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '')
      return raw;
  } catch {
    // reported below
  }
  problems.push(`${name} must be an http(s) URL without credentials, query or fragment (the issuer identifier)`);
  return undefined;
}

/**
 * The `OAUTH_PROVIDERS_<ID>_…` providers: every variable of the pattern, grouped by id, each
 * group checked like the GENERIC_ options (client id and secret, endpoints or an issuer) plus
 * its own name, scopes and whitelist. Problems name the variables, never a value.
 */
function patternProviders(
  env: Readonly<Record<string, string | undefined>>,
  get: (name: string) => string | undefined,
  httpUrlValue: (name: string, raw: string | undefined) => string | undefined,
  client: (prefix: string, required: readonly string[]) => { clientId: string; clientSecret: string } | undefined,
  appUrl: string | undefined,
  problems: string[],
): GenericConfig[] {
  const byId = new Map<string, { key: string; fields: Set<OAuthProviderField> }>();
  for (const name of Object.keys(env)) {
    const v = providerVariable(name);
    if (v === null || get(name) === undefined) continue;
    if (!/^[A-Z0-9]+(?:_[A-Z0-9]+)*$/.test(v.key) || !isOAuthProviderId(v.id)) {
      problems.push(`${name}: the provider id "${v.key}" must be 1 to 32 letters, digits and single inner _ (read as -)`);
      continue;
    }
    if (RESERVED_OAUTH_PROVIDER_IDS.includes(v.id)) {
      problems.push(
        `${name}: the provider id ${v.id} is taken (${RESERVED_OAUTH_PROVIDER_IDS.join(', ')}); configure github, google and generic with their own options`,
      );
      continue;
    }
    const entry = byId.get(v.id) ?? { key: v.key, fields: new Set<OAuthProviderField>() };
    entry.fields.add(v.field);
    byId.set(v.id, entry);
  }
  const providers: GenericConfig[] = [];
  for (const id of [...byId.keys()].sort()) {
    const { key } = byId.get(id) as { key: string };
    const prefix = `OAUTH_PROVIDERS_${key}`;
    const value = (field: OAuthProviderField): string | undefined => get(`${prefix}_${field}`);
    const issuer = issuerValue(`${prefix}_ISSUER`, value('ISSUER'), problems);
    const endpoints = (['AUTH_URL', 'TOKEN_URL', 'USER_INFO_URL'] as const).map((f) => `${prefix}_${f}`);
    const credentialsSet = ['CLIENT_ID', 'CLIENT_ID_FILE', 'CLIENT_SECRET', 'CLIENT_SECRET_FILE'].some((f) => get(`${prefix}_${f}`) !== undefined);
    if (!credentialsSet) {
      problems.push(`the OAuth provider ${id} is half-configured: ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET missing`);
      continue;
    }
    const creds = client(prefix, issuer === undefined ? endpoints : []);
    const scopes = (value('SCOPES') ?? 'openid email profile').split(/[\s,]+/).filter((s) => s !== '');
    if (scopes.some((s) => !SCOPE.test(s))) problems.push(`${prefix}_SCOPES holds a character a scope may not contain`);
    let whitelist: OAuthWhitelist | undefined;
    const whitelistRaw = value('WHITELIST');
    if (whitelistRaw !== undefined) {
      const parsed = parseOAuthWhitelist(whitelistRaw);
      if (parsed.ok) whitelist = parsed.value;
      else problems.push(`${prefix}_WHITELIST ${parsed.error}`);
    }
    const redirect = value('REDIRECT_URL');
    const callback = `${appUrl ?? ''}/api/oauth/callback/${id}`;
    if (redirect !== undefined && redirect.replace(/\/+$/, '') !== callback)
      problems.push(`${prefix}_REDIRECT_URL must be ${callback} or unset: the gateway's callback for a provider is always its own`);
    const insecure = value('INSECURE_SKIP_VERIFY');
    if (insecure !== undefined && !['false', '0', 'no', 'off'].includes(insecure.toLowerCase()))
      problems.push(`${prefix}_INSECURE_SKIP_VERIFY is not supported: trust the provider's CA with NODE_EXTRA_CA_CERTS instead of turning TLS checks off`);
    const name = value('NAME') ?? id;
    // The name reaches the login page and /api/app: the same rule as a display name, plus a length a button can show.
    if (name.length > 64 || !parseDisplayName(name).ok) problems.push(`${prefix}_NAME must be at most 64 printable characters`);
    if (creds === undefined) continue;
    providers.push({
      ...creds,
      id,
      name,
      issuer,
      authUrl: httpUrlValue(`${prefix}_AUTH_URL`, value('AUTH_URL')),
      tokenUrl: httpUrlValue(`${prefix}_TOKEN_URL`, value('TOKEN_URL')),
      userUrl: httpUrlValue(`${prefix}_USER_INFO_URL`, value('USER_INFO_URL')),
      scopes,
      whitelist,
    });
  }
  return providers;
}
