import type { EnvReader } from './env';
import { options, text, type Parser } from './option-spec';
import { placeholderMarkerIn } from './placeholders';
import { parseRedisUrl, type RedisTarget } from './redis-url';
import { cannotRead } from './unreadable-file';

/** The state section: where the gateway keeps its state (DATA_DIR, Redis, PostgreSQL). */

/** Where a gateway process without DATA_DIR (and without REDIS_URL) keeps its database. */
export const DEFAULT_DATA_DIR = './data';

/** PostgreSQL's TLS modes the gateway offers: encrypted with any certificate, or verified against a CA and the host name. */
const databaseSsl: Parser<'require' | 'verify-full'> = (raw, name) => {
  const v = raw.toLowerCase();
  return v === 'require' || v === 'verify-full' ? { ok: true, value: v } : { ok: false, problem: `${name} must be require or verify-full` };
};
export const DATA_DIR_OPTIONS = options({
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
});

/** Redis and PostgreSQL (documented with the operations group). */
export const SHARED_STATE_OPTIONS = options({
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
});

/** A PostgreSQL database, as DATABASE_URL, DATABASE_SSL and DATABASE_CA_FILE name it. */
export interface PostgresTarget {
  /** `postgres://user:password@host:port/database`; holds a password, never logged. */
  readonly url: string;
  /** null: as the URL says (`sslmode`), otherwise plain TCP. */
  readonly ssl: 'require' | 'verify-full' | null;
  /** PEM of the CA that signed the server's certificate (verify-full); null: the system's CAs. */
  readonly ca: string | null;
}

export interface StateConfig {
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
}

export function readState(r: EnvReader): StateConfig {
  // REDIS_URL may hold a password: problems name the form, never the value.
  let redis: RedisTarget | null = null;
  const redisUrl = r.fromFile('REDIS_URL')?.trim();
  if (redisUrl !== undefined && redisUrl !== '') {
    const parsed = parseRedisUrl(redisUrl);
    if (parsed.ok) {
      redis = parsed.target;
      const passwords = [parsed.target.password, parsed.target.kind === 'sentinel' ? parsed.target.sentinelPassword : undefined];
      if (passwords.some((pw) => pw !== undefined && placeholderMarkerIn(pw) !== null)) {
        r.problems.push('REDIS_URL holds a placeholder password copied from the examples: set a real password on Redis and in REDIS_URL');
      }
    } else r.problems.push(parsed.problem);
  }
  const redisPrefix = r.option(SHARED_STATE_OPTIONS, 'REDIS_PREFIX');
  if (!/^[A-Za-z0-9:_.{}-]{1,64}$/.test(redisPrefix)) r.problems.push('REDIS_PREFIX must be 1 to 64 characters of letters, digits and :_.{}-');
  const database = readDatabase(r);
  return { redis, redisPrefix, dataDir: r.option(DATA_DIR_OPTIONS, 'DATA_DIR'), database };
}

/**
 * DATABASE_URL (or DATABASE_URL_FILE, so the password stays out of the environment), DATABASE_SSL
 * and DATABASE_CA_FILE. The URL holds a password: problems name the form, never the value.
 */
function readDatabase(r: EnvReader): PostgresTarget | null {
  const raw = r.fromFile('DATABASE_URL')?.trim();
  const ssl = r.option(SHARED_STATE_OPTIONS, 'DATABASE_SSL');
  const caFile = r.option(SHARED_STATE_OPTIONS, 'DATABASE_CA_FILE');
  if (raw === undefined || raw === '') {
    if (r.get('DATABASE_SSL') !== undefined || caFile !== null) r.problems.push('DATABASE_SSL and DATABASE_CA_FILE need DATABASE_URL');
    return null;
  }
  let url: URL | null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (url === null || !['postgres:', 'postgresql:'].includes(url.protocol) || url.hostname === '') {
    r.problems.push('DATABASE_URL must look like postgres://user:password@host:5432/database');
    return null;
  }
  if (placeholderMarkerIn(url.password) !== null) {
    r.problems.push('DATABASE_URL holds a placeholder password copied from the examples: set a real password on PostgreSQL and in DATABASE_URL');
  }
  // An unknown DATABASE_SSL was reported by its parser (read), and reads as unset here.
  if (r.get('DATABASE_SSL') !== undefined && url.searchParams.has('sslmode'))
    r.problems.push('set TLS either with DATABASE_SSL or with sslmode in DATABASE_URL, not both');
  if (caFile !== null && ssl !== 'verify-full') r.problems.push('DATABASE_CA_FILE needs DATABASE_SSL=verify-full');
  let ca: string | null = null;
  if (caFile !== null) {
    try {
      ca = r.readFile(caFile);
    } catch (e) {
      r.problems.push(`DATABASE_CA_FILE: ${cannotRead(caFile, e)}`);
    }
  }
  return { url: raw, ssl, ca };
}
