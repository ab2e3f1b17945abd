import { randomBytes } from 'node:crypto';
import type { EnvReader } from './env';
import { boolean, integer, options, text } from './option-spec';

/** The sessions section: the secret every key derives from, the session cookie, login locks and the Basic cache. */

/** The secret (documented right after the public URL). */
export const SECRET_OPTION = options({
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
});

export const SESSION_OPTIONS = options({
  SESSION_EXPIRY: { group: 'gateway', parse: integer(60, 366 * 86400), fallback: 86400, doc: { default: '`86400`', meaning: 'session lifetime in seconds' } },
  SESSION_IDLE_TIMEOUT: {
    group: 'gateway',
    parse: integer(0, 366 * 86400),
    fallback: 0,
    doc: {
      default: '`0` (off)',
      meaning:
        "seconds a session may go unused before it ends (any replica's use counts; last use is noted at most every quarter of it, at most every minute); `0`: sessions end only at their expiry",
    },
  },
  SESSION_MAX_LIFETIME: {
    group: 'gateway',
    parse: integer(0, 5 * 366 * 86400),
    fallback: 0,
    doc: {
      default: '`0` (off)',
      meaning:
        'seconds since login a session may be kept alive: a session in use past half its lifetime is renewed (new expiry, same id; the cookie is set again) up to this bound; at least `SESSION_EXPIRY`; `0`: no renewal',
    },
  },
  REMEMBER_ME_EXPIRY: {
    group: 'gateway',
    parse: integer(0, 5 * 366 * 86400),
    fallback: 0,
    doc: {
      default: '`0` (off)',
      meaning:
        'session lifetime in seconds when the login page\'s "Keep me signed in" is ticked (the box shows only when this is set); more than `SESSION_EXPIRY`, at most `SESSION_MAX_LIFETIME` when that is set',
    },
  },
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
});

export interface SessionsConfig {
  readonly secret: string;
  readonly sessionExpirySeconds: number;
  /** SESSION_IDLE_TIMEOUT; 0: off. */
  readonly sessionIdleTimeoutSeconds: number;
  /** SESSION_MAX_LIFETIME; 0: sessions are never renewed. */
  readonly sessionMaxLifetimeSeconds: number;
  /** REMEMBER_ME_EXPIRY; 0: no "Keep me signed in". */
  readonly rememberMeExpirySeconds: number;
  readonly cookieSecure: boolean;
  readonly loginMaxRetries: number;
  readonly loginTimeoutSeconds: number;
  readonly basicCacheTtlSeconds: number;
}

/** SECRET (or SECRET_FILE; the demo makes one), the cookie's Secure flag for every gateway URL, and the session and lock options. */
export function readSessions(r: EnvReader, demo: boolean, appUrls: readonly string[]): SessionsConfig {
  let secret = r.fromFile('SECRET')?.trim();
  if (secret === undefined) {
    if (demo) secret = randomBytes(32).toString('base64url');
    else if (!r.unreadable('SECRET')) r.problems.push('SECRET (or SECRET_FILE) is required: at least 32 random characters');
  } else if (secret.length < 32) r.problems.push('SECRET must be at least 32 characters long');
  else r.placeholder('SECRET', secret, 'make a real one, e.g. openssl rand -base64 48');
  const cookieSecure = r.option(SESSION_OPTIONS, 'COOKIE_SECURE') ?? appUrls[0].startsWith('https://');
  // Issue 17: one Secure flag for every gateway URL; a browser drops a Secure cookie set over http.
  if (cookieSecure && appUrls.length > 1 && appUrls.some((u) => u.startsWith('http://')))
    r.problems.push(
      'APP_URL lists http:// gateway URLs while the session cookie is Secure (https primary or COOKIE_SECURE=true): browsers drop it there; use https:// for every entry',
    );
  const lifetimes = readLifetimes(r);
  return {
    secret: secret ?? '',
    ...lifetimes,
    cookieSecure,
    loginMaxRetries: r.option(SESSION_OPTIONS, 'LOGIN_MAX_RETRIES'),
    loginTimeoutSeconds: r.option(SESSION_OPTIONS, 'LOGIN_TIMEOUT'),
    basicCacheTtlSeconds: r.option(SESSION_OPTIONS, 'BASIC_CACHE_TTL'),
  };
}

type Lifetimes = Pick<SessionsConfig, 'sessionExpirySeconds' | 'sessionIdleTimeoutSeconds' | 'sessionMaxLifetimeSeconds' | 'rememberMeExpirySeconds'>;

/** SESSION_EXPIRY, the idle timeout, the renewal bound and "Keep me signed in" (issue 33), checked against each other. */
function readLifetimes(r: EnvReader): Lifetimes {
  const expiry = r.option(SESSION_OPTIONS, 'SESSION_EXPIRY');
  const idle = r.option(SESSION_OPTIONS, 'SESSION_IDLE_TIMEOUT');
  const max = r.option(SESSION_OPTIONS, 'SESSION_MAX_LIFETIME');
  const remember = r.option(SESSION_OPTIONS, 'REMEMBER_ME_EXPIRY');
  if (max > 0 && max < expiry)
    r.problems.push(`SESSION_MAX_LIFETIME (${max}) must be at least SESSION_EXPIRY (${expiry}): a session cannot be renewed to less than it starts with`);
  if (remember > 0 && remember <= expiry)
    r.problems.push(`REMEMBER_ME_EXPIRY (${remember}) must be more than SESSION_EXPIRY (${expiry}), or it would not keep anyone signed in longer`);
  if (remember > 0 && max > 0 && remember > max)
    r.problems.push(`REMEMBER_ME_EXPIRY (${remember}) must be at most SESSION_MAX_LIFETIME (${max}), the longest any session may live`);
  return { sessionExpirySeconds: expiry, sessionIdleTimeoutSeconds: idle, sessionMaxLifetimeSeconds: max, rememberMeExpirySeconds: remember };
}
