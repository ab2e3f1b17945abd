import type BetterSqlite3 from 'better-sqlite3';
import type { DestinationStream } from 'pino';
import type { OidcProviderModule } from '../adapters/oidc/oidc-provider-module';
import { lazyModule } from '../adapters/system/lazy-module';

/**
 * What a library said on its own while loading (see `oidcProvider`), for the gateway to log as a
 * warning: taken (emptied) by {@link takeLibraryNotices}.
 */
const libraryNotices: string[] = [];

/** The notices libraries wrote while loading since the last call, emptied. */
export function takeLibraryNotices(): string[] {
  return libraryNotices.splice(0, libraryNotices.length);
}

/**
 * The libraries of optional features, loaded in this one place and only when the feature is
 * configured: a gateway without metrics, Redis, PostgreSQL, LDAP, OAuth, SQLite, YAML files or a
 * terminal does not carry prom-client, ioredis, pg, ldapts, simple-oauth2, better-sqlite3, yaml or
 * pino-pretty in its idle memory (see docs/benchmark.md). Composition hands each module to the
 * adapter that uses it, typed with `typeof import(...)`, so the adapter neither requires nor knows
 * when it is loaded. Each loader loads once.
 */
export interface OptionalModules {
  readonly promClient: () => typeof import('prom-client');
  readonly ioredis: () => typeof import('ioredis');
  readonly pg: () => typeof import('pg');
  readonly ldapts: () => typeof import('ldapts');
  readonly simpleOAuth2: () => typeof import('simple-oauth2');
  readonly betterSqlite3: () => typeof BetterSqlite3;
  readonly yaml: () => typeof import('yaml');
  readonly qrcode: () => typeof import('qrcode');
  readonly otplib: () => typeof import('otplib');
  readonly argon2: () => typeof import('argon2');
  /** The OpenID Connect provider (ESM only: `require` of ESM, Node ≥ 20.19), typed by our own declaration. */
  readonly oidcProvider: () => OidcProviderModule;
  /** Workload JWTs' checks (ESM only, like oidc-provider, which depends on it too). */
  readonly jose: () => typeof import('jose');
  readonly pinoPretty: () => ((options: Record<string, unknown>) => DestinationStream) | null;
}

export const optionalModules: OptionalModules = {
  promClient: lazyModule(() => require('prom-client') as typeof import('prom-client')),
  ioredis: lazyModule(() => require('ioredis') as typeof import('ioredis')),
  pg: lazyModule(() => require('pg') as typeof import('pg')),
  /** LDAP_ADDRESS: the client, and the filter parser that validates LDAP_*_FILTER. */
  ldapts: lazyModule(() => require('ldapts') as typeof import('ldapts')),
  /** An OAuth provider's code flow. */
  simpleOAuth2: lazyModule(() => require('simple-oauth2') as typeof import('simple-oauth2')),
  /** The SQLite state in DATA_DIR (and its backup and restore commands). */
  betterSqlite3: lazyModule((): typeof BetterSqlite3 => require('better-sqlite3') as typeof BetterSqlite3),
  /** ACCESS_CONFIG, and USERS_FILE in its YAML form. */
  yaml: lazyModule(() => require('yaml') as typeof import('yaml')),
  /** `portcullis totp enroll`'s QR codes (about 60 modules and 90 ms to load: never for the gateway). */
  qrcode: lazyModule(() => require('qrcode') as typeof import('qrcode')),
  /** TOTP: checking a code (the first one a person types) and `portcullis totp enroll`'s secrets (with its hash and base32 libraries, about 1 MB of idle memory). */
  otplib: lazyModule(() => require('otplib') as typeof import('otplib')),
  /** Argon2 password hashes (`$argon2id$`, `$argon2i$`: Authelia's), checked or written only when an account has one or `user add --argon2id` asks. */
  argon2: lazyModule(() => require('argon2') as typeof import('argon2')),
  /** OIDC_CLIENTS_<ID>_…: panva's oidc-provider (with jose and its Koa), only when a client is configured. */
  oidcProvider: lazyModule((): OidcProviderModule => {
    // The library writes its notices (an unsupported runtime, say) with console.warn as it loads:
    // kept here and logged by the gateway as warnings, never a raw line in the JSON log.
    const { warn, info } = console;
    const keep = (...args: unknown[]): void => void libraryNotices.push(args.map(String).join(' '));
    console.warn = keep;
    console.info = keep;
    try {
      const m = require('oidc-provider') as {
        default: OidcProviderModule['Provider'];
        interactionPolicy: OidcProviderModule['interactionPolicy'];
        errors: OidcProviderModule['errors'];
      };
      return { Provider: m.default, interactionPolicy: m.interactionPolicy, errors: m.errors };
    } finally {
      console.warn = warn;
      console.info = info;
    }
  }),
  /** JWT_ISSUERS_<ID>_…: panva's jose checks workload JWTs, only when an issuer is configured. */
  jose: lazyModule(() => require('jose') as typeof import('jose')),
  /** pino-pretty is an optional dependency: null when it is not installed. */
  pinoPretty: lazyModule((): ((options: Record<string, unknown>) => DestinationStream) | null => {
    try {
      return require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
    } catch {
      return null;
    }
  }),
};

/** Log lines for a person at a terminal: prettified when stdout is one and pino-pretty is installed; otherwise undefined (JSON lines). */
export function terminalLogStream(): DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  return optionalModules.pinoPretty()?.({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}
