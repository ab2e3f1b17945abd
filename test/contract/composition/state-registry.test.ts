import * as ioredis from 'ioredis';
import * as nodePostgres from 'pg';
import { PostgresDatabase } from '../../../src/adapters/state/postgres/postgres-database';
import { RedisConnection } from '../../../src/adapters/state/redis/redis-connection';
import { Resources } from '../../../src/composition/resources';
import { storesOf } from '../../../src/composition/state';
import { FixedClock } from '../../support/fakes';
import { silentLogger } from '../../support/loggers';

// Real connection objects, never started: a store registers what it needs when it is built, before any I/O.
const clock = new FixedClock();
const none = { redis: { connection: null }, database: { database: null }, postgres: { postgres: null } };

describe('a backend bundle registers what the gateway starts and probes, store by store', () => {
  it('Redis: the revocations and the enrolled TOTP secrets start their feed and hold readiness; the others register nothing', async () => {
    const connection = new RedisConnection({
      ioredis,
      target: { kind: 'standalone', host: '127.0.0.1', port: 1, tls: false, db: 0 },
      prefix: 'p:',
      logger: silentLogger,
    });
    const registry = new Resources();
    const starts: Array<() => void> = [];
    const spy = { onStart: (f: () => void) => void starts.push(f), ready: registry.ready.bind(registry) };
    const stores = storesOf({ ...none, redis: { connection } }, { clock, logger: silentLogger, registry: spy }, 'records');
    stores.usedTotpSteps();
    stores.sessionIndex();
    stores.handoffCodes();
    expect(starts).toHaveLength(0);
    expect(registry.readiness).toEqual([]);
    const revoked = stores.revokedSessions();
    const enrolled = stores.enrolledTotpSecrets({ seal: (s) => s, open: (s) => s });
    expect(starts).toHaveLength(2);
    expect(registry.readiness).toEqual([revoked, enrolled]);
    await connection.close();
  });

  it('PostgreSQL: the revocations hold readiness (the database itself starts their change feed)', async () => {
    const pg = new PostgresDatabase({
      pg: nodePostgres,
      target: { url: 'postgres://u:p@127.0.0.1:1/db', ssl: null, ca: null },
      logger: silentLogger,
      clock,
    });
    const registry = new Resources();
    const stores = storesOf({ ...none, postgres: { postgres: pg } }, { clock, logger: silentLogger, registry }, 'records');
    stores.enrolledTotpSecrets({ seal: (s) => s, open: (s) => s });
    expect(registry.readiness).toEqual([]);
    const revoked = stores.revokedSessions();
    expect(registry.readiness).toEqual([revoked]);
    await pg.close();
  });
});
