import * as nodePostgres from 'pg';
import { DatabaseStartError } from '../../src/adapters/state/sqlite/sqlite-database';
import { MIGRATIONS } from '../../src/adapters/state/sqlite/migrations';
import { PostgresDatabase } from '../../src/adapters/state/postgres/postgres-database';
import { PostgresLoginAttempts } from '../../src/adapters/state/postgres/postgres-login-attempts';
import { PostgresRevokedSessions } from '../../src/adapters/state/postgres/postgres-revoked-sessions';
import { PostgresUsedOAuthFlows } from '../../src/adapters/state/postgres/postgres-used-oauth-flows';
import { PostgresSessionIndex } from '../../src/adapters/state/postgres/postgres-session-index';
import { sessionIndexContract } from '../contract/ports/session-index.contract';
import { PostgresAccessTokens } from '../../src/adapters/state/postgres/postgres-access-tokens';
import { accessTokensContract } from '../contract/ports/access-tokens.contract';
import { PostgresUsedTotpSteps } from '../../src/adapters/state/postgres/postgres-used-totp-steps';
import { PostgresPasskeyCredentials } from '../../src/adapters/state/postgres/postgres-passkey-credentials';
import { passkeyCredentialsContract } from '../contract/ports/passkey-credentials.contract';
import { StateStoreUnavailableError } from '../../src/application/ports/state-store-unavailable';
import { silentLogger } from '../support/loggers';
import { loginAttemptsContract } from '../contract/ports/login-attempts.contract';
import { revokedSessionsContract } from '../contract/ports/revoked-sessions.contract';
import { usedOAuthFlowsContract } from '../contract/ports/used-oauth-flows.contract';
import { usedTotpStepsContract } from '../contract/ports/used-totp-steps.contract';
import { FixedClock } from '../support/fakes';
import { waitFor } from '../support/wait';
import { PostgresServer } from '../support/postgres-server';
import { sharedPostgres } from './support/shared-postgres';

/** The newest schema version (steps may be renumbered at merge: never the count of steps). */
const LATEST = MIGRATIONS[MIGRATIONS.length - 1].version;

const waitUntil = (check: () => boolean | Promise<boolean>, ms: number): Promise<void> => waitFor(check, 'the condition', ms);

const HOUR = 3_600_000;

const pg = sharedPostgres('contract');

const { perTest } = pg;

loginAttemptsContract('PostgresLoginAttempts', (env) => perTest(env, (db) => new PostgresLoginAttempts(db, env.clock)));
revokedSessionsContract('PostgresRevokedSessions', (env) => perTest(env, (db) => new PostgresRevokedSessions(db, env.clock)));
usedTotpStepsContract('PostgresUsedTotpSteps', (env) => perTest(env, (db) => new PostgresUsedTotpSteps(db, env.clock)));
usedOAuthFlowsContract('PostgresUsedOAuthFlows', (env) => perTest(env, (db) => new PostgresUsedOAuthFlows(db, env.clock)));
passkeyCredentialsContract('PostgresPasskeyCredentials', (env) => perTest(env, (db) => new PostgresPasskeyCredentials(db)));
sessionIndexContract('PostgresSessionIndex', (env) => perTest(env, (db) => new PostgresSessionIndex(db, env.clock)));
// Reopened: a second database object (its own pool), as another replica or a restarted gateway.
accessTokensContract('PostgresAccessTokens', (env) => perTest(env, (db) => new PostgresAccessTokens(db)), {
  reopen: (env) => perTest(env, (db) => new PostgresAccessTokens(db)),
});

describe('PostgreSQL schema', () => {
  it('ships a PostgreSQL dialect for every schema step', () => {
    for (const step of MIGRATIONS) expect(typeof step.postgres).toBe('string');
  });

  it('records the schema version in portcullis_schema', async () => {
    const db = pg.open(new FixedClock(Date.now()), pg.server.createDatabase('schema_version'));
    await db.start();
    await db.close();
    expect(pg.server.sql('schema_version', 'SELECT max(version) FROM portcullis_schema').trim()).toBe(String(LATEST));
  });

  it('refuses to start on a schema newer than this code knows', async () => {
    const name = 'schema_newer';
    const newerUrl = pg.server.createDatabase(name);
    const newer = [
      ...MIGRATIONS,
      {
        version: LATEST + 1,
        description: 'future',
        sql: 'CREATE TABLE future_feature (id TEXT PRIMARY KEY)',
        postgres: 'CREATE TABLE future_feature (id TEXT PRIMARY KEY)',
      },
    ];
    const future = new PostgresDatabase({
      pg: nodePostgres,
      target: { url: newerUrl, ssl: null, ca: null },
      logger: silentLogger,
      clock: new FixedClock(Date.now()),
      migrations: newer,
    });
    await future.start();
    await future.close();
    const today = pg.open(new FixedClock(Date.now()), newerUrl);
    await expect(today.start()).rejects.toThrow(
      new DatabaseStartError(
        `the PostgreSQL database has schema version ${LATEST + 1}, newer than this Portcullis knows (${LATEST}): run the newer Portcullis, or restore a backup made by this one`,
      ),
    );
    await today.close();
  });

  it('refuses a wrong password clearly, without repeating the URL', async () => {
    const wrong = pg.url.replace(pg.server.password, 'not-the-password');
    const db = pg.open(new FixedClock(Date.now()), wrong);
    const started = db.start();
    await expect(started).rejects.toBeInstanceOf(DatabaseStartError);
    await expect(started).rejects.toThrow(/28P01/);
    await started.catch((e: Error) => expect(e.message).not.toContain('not-the-password'));
    await db.close();
  });

  it('two gateways starting together migrate once', async () => {
    const raceUrl = pg.server.createDatabase('schema_race');
    const a = pg.open(new FixedClock(Date.now()), raceUrl);
    const b = pg.open(new FixedClock(Date.now()), raceUrl);
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.close(), b.close()]);
    expect(pg.server.sql('schema_race', 'SELECT count(*) FROM portcullis_schema').trim()).toBe(String(MIGRATIONS.length));
  });
});

describe('PostgreSQL state shared by two replicas', () => {
  const clock = new FixedClock(Date.now());
  let a: PostgresDatabase;
  let b: PostgresDatabase;
  let revokedA: PostgresRevokedSessions;
  let revokedB: PostgresRevokedSessions;
  let attemptsA: PostgresLoginAttempts;
  let attemptsB: PostgresLoginAttempts;
  beforeAll(async () => {
    const shared = pg.server.createDatabase('replicas');
    a = pg.open(clock, shared);
    b = pg.open(clock, shared);
    revokedA = new PostgresRevokedSessions(a, clock);
    revokedB = new PostgresRevokedSessions(b, clock);
    attemptsA = new PostgresLoginAttempts(a, clock);
    attemptsB = new PostgresLoginAttempts(b, clock);
    await Promise.all([a.start(), b.start()]);
  });
  afterAll(async () => Promise.all([a.close(), b.close()]));

  it('a revocation made on one replica is refused on the other within a second', async () => {
    await revokedA.revoke('shared-session', clock.now() + HOUR);
    const started = Date.now();
    await waitUntil(async () => revokedB.isRevoked('shared-session'), 1000);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('concurrent guesses on both replicas never get more than the limit granted', async () => {
    const limits = [{ key: 'account:shared', maxFailures: 5 }];
    const tries = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? attemptsA : attemptsB).reserve(limits, clock.now(), 60_000));
    const results = await Promise.all(tries);
    expect(results.filter((r) => r.granted)).toHaveLength(5);
    // The lock reached through A is known in B's memory without a query.
    await waitUntil(async () => (await attemptsB.lockedUntil('account:shared', clock.now())) > 0, 1000);
  });

  it('a lock lifted by a refund on one replica is lifted on the other', async () => {
    const limits = [{ key: 'account:refund', maxFailures: 2 }];
    await attemptsA.reserve(limits, clock.now(), 60_000);
    const last = await attemptsA.reserve(limits, clock.now(), 60_000);
    expect(last.granted).toBe(true);
    await waitUntil(async () => (await attemptsB.lockedUntil('account:refund', clock.now())) > 0, 1000);
    await attemptsA.refund(limits, clock.now());
    await waitUntil(async () => (await attemptsB.lockedUntil('account:refund', clock.now())) === 0, 1000);
  });
});

describe('PostgreSQL outage', () => {
  it('answers revocations from memory, fails writes closed with StateStoreUnavailableError, and recovers by itself', async () => {
    const clock = new FixedClock(Date.now());
    const own = await PostgresServer.start();
    try {
      const shared = own.createDatabase('outage');
      const a = pg.open(clock, shared);
      const b = pg.open(clock, shared);
      const revokedA = new PostgresRevokedSessions(a, clock);
      const revokedB = new PostgresRevokedSessions(b, clock);
      const totp = new PostgresUsedTotpSteps(a, clock);
      await Promise.all([a.start(), b.start()]);
      await revokedA.revoke('before-outage', clock.now() + HOUR);
      await waitUntil(async () => revokedB.isRevoked('before-outage'), 1000);

      await own.down('immediate');
      expect(await revokedB.isRevoked('before-outage')).toBe(true);
      expect(await revokedB.isRevoked('live-session')).toBe(false);
      await expect(revokedA.revoke('during-outage', clock.now() + HOUR)).rejects.toBeInstanceOf(StateStoreUnavailableError);
      await expect(totp.claim('alice', 1, clock.now() + 90_000)).rejects.toBeInstanceOf(StateStoreUnavailableError);
      await expect(a.check(AbortSignal.timeout(1000))).rejects.toThrow();

      await own.up();
      await waitUntil(async () => a.isListening() && b.isListening(), 10_000);
      await a.check(AbortSignal.timeout(1000));
      // Nothing acknowledged before the crash was lost; a revocation after it reaches the other replica again.
      expect(own.sql('outage', "SELECT count(*) FROM revoked_sessions WHERE id = 'before-outage'").trim()).toBe('1');
      await revokedA.revoke('after-outage', clock.now() + HOUR);
      await waitUntil(async () => revokedB.isRevoked('after-outage'), 1000);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await own.stop();
    }
  });

  it('a revocation committed while a replica was not listening is loaded when it reconnects', async () => {
    const clock = new FixedClock(Date.now());
    const shared = pg.server.createDatabase('missed');
    const b = pg.open(clock, shared);
    const revokedB = new PostgresRevokedSessions(b, clock);
    await b.start();
    // Cut B's listener from the server side, then revoke while it is away.
    pg.server.sql('missed', "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'missed' AND query LIKE 'LISTEN%'");
    await waitUntil(async () => !b.isListening(), 5000);
    pg.server.sql('missed', `INSERT INTO revoked_sessions (id, until) VALUES ('missed-while-away', ${clock.now() + HOUR})`);
    await waitUntil(async () => b.isListening(), 5000);
    expect(await revokedB.isRevoked('missed-while-away')).toBe(true);
    await b.close();
  });

  it('a replica that cannot reach the database at start answers cookies with unavailable, never with not revoked', async () => {
    const clock = new FixedClock(Date.now());
    const own = await PostgresServer.start();
    const shared = own.createDatabase('late');
    await own.down('fast');
    try {
      const db = pg.open(clock, shared);
      const revoked = new PostgresRevokedSessions(db, clock);
      await db.start();
      await expect(revoked.isRevoked('any')).rejects.toBeInstanceOf(StateStoreUnavailableError);
      await expect(revoked.check()).rejects.toThrow();
      await own.up();
      await waitUntil(async () => db.isListening(), 10_000);
      expect(await revoked.isRevoked('any')).toBe(false);
      await db.close();
    } finally {
      await own.stop();
    }
  });
});
