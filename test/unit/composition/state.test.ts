import type { PostgresDatabase } from '../../../src/adapters/state/postgres/postgres-database';
import type { RedisConnection } from '../../../src/adapters/state/redis/redis-connection';
import type { SqliteDatabase } from '../../../src/adapters/state/sqlite/sqlite-database';
import { Resources } from '../../../src/composition/resources';
import { storesOf, type StateHolders, type StoreOrder } from '../../../src/composition/state';
import { FixedClock } from '../../support/fakes';
import { silentLogger } from '../../support/loggers';

// Stand-ins: the choice only asks whether each holder is empty; a bundle touches its connection only when a store is used.
const connection = { name: 'redis' } as unknown as RedisConnection;
const postgres = { name: 'postgres' } as unknown as PostgresDatabase;
const database = { name: 'sqlite' } as unknown as SqliteDatabase;

function holders(configured: { redis?: boolean; postgres?: boolean; sqlite?: boolean }): StateHolders {
  return {
    redis: { connection: configured.redis === true ? connection : null },
    postgres: { postgres: configured.postgres === true ? postgres : null },
    database: { database: configured.sqlite === true ? database : null },
  };
}

const chosen = (configured: Parameters<typeof holders>[0], order: StoreOrder = 'short-lived'): string =>
  storesOf(holders(configured), { clock: new FixedClock(), logger: silentLogger, registry: new Resources() }, order).kind;

describe('storesOf', () => {
  it('keeps short-lived state in Redis, else PostgreSQL, else the embedded file, else memory', () => {
    expect(chosen({ redis: true, postgres: true })).toBe('redis');
    expect(chosen({ postgres: true })).toBe('postgres');
    expect(chosen({ redis: true })).toBe('redis');
    expect(chosen({ sqlite: true })).toBe('sqlite');
    expect(chosen({})).toBe('memory');
  });

  it('keeps durable records in PostgreSQL whenever it is configured, Redis or not', () => {
    expect(chosen({ redis: true, postgres: true }, 'records')).toBe('postgres');
    expect(chosen({ redis: true }, 'records')).toBe('redis');
    expect(chosen({ sqlite: true }, 'records')).toBe('sqlite');
    expect(chosen({}, 'records')).toBe('memory');
  });
});
