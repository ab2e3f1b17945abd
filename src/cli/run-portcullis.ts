import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NativePasswordHasher } from '../adapters/crypto/native-password-hasher';
import { runCli } from './commands/run-cli';
import { ProcessIo, type CliIo } from './cli-io';
import { configWarnings, loadConfig } from '../composition/config';
import type { Config } from '../config/load';
import { describeLdapTls } from '../config/ldap';
import { secretFlagWarnings } from '../config/flags';
import { renderOptionsHelp, unknownOptionWarnings } from '../config/option-docs';
import { DEFAULT_DATA_DIR } from '../config/state';
import { explain } from './explain';
import { describeCookieDomain, protectedDomainOfAppUrl } from '../composition/cookie-domain';
import { optionalModules } from '../composition/optional-modules';
import { isPublicClient } from '../domain/oidc-client';

/** DATABASE_URL (or the file DATABASE_URL_FILE names) and its TLS options, for `portcullis backup`; null when unset. */
function postgresBackupTarget(env: NodeJS.ProcessEnv): { url: string; ssl: string | null; caFile: string | null } | null {
  const file = env.DATABASE_URL_FILE?.trim();
  const url = file !== undefined && file !== '' ? readFileSync(file, 'utf8').trim() : env.DATABASE_URL?.trim();
  if (url === undefined || url === '') return null;
  return { url, ssl: env.DATABASE_SSL?.trim() || null, caFile: env.DATABASE_CA_FILE?.trim() || null };
}

/** The `portcullis` executable: the CLI, wired to this process's environment. */
export function runPortcullis(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo = new ProcessIo()): Promise<number> {
  return runCli(argv, io, {
    hasher: (newHashes) => new NativePasswordHasher({ newHashes, argon2: optionalModules.argon2 }),
    qrcode: optionalModules.qrcode,
    otplib: optionalModules.otplib,
    // The gateway's modules load only when it is the command: account tooling starts faster without them.
    serve: (args) =>
      (require('./serve') as typeof import('./serve')).main(args, env).catch((e: unknown) => {
        io.err(`Portcullis failed to start: ${e instanceof Error ? e.message.split('\n')[0] : 'unknown error'}\n`);
        return 1;
      }),
    optionsHelp: renderOptionsHelp,
    // The probes' sockets (and node:tls with them) load only for `doctor`, not in every gateway.
    doctor: {
      transport: (options) => (require('./doctor/socket-probe-transport') as typeof import('./doctor/socket-probe-transport')).socketProbeTransport(options),
    },
    // The gateway's container and store load only for this command.
    sessions: (dataDir) => (require('./admin/sessions-admin') as typeof import('./admin/sessions-admin')).openSessionsAdmin(env, dataDir),
    signingKeys: (dataDir) => (require('./admin/signing-keys-admin') as typeof import('./admin/signing-keys-admin')).openSigningKeysAdmin(env, dataDir),
    passkeys: (dataDir) => (require('./admin/passkeys-admin') as typeof import('./admin/passkeys-admin')).openPasskeyEnrolment(env, dataDir),
    tokens: (dataDir) => (require('./admin/tokens-admin') as typeof import('./admin/tokens-admin')).openTokensAdmin(env, dataDir),
    // The database tools load only for their own commands; the data dir is read like the gateway reads it.
    backup: async (file, dataDir) => {
      // With DATABASE_URL the records are in PostgreSQL: pg_dump copies them (a --data-dir still means the embedded file).
      const database = dataDir === null ? postgresBackupTarget(env) : null;
      if (database !== null) {
        const { backupPostgres } = require('../adapters/state/postgres/postgres-backup') as typeof import('../adapters/state/postgres/postgres-backup');
        return backupPostgres(database, file);
      }
      const { backupDatabase } = require('../adapters/state/sqlite/sqlite-backup') as typeof import('../adapters/state/sqlite/sqlite-backup');
      return backupDatabase(dataDir ?? env.DATA_DIR ?? DEFAULT_DATA_DIR, file, optionalModules.betterSqlite3());
    },
    restore: async (file, dataDir) => {
      if (dataDir === null && postgresBackupTarget(env) !== null) {
        throw new Error('with DATABASE_URL, restore a pg_dump backup with pg_restore --clean (see docs/operations.md), the gateways stopped');
      }
      const { restoreDatabase } = require('../adapters/state/sqlite/sqlite-backup') as typeof import('../adapters/state/sqlite/sqlite-backup');
      return restoreDatabase(dataDir ?? env.DATA_DIR ?? DEFAULT_DATA_DIR, file, Date.now(), optionalModules.betterSqlite3());
    },
    explain: (args, write) => explain(args, env, write),
    checkConfig: (args) => {
      const loaded = loadConfig({ env, argv: args });
      const flagWarnings = [...unknownOptionWarnings(env), ...secretFlagWarnings(args)];
      if (!loaded.ok) return { problems: loaded.problems, summary: [], demo: false, warnings: flagWarnings };
      const c = loaded.config;
      const summary = [`APP_URL ${c.appUrl}`, `session cookie: ${describeCookieDomain(protectedDomainOfAppUrl(c.appUrl))}`];
      // Issue 17: each further gateway URL, with the cookie domain its hand-off sets.
      for (const url of c.appUrls.slice(1))
        summary.push(`APP_URL ${url} (hand-off from ${c.appUrl}): session cookie ${describeCookieDomain(protectedDomainOfAppUrl(url))}`);
      if (c.users.length > 0) summary.push(`USERS: ${c.users.length} account${c.users.length === 1 ? '' : 's'}`);
      if (c.usersFile !== null)
        summary.push(
          `USERS_FILE ${c.usersFile.path}: ${c.usersFile.entries.length} account${c.usersFile.entries.length === 1 ? '' : 's'} (watched for changes)`,
        );
      summary.push(
        c.forwardAuthPort === null
          ? 'forward auth (/api/auth/*) on the public port: set FORWARD_AUTH_PORT to give it an internal listener'
          : `forward auth (/api/auth/*) only on ${c.forwardAuthAddress}:${c.forwardAuthPort}; the public port answers it 404`,
      );
      if (c.ldap !== null) {
        summary.push(
          `LDAP ${c.ldap.url}, base ${c.ldap.baseDn}, filter ${c.ldap.searchFilter}; ${describeLdapTls(c.ldap)}` +
            (c.ldap.nestedGroups !== 'off' ? `; nested groups: ${c.ldap.nestedGroups}` : ''),
        );
      }
      summary.push(...describeOAuth(c));
      if (c.oidc.clients.length > 0)
        summary.push(
          `OpenID Connect provider: issuer ${c.appUrl}, discovery ${c.appUrl}/.well-known/openid-configuration; clients ${c.oidc.clients
            .map(
              (cl) =>
                `${cl.clientId}${isPublicClient(cl) ? ' (public, PKCE)' : ''}${cl.allowedUsers.length + cl.allowedGroups.length > 0 ? ' (restricted)' : ''}`,
            )
            .join(', ')}; signing key ${c.oidc.signingKeyPem !== null ? 'from OIDC_SIGNING_KEY_FILE' : 'set kept in the state store'}`,
        );
      // Which store keeps logouts and locks; never the Redis URL itself (it may hold a password).
      summary.push(
        c.database !== null
          ? `state: PostgreSQL (DATABASE_URL${c.redis !== null ? '; revocations there, locks and used codes in Redis' : ''}; DATA_DIR is not used)`
          : c.redis !== null
            ? 'state: shared in Redis (REDIS_URL; DATA_DIR is not used)'
            : `state: ${join(resolve(c.dataDir ?? DEFAULT_DATA_DIR), 'portcullis.db')}`,
      );
      return { problems: [], summary, demo: c.demo, warnings: [...flagWarnings, ...configWarnings(c)] };
    },
  });
}

/** One line per OAuth provider: its id (the callback path), name, and what it checks beyond the e-mail; never a secret. */
function describeOAuth(c: Config): string[] {
  const { github, google, generic, providers } = c.oauth;
  const lines: string[] = [];
  const callback = (id: string) => `callback ${c.appUrl}/api/oauth/callback/${id}`;
  if (github)
    lines.push(`OAuth github: ${callback('github')}; groups ${github.groups}` + (github.orgs.length > 0 ? `; only members of ${github.orgs.join(', ')}` : ''));
  if (google)
    lines.push(
      `OAuth google: ${callback('google')}` +
        ((google.hostedDomains ?? []).length > 0 ? `; only Workspace domains ${(google.hostedDomains ?? []).join(', ')}` : ''),
    );
  for (const p of [...(generic ? [generic] : []), ...providers]) {
    lines.push(
      `OAuth ${p.id} "${p.name}": ${callback(p.id)}; ` +
        (p.issuer !== undefined ? `issuer ${p.issuer} (discovery, iss checked)` : 'endpoints set, no issuer (iss not checked)') +
        (p.whitelist !== undefined ? '; its own whitelist' : ''),
    );
  }
  return lines;
}
