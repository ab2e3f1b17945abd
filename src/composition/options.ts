import { UI_LANGUAGE_TAGS, uiLanguageTag } from '../adapters/http/ui-languages';
import type { LogLevel } from '../adapters/system/logger';

/**
 * Every option of the gateway in one declarative table: its name (the key; the `--kebab-case` flag
 * and the `_FILE` variant derive from it), the group it is documented under, its parser and value
 * when unset, whether it holds a secret, and its documentation. It feeds `loadConfig` (parsing and
 * validation), `portcullis serve --help`, `config check`'s near-miss warnings, and the option tables
 * of docs/configuration.md (`npm run docs:options` regenerates them; a unit test fails when they
 * differ). Rules that tie several options together (a half-configured provider, LDAP_ options
 * without LDAP_ADDRESS) stay in `loadConfig`, which reads every value through this table.
 */

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };
/** Turns a set, trimmed, non-empty raw value into a value or one problem naming the option (never the value). */
export type Parser<T> = (raw: string, name: string) => Parsed<T>;

/** Any text, as given (trimmed). */
export const text: Parser<string> = (raw) => ({ ok: true, value: raw });
/** Any text, lower-cased. */
export const lowercase: Parser<string> = (raw) => ({ ok: true, value: raw.toLowerCase() });
/** A comma- or space-separated list. */
export const list: Parser<readonly string[]> = (raw) => ({ ok: true, value: raw.split(/[\s,]+/).filter((s) => s !== '') });
export const boolean: Parser<boolean> = (raw, name) => {
  const v = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return { ok: true, value: true };
  if (['false', '0', 'no', 'off'].includes(v)) return { ok: true, value: false };
  return { ok: false, problem: `${name} must be true or false` };
};
export function integer(min: number, max: number): Parser<number> {
  return (raw, name) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max)
      return { ok: false, problem: `${name} must be a whole number from ${min} to ${max}` };
    return { ok: true, value: n };
  };
}
export function oneOf<const T extends string>(values: readonly T[]): Parser<T> {
  return (raw, name) => {
    const v = raw.toLowerCase();
    return (values as readonly string[]).includes(v) ? { ok: true, value: v as T } : { ok: false, problem: `${name} must be one of ${values.join(', ')}` };
  };
}

/**
 * Only loopback by default: a trusted peer may name any client address in `X-Forwarded-For`, so
 * trusting the private ranges let every LAN, VPN or pod client choose its own address (and pass an
 * `ip.bypass`). A proxy elsewhere is named in `TRUSTED_PROXIES` by its own address.
 */
export const DEFAULT_TRUSTED_PROXIES: readonly string[] = ['127.0.0.0/8', '::1/128'];
/** The forgot-password text of USERS accounts (and the demo's); see defaultForgotPasswordMessage in config. */
export const DEFAULT_FORGOT_PASSWORD_MESSAGE =
  'Accounts are configured by the administrator in the USERS environment variable. Ask them to reset your password.';
export const DEFAULT_LDAP_SEARCH_FILTER = '(uid=%s)';
export const DEFAULT_LDAP_GROUP_FILTER = '(|(member=%d)(uniqueMember=%d)(memberUid=%s))';
/** PostgreSQL's TLS modes the gateway offers: encrypted with any certificate, or verified against a CA and the host name. */
const databaseSsl: Parser<'require' | 'verify-full'> = (raw, name) => {
  const v = raw.toLowerCase();
  return v === 'require' || v === 'verify-full' ? { ok: true, value: v } : { ok: false, problem: `${name} must be require or verify-full` };
};
/** One language of the login UI, by its catalog's tag (case-insensitive). */
const uiLanguage: Parser<string> = (raw, name) => {
  const tag = uiLanguageTag(raw);
  return tag !== null ? { ok: true, value: tag } : { ok: false, problem: `${name} must be one of ${UI_LANGUAGE_TAGS.join(', ')}` };
};
/** Languages of the login UI, comma- or space-separated, in the order the menu lists them (duplicates dropped). */
const uiLanguageList: Parser<readonly string[]> = (raw, name) => {
  const tags: string[] = [];
  for (const item of raw.split(/[\s,]+/).filter((s) => s !== '')) {
    const tag = uiLanguageTag(item);
    if (tag === null) return { ok: false, problem: `${name} lists a language the UI does not have: use ${UI_LANGUAGE_TAGS.join(', ')}` };
    if (!tags.includes(tag)) tags.push(tag);
  }
  return { ok: true, value: tags };
};
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * A URL the UI may put in CSS `url("…")` and the CSP in `img-src`: `http:`/`https:` without
 * credentials, or a path on the login host. Only URL characters outside quotes, spaces, brackets and
 * backslashes are allowed, so neither the stylesheet value nor the CSP header can be broken out of
 * (no `javascript:`, `data:` or `expression(` either).
 */
export const backgroundImage: Parser<string> = (raw, name) => {
  const problem = {
    ok: false,
    problem: `${name} must be an http(s) URL or a path on the login host starting with / (no quotes, spaces, brackets or backslashes)`,
  } as const;
  if (!/^[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+$/.test(raw)) return problem;
  if (raw.startsWith('/')) return raw.startsWith('//') ? problem : { ok: true, value: raw };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return problem;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.hostname === '') return problem;
  return { ok: true, value: url.href };
};

/** A row of the documentation tables: one option, or several that share it (`PORT` / `ADDRESS`). */
export interface RowDoc {
  /** The variable column when the names alone do not say it (defaults to the row's names, with `_FILE` variants). */
  readonly label?: string;
  readonly default: string;
  readonly meaning: string;
}

export type GroupId = (typeof OPTION_GROUPS)[number]['id'];

export interface OptionSpec {
  readonly group: GroupId;
  readonly parse: Parser<unknown>;
  /** The value when the option is unset (or invalid: the problem is reported, the fallback keeps parsing going). */
  readonly fallback: unknown;
  /** Also read from a file named by `<NAME>_FILE` (Docker and Kubernetes secrets). */
  readonly file?: true;
  /** The value is a secret: never echoed, and warned about when given as a command-line flag. */
  readonly secret?: true;
  /** Setting it means "this gateway is configured": the throwaway demo does not start. */
  readonly configures?: true;
  /** Its own documentation row, or the option whose row it shares. */
  readonly doc: RowDoc | { readonly sameRowAs: string };
}

function options<const T extends Record<string, OptionSpec>>(table: T): T {
  return table;
}

export const OPTION_GROUPS = [
  { id: 'gateway', title: 'The gateway', intro: '' },
  {
    id: 'oauth',
    title: 'OAuth providers',
    intro:
      "A provider is on when both its client id and secret are set. Setting only part of a provider's\noptions stops start-up with a message that names what is missing. How to register the gateway at\neach provider: [OAuth](oauth.md).",
  },
  {
    id: 'oidc',
    title: 'OpenID Connect provider',
    intro:
      'On when at least one client is configured (`OIDC_CLIENTS_<ID>_CLIENT_ID`): issuer = `APP_URL`, discovery at\n`${APP_URL}/.well-known/openid-configuration`. Behaviour, key rotation and per-app settings: [OpenID Connect](oidc.md).',
  },
  { id: 'rules', title: 'Access rules', intro: '' },
  {
    id: 'ldap',
    title: 'LDAP',
    intro: 'Setting `LDAP_ADDRESS` enables the directory; how it is searched, bound and cached:\n[User stores](user-stores.md#ldap).',
  },
  { id: 'operations', title: 'Operations', intro: 'Redis, PostgreSQL, metrics and shutdown; see [Operations](operations.md).' },
] as const;

export const OPTION_TABLE = options({
  PORT: { group: 'gateway', parse: integer(0, 65535), fallback: 3000, doc: { default: '`3000` / `0.0.0.0`', meaning: 'listen address' } },
  ADDRESS: { group: 'gateway', parse: text, fallback: '0.0.0.0', doc: { sameRowAs: 'PORT' } },
  APP_URL: {
    group: 'gateway',
    parse: text,
    fallback: undefined,
    configures: true,
    doc: {
      default: 'required (demo: `http://localhost:$PORT`)',
      meaning:
        'public URL of the gateway, with its scheme (`https://`). Login redirects go to `${APP_URL}/login`. Its host must be a DNS name or an IP address (no underscores, empty labels or trailing dot; no credentials, query or fragment; a path is allowed). Several root domains: a comma-separated list of gateway URLs, one per domain (`https://auth.example.com,https://auth.example.org`); the first is the primary (login page, UI, OAuth callbacks, OIDC issuer, access rules), each further one gets its own cookie domain and borrows the login of the primary through a one-time hand-off code (see the README); two URLs on one cookie domain (or one inside the domain of another), a repeated host and a URL whose cookie domain would be a public suffix are refused. The protected (cookie) domain is its host minus the first label (`auth.example.com` → `example.com`), never above the registrable domain of the [public-suffix list](https://publicsuffix.org/), private section included as browsers do (`mydomain.co.uk` → `mydomain.co.uk`, not `co.uk`; `me.github.io` → `me.github.io`); a one-label host (`localhost`), an IP or a public suffix itself gives a host-only cookie. The start-up log (`cookieDomain`) and `portcullis config check` show it',
    },
  },
  SECRET: {
    group: 'gateway',
    parse: text,
    fallback: undefined,
    file: true,
    secret: true,
    configures: true,
    doc: {
      default: 'required (demo: random)',
      meaning:
        "at least 32 characters; every key (cookie encryption, Basic cache) is derived from it with HKDF. Placeholders from the examples (`change-me…`, `replace-with…`, `your-secret…`) are refused, as are the examples' bcrypt hashes (and hashes like `$2b$10$....`) and TOTP secret (`JBSWY3DPEHPK3PXP`) in `USERS`/`USERS_FILE`, placeholder OAuth client secrets, `LDAP_BIND_PASSWORD` and Redis passwords",
    },
  },
  USERS: {
    group: 'gateway',
    parse: text,
    fallback: undefined,
    configures: true,
    doc: {
      default: '—',
      meaning:
        '`username:bcrypt-hash[:base32-totp-secret]`, comma-separated (file: one per line, `#` comments, or the YAML form; reloaded when it changes). `$$` stands for `$` (docker-compose). A username may be an e-mail address. LDAP: see [LDAP](#ldap)',
    },
  },
  USERS_FILE: { group: 'gateway', parse: text, fallback: undefined, configures: true, doc: { sameRowAs: 'USERS' } },
  SESSION_EXPIRY: { group: 'gateway', parse: integer(60, 366 * 86400), fallback: 86400, doc: { default: '`86400`', meaning: 'session lifetime in seconds' } },
  COOKIE_SECURE: { group: 'gateway', parse: boolean, fallback: undefined, doc: { default: '`true` when `APP_URL` is https', meaning: '`Secure` cookie flag' } },
  LOGIN_MAX_RETRIES: {
    group: 'gateway',
    parse: integer(0, 1000),
    fallback: 5,
    doc: { default: '`5` / `300`', meaning: 'failures before an account is locked / lock length in seconds; `0` disables locking' },
  },
  LOGIN_TIMEOUT: { group: 'gateway', parse: integer(0, 86400 * 30), fallback: 300, doc: { sameRowAs: 'LOGIN_MAX_RETRIES' } },
  BASIC_CACHE_TTL: {
    group: 'gateway',
    parse: integer(0, 3600),
    fallback: 60,
    doc: { default: '`60`', meaning: 'seconds a verified HTTP Basic header is trusted without another bcrypt; `0` disables' },
  },
  APP_TITLE: { group: 'gateway', parse: text, fallback: 'Portcullis', doc: { default: '`Portcullis`', meaning: 'title shown by the UI' } },
  FORGOT_PASSWORD_MESSAGE: {
    group: 'gateway',
    parse: text,
    fallback: undefined,
    doc: {
      default: 'a text naming the configured stores (`USERS`, the users file, LDAP, the OAuth providers)',
      meaning: 'shown on the forgot-password page',
    },
  },
  BACKGROUND_IMAGE: {
    group: 'gateway',
    parse: backgroundImage,
    fallback: '',
    doc: {
      default: 'none',
      meaning:
        "page background of the login UI (also `backgroundImage` in `/api/app`, which tinyauth's UI requires): an `http(s)://` URL (its origin is added to the pages' `img-src`) or a path on the login host starting with `/`. Quotes, spaces, brackets and backslashes are refused, so the value cannot break out of the CSS it is placed in",
    },
  },
  UI_LANGUAGE: {
    group: 'gateway',
    parse: uiLanguage,
    fallback: '',
    doc: {
      default: "the visitor's browser chooses",
      meaning: `the one language of every login page, whatever the browser prefers (no language menu): ${UI_LANGUAGE_TAGS.join(', ')}`,
    },
  },
  UI_LANGUAGES: {
    group: 'gateway',
    parse: uiLanguageList,
    fallback: [] as readonly string[],
    doc: {
      default: 'all',
      meaning:
        "the languages the login pages' menu offers, comma-separated; a browser wanting none of them gets the first (see [the login UI](ui.md#languages))",
    },
  },
  DISABLE_CONTINUE: { group: 'gateway', parse: boolean, fallback: false, doc: { default: '`false`', meaning: 'skip the "continue to …" page after login' } },
  PASSKEYS: {
    group: 'gateway',
    parse: boolean,
    fallback: true,
    doc: {
      default: '`true`',
      meaning:
        'passkeys (WebAuthn): people register them on their account page and sign in with them (see [Passkeys](../README.md#passkeys)); `false` removes every passkey route (404) and button',
    },
  },
  PASSKEY_SECOND_FACTOR: {
    group: 'gateway',
    parse: boolean,
    fallback: false,
    doc: {
      default: '`false`',
      meaning: 'an account with a password and a passkey must also show the passkey (or its TOTP code) after the password, like a TOTP account',
    },
  },
  PASSKEY_ENROL_LINK_LIFETIME: {
    group: 'gateway',
    parse: integer(300, 30 * 86400),
    fallback: 86400,
    doc: {
      default: '`86400` (24 hours)',
      meaning:
        'seconds, 300 to 2592000: how long a first-passkey link of a passkey-only account (`portcullis passkeys enrol <user>`, see [Passkey-only accounts](../README.md#passkey-only-accounts)) can be used; each link works once',
    },
  },
  TRUSTED_PROXIES: {
    group: 'gateway',
    parse: list,
    fallback: DEFAULT_TRUSTED_PROXIES,
    doc: {
      default: '`127.0.0.0/8, ::1/128` (loopback only; the private ranges are no longer trusted by default)',
      meaning:
        "the proxies whose `X-Forwarded-For` is believed, read from the right (see [Client address](proxies.md#client-address-trusted_proxies-and-the-per-address-lock)); name your proxy's own addresses, never a range clients live in",
    },
  },
  FORWARD_AUTH_PORT: {
    group: 'gateway',
    parse: integer(1, 65535),
    fallback: null,
    doc: {
      default: '— / `127.0.0.1`',
      meaning:
        "give forward auth (`/api/auth/*`, plus the probes `/api/healthcheck`, `/api/ready` and `/api/health`) a listener of its own; the public listener (`PORT`) then answers every spelling of `/api/auth/*` with a 404 envelope and serves only the UI and the browser API. Why: the forward-auth answer is for the proxy alone (it hands out identity headers and the upstream's `response.basicauth` credentials), and the proxy in front of the login host is itself a trusted peer, so a path or peer check cannot keep clients from asking it; a port the internet cannot reach can. The shipped examples use it. In a container, set the address to one the proxy reaches (`0.0.0.0`) and do not publish the port. Unset: forward auth stays on the public listener, as before",
    },
  },
  FORWARD_AUTH_ADDRESS: { group: 'gateway', parse: text, fallback: '127.0.0.1', doc: { sameRowAs: 'FORWARD_AUTH_PORT' } },
  LOG_LEVEL: {
    group: 'gateway',
    parse: oneOf(LOG_LEVELS),
    fallback: 'info',
    doc: { default: '`info`', meaning: '`debug`, `info`, `warn`, `error`, `silent`' },
  },
  DATA_DIR: {
    group: 'gateway',
    parse: text,
    fallback: null,
    doc: {
      default: '`./data` (demo: a throwaway temp dir)',
      meaning:
        'where the gateway keeps `portcullis.db`: logouts, locks, used TOTP codes and OAuth flows, so a restart forgets none of them. Not used with `REDIS_URL` or `DATABASE_URL` (see [State on disk](operations.md#state-on-disk-data_dir))',
    },
  },
  GITHUB_CLIENT_ID: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    file: true,
    configures: true,
    doc: {
      label: '`GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET` (or `GITHUB_CLIENT_ID_FILE`, `GITHUB_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning: 'GitHub OAuth app credentials',
    },
  },
  GITHUB_CLIENT_SECRET: { group: 'oauth', parse: text, fallback: undefined, file: true, secret: true, doc: { sameRowAs: 'GITHUB_CLIENT_ID' } },
  GITHUB_URL: {
    group: 'oauth',
    parse: text,
    fallback: 'https://github.com',
    doc: { default: '`https://github.com`', meaning: 'web base of the authorize and token endpoints (GitHub Enterprise: `https://ghe.example.com`)' },
  },
  GITHUB_API_URL: {
    group: 'oauth',
    parse: text,
    fallback: 'https://api.github.com',
    doc: { default: '`https://api.github.com`', meaning: 'REST API base (GitHub Enterprise: `https://ghe.example.com/api/v3`)' },
  },
  GITHUB_GROUPS: {
    group: 'oauth',
    parse: oneOf(['off', 'orgs', 'teams']),
    fallback: 'off',
    doc: {
      default: '`off`',
      meaning:
        'GitHub memberships as groups for access rules and `Remote-Groups`: `orgs` (`acme`) or `teams` (`acme` and `acme:platform`, by team slug); asks for the `read:org` scope. See [OAuth](oauth.md#github-organisations-and-teams)',
    },
  },
  GITHUB_ORGS: {
    group: 'oauth',
    parse: list,
    fallback: [],
    doc: {
      default: 'empty (any account)',
      meaning: 'only members of one of these GitHub organisations may log in through GitHub (comma or space separated; turns on at least `GITHUB_GROUPS=orgs`)',
    },
  },
  GOOGLE_CLIENT_ID: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    file: true,
    configures: true,
    doc: {
      label: '`GOOGLE_CLIENT_ID`, `GOOGLE_CLIENT_SECRET` (or `GOOGLE_CLIENT_ID_FILE`, `GOOGLE_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning: 'Google OAuth client credentials',
    },
  },
  GOOGLE_CLIENT_SECRET: { group: 'oauth', parse: text, fallback: undefined, file: true, secret: true, doc: { sameRowAs: 'GOOGLE_CLIENT_ID' } },
  GOOGLE_AUTH_URL: {
    group: 'oauth',
    parse: text,
    fallback: 'https://accounts.google.com/o/oauth2/v2/auth',
    doc: {
      label: '`GOOGLE_AUTH_URL`, `GOOGLE_TOKEN_URL`, `GOOGLE_USER_URL`',
      default: "Google's public endpoints",
      meaning: 'override only for tests or a proxy',
    },
  },
  GOOGLE_TOKEN_URL: { group: 'oauth', parse: text, fallback: 'https://oauth2.googleapis.com/token', doc: { sameRowAs: 'GOOGLE_AUTH_URL' } },
  GOOGLE_USER_URL: { group: 'oauth', parse: text, fallback: 'https://openidconnect.googleapis.com/v1/userinfo', doc: { sameRowAs: 'GOOGLE_AUTH_URL' } },
  GOOGLE_HOSTED_DOMAINS: {
    group: 'oauth',
    parse: list,
    fallback: [],
    doc: {
      default: 'empty (any account)',
      meaning:
        "only accounts of these Google Workspace domains may log in through Google: the `hd` claim Google vouches for must be one of them (the e-mail's domain alone is not enough). Also sent as the `hd` hint",
    },
  },
  GENERIC_CLIENT_ID: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    file: true,
    configures: true,
    doc: {
      label: '`GENERIC_CLIENT_ID`, `GENERIC_CLIENT_SECRET` (or `GENERIC_CLIENT_ID_FILE`, `GENERIC_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning: 'client credentials at your provider',
    },
  },
  GENERIC_CLIENT_SECRET: { group: 'oauth', parse: text, fallback: undefined, file: true, secret: true, doc: { sameRowAs: 'GENERIC_CLIENT_ID' } },
  GENERIC_AUTH_URL: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    doc: {
      label: '`GENERIC_AUTH_URL`, `GENERIC_TOKEN_URL`, `GENERIC_USER_URL`',
      default: '— (required for generic without `GENERIC_ISSUER`)',
      meaning: 'authorization, token and userinfo endpoints',
    },
  },
  GENERIC_TOKEN_URL: { group: 'oauth', parse: text, fallback: undefined, doc: { sameRowAs: 'GENERIC_AUTH_URL' } },
  GENERIC_USER_URL: { group: 'oauth', parse: text, fallback: undefined, doc: { sameRowAs: 'GENERIC_AUTH_URL' } },
  GENERIC_ISSUER: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    doc: {
      default: '—',
      meaning:
        "the provider's issuer: the endpoints not set are read from its OpenID Connect discovery document, and the `iss` of every callback is checked against it ([RFC 9207](oauth.md#mix-up-protection-the-iss-parameter))",
    },
  },
  GENERIC_SCOPES: {
    group: 'oauth',
    parse: list,
    fallback: ['openid', 'email', 'profile'],
    doc: { default: '`openid email profile`', meaning: 'comma or space separated; add `groups` if your provider needs it for the groups claim' },
  },
  GENERIC_NAME: { group: 'oauth', parse: text, fallback: 'Generic', doc: { default: '`Generic`', meaning: 'how the UI names the generic provider' } },
  OAUTH_WHITELIST: {
    group: 'oauth',
    parse: text,
    fallback: '',
    doc: {
      default: 'empty (everyone)',
      meaning:
        'who may log in through OAuth, see [OAuth](oauth.md#who-may-log-in-oauth_whitelist). Empty with an OAuth provider and no `ACCESS_CONFIG`: a `warn` line at start and a warning from `config check`',
    },
  },
  OAUTH_AUTO_REDIRECT: {
    group: 'oauth',
    parse: lowercase,
    fallback: 'none',
    doc: {
      default: '`none`',
      meaning:
        '`github`, `google`, `generic` or a provider id of `OAUTH_PROVIDERS_<ID>_…` to send the login page straight to that provider; must name a configured provider',
    },
  },
  OAUTH_TIMEOUT: { group: 'oauth', parse: integer(1, 120), fallback: 10, doc: { default: '`10`', meaning: 'seconds any single call to a provider may take' } },
  OIDC_SIGNING_KEY_FILE: {
    group: 'oidc',
    parse: text,
    fallback: undefined,
    doc: {
      default: 'a key set generated once and kept in the durable store',
      meaning:
        'PEM file of private RSA keys (2048 bits or more): the first signs ID tokens (RS256), the others stay published for verification; see [key rotation](oidc.md#signing-keys-and-rotation)',
    },
  },
  OIDC_ACCESS_TOKEN_TTL: {
    group: 'oidc',
    parse: integer(60, 86400),
    fallback: 3600,
    doc: { default: '`3600`', meaning: 'lifetime of access and ID tokens in seconds' },
  },
  OIDC_REFRESH_TOKEN_TTL: {
    group: 'oidc',
    parse: integer(300, 366 * 86400),
    fallback: 30 * 86400,
    doc: { default: '`2592000` (30 days)', meaning: 'lifetime of a refresh token (issued with the `offline_access` scope, rotated on every use) in seconds' },
  },
  ACCESS_CONFIG: {
    group: 'rules',
    parse: text,
    fallback: null,
    doc: {
      default: '—',
      meaning:
        'path of the access rules file (YAML). Validated at start-up (every problem is listed and the gateway does not start) and reloaded when it changes',
    },
  },
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
  REDIS_URL: {
    group: 'operations',
    parse: text,
    fallback: undefined,
    file: true,
    doc: {
      default: '— (state in `DATA_DIR`)',
      meaning:
        'shared state for several replicas: `redis://`, `rediss://` (TLS), `redis+sentinel://`; the `_FILE` form reads it from a file (a Kubernetes or Docker secret). Forms: [Operations](operations.md#several-replicas-shared-state-in-redis)',
    },
  },
  REDIS_PREFIX: {
    group: 'operations',
    parse: text,
    fallback: 'portcullis:',
    doc: { default: '`portcullis:`', meaning: 'prefix of every Redis key and channel, so several gateways or other applications can share a Redis' },
  },
  DATABASE_URL: {
    group: 'operations',
    parse: text,
    fallback: undefined,
    file: true,
    doc: {
      default: '— (state in `DATA_DIR`)',
      meaning:
        'durable state for several replicas in PostgreSQL: `postgres://user:password@host:5432/database`; the `_FILE` form reads it from a file, so the password stays out of the environment. With `REDIS_URL` too, revocations stay in PostgreSQL and the short-lived state goes to Redis ([three deployment shapes](operations.md#three-deployment-shapes))',
    },
  },
  DATABASE_SSL: {
    group: 'operations',
    parse: databaseSsl,
    fallback: null,
    doc: {
      default: "— (as the URL's `sslmode` says)",
      meaning: '`require` (TLS, any certificate) or `verify-full` (the certificate must chain to a trusted CA and name the host)',
    },
  },
  DATABASE_CA_FILE: {
    group: 'operations',
    parse: text,
    fallback: null,
    doc: { default: "— (the system's CAs)", meaning: "PEM file of the CA that signed the PostgreSQL server's certificate; needs `DATABASE_SSL=verify-full`" },
  },
  METRICS_PORT: {
    group: 'operations',
    parse: integer(0, 65535),
    fallback: 0,
    doc: { default: 'off / `0.0.0.0`', meaning: 'Prometheus endpoint `GET /metrics` on its own port' },
  },
  METRICS_ADDRESS: { group: 'operations', parse: text, fallback: '0.0.0.0', doc: { sameRowAs: 'METRICS_PORT' } },
  SHUTDOWN_TIMEOUT: {
    group: 'operations',
    parse: integer(1, 600),
    fallback: 10,
    doc: { default: '`10`', meaning: 'seconds a SIGTERM waits for in-flight requests' },
  },
});

/**
 * Options whose names hold a variable part: one generic OAuth/OIDC provider per `<ID>`, in the
 * style of tinyauth v4 (`PROVIDERS_<ID>_CLIENT_ID`, ...), under our `OAUTH_` prefix. The id is the
 * `<ID>` in lower case with `_` read as `-` (`OAUTH_PROVIDERS_CORP_SSO_NAME` → `corp-sso`); it names
 * the provider in `/api/oauth/url/<id>`, the callback `/api/oauth/callback/<id>` and the session.
 * Parsing and the rules between the fields stay in `loadConfig`; this table feeds the flags,
 * `--help`, the near-miss warnings and docs/configuration.md.
 */
export const OAUTH_PROVIDER_PREFIX = 'OAUTH_PROVIDERS_';
export interface PatternFieldSpec {
  readonly file?: true;
  readonly secret?: true;
  readonly configures?: true;
  readonly doc: RowDoc | { readonly sameRowAs: string };
}
export const OAUTH_PROVIDER_FIELDS = {
  CLIENT_ID: {
    file: true,
    configures: true,
    doc: {
      label:
        '`OAUTH_PROVIDERS_<ID>_CLIENT_ID`, `OAUTH_PROVIDERS_<ID>_CLIENT_SECRET` (or `OAUTH_PROVIDERS_<ID>_CLIENT_ID_FILE`, `OAUTH_PROVIDERS_<ID>_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning:
        'a generic OAuth/OIDC provider with the id `<ID>` in lower case, `_` read as `-` (`OAUTH_PROVIDERS_CORP_SSO_CLIENT_ID` → `corp-sso`; not `github`, `google`, `generic`, `username`, `basic`, `ldap`, `password`, `totp`, `passkey`). Any number of them; see [OAuth](oauth.md#several-generic-providers-oauth_providers_id_)',
    },
  },
  CLIENT_SECRET: { file: true, secret: true, doc: { sameRowAs: 'CLIENT_ID' } },
  ISSUER: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_ISSUER`',
      default: '—',
      meaning: "the provider's issuer: endpoints not set come from its discovery document, and callbacks' `iss` is checked (as `GENERIC_ISSUER`)",
    },
  },
  AUTH_URL: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_AUTH_URL`, `OAUTH_PROVIDERS_<ID>_TOKEN_URL`, `OAUTH_PROVIDERS_<ID>_USER_INFO_URL`',
      default: '— (required without `ISSUER`)',
      meaning: 'authorization, token and userinfo endpoints',
    },
  },
  TOKEN_URL: { doc: { sameRowAs: 'AUTH_URL' } },
  USER_INFO_URL: { doc: { sameRowAs: 'AUTH_URL' } },
  SCOPES: { doc: { label: '`OAUTH_PROVIDERS_<ID>_SCOPES`', default: '`openid email profile`', meaning: 'comma or space separated, as `GENERIC_SCOPES`' } },
  NAME: { doc: { label: '`OAUTH_PROVIDERS_<ID>_NAME`', default: 'the id', meaning: 'how the login page names the provider (its button)' } },
  WHITELIST: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_WHITELIST`',
      default: '`OAUTH_WHITELIST`',
      meaning: "who may log in through this provider, in `OAUTH_WHITELIST`'s syntax; replaces `OAUTH_WHITELIST` for it",
    },
  },
  REDIRECT_URL: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_REDIRECT_URL`',
      default: '`${APP_URL}/api/oauth/callback/<id>`',
      meaning: "accepted for tinyauth compatibility only when it equals the default: the callback is always the gateway's own",
    },
  },
  INSECURE_SKIP_VERIFY: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_INSECURE_SKIP_VERIFY`',
      default: '`false`',
      meaning: "tinyauth's option, refused when true: trust a private CA with `NODE_EXTRA_CA_CERTS` instead",
    },
  },
} as const satisfies Record<string, PatternFieldSpec>;
export type OAuthProviderField = keyof typeof OAUTH_PROVIDER_FIELDS;

/** Every name ending a provider variable (`CLIENT_SECRET_FILE` included), longest first so that it wins over its own tail. */
const PROVIDER_SUFFIXES: readonly { readonly suffix: string; readonly field: OAuthProviderField; readonly file: boolean }[] = (
  Object.entries(OAUTH_PROVIDER_FIELDS) as [OAuthProviderField, PatternFieldSpec][]
)
  .flatMap(([field, spec]) => [{ suffix: field, field, file: false }, ...(spec.file ? [{ suffix: `${field}_FILE`, field, file: true }] : [])])
  .sort((a, b) => b.suffix.length - a.suffix.length);

/** A provider variable read apart: `<ID>` as written, the id it means, and the field. */
export interface ProviderVariable {
  /** `<ID>` as written in the name (`CORP_SSO`). */
  readonly key: string;
  /** The provider id (`corp-sso`); not yet validated. */
  readonly id: string;
  readonly field: OAuthProviderField;
  /** The name is the `_FILE` variant. */
  readonly file: boolean;
}

/** Reads `OAUTH_PROVIDERS_<ID>_<FIELD>[_FILE]`; null for any other name (a known prefix with an unknown field included). */
export function providerVariable(name: string): ProviderVariable | null {
  if (!name.startsWith(OAUTH_PROVIDER_PREFIX)) return null;
  const rest = name.slice(OAUTH_PROVIDER_PREFIX.length);
  for (const { suffix, field, file } of PROVIDER_SUFFIXES) {
    if (rest.length > suffix.length + 1 && rest.endsWith(`_${suffix}`)) {
      const key = rest.slice(0, -(suffix.length + 1));
      return { key, id: key.toLowerCase().replace(/_/g, '-'), field, file };
    }
  }
  return null;
}

/** True when `name` is a well-formed provider variable whose id could be valid: what flags and near-miss warnings accept. */
export function isProviderVariableName(name: string): boolean {
  const v = providerVariable(name);
  return v !== null && /^[A-Z0-9]+(?:_[A-Z0-9]+)*$/.test(v.key);
}

export type OptionName = keyof typeof OPTION_TABLE;
/** What an option reads as: its parser's value, or its fallback when unset. */
export type OptionValue<K extends OptionName> = (typeof OPTION_TABLE)[K] extends { parse: Parser<infer V>; fallback: infer F } ? V | F : never;

/** Every option name, `_FILE` variants included: what the environment and the `--flags` may set. */
export const OPTION_NAMES: readonly string[] = Object.entries(OPTION_TABLE).flatMap(([name, spec]) => ('file' in spec ? [name, `${name}_FILE`] : [name]));

/** The options whose value is a secret. */
export const SECRET_OPTIONS: ReadonlySet<string> = new Set(
  Object.entries(OPTION_TABLE)
    .filter(([, spec]) => 'secret' in spec)
    .map(([name]) => name),
);

/** Pattern fields (and their `_FILE` variants) of which any, when set for some `<ID>`, turns the demo off. */
export const CONFIGURING_PROVIDER_FIELDS: ReadonlySet<OAuthProviderField> = new Set(
  (Object.entries(OAUTH_PROVIDER_FIELDS) as [OAuthProviderField, PatternFieldSpec][]).filter(([, spec]) => spec.configures === true).map(([field]) => field),
);

/** The options (and their `_FILE` variants) of which any, when set, turns the demo off. */
export const CONFIGURING_OPTIONS: readonly string[] = Object.entries(OPTION_TABLE)
  .filter(([, spec]) => 'configures' in spec)
  .flatMap(([name, spec]) => ('file' in spec ? [name, `${name}_FILE`] : [name]));

/** The options of one group, in table order. */
export function optionsIn(group: GroupId): OptionName[] {
  return (Object.keys(OPTION_TABLE) as OptionName[]).filter((name) => OPTION_TABLE[name].group === group);
}
