import type { PostgresDatabase } from '../../../src/adapters/state/postgres/postgres-database';
import type { RedisConnection } from '../../../src/adapters/state/redis/redis-connection';
import type { SqliteDatabase } from '../../../src/adapters/state/sqlite/sqlite-database';
import { durableStoreOf, type StateHolders, type StoreConstructors, type StoreOrder } from '../../../src/composition/durable-state';

// Stand-ins: the choice only asks whether each holder is empty, and hands the value to its constructor.
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

/** Constructors that name the store they built and the value they were given; `called` lists which ran. */
function recording(): { constructors: StoreConstructors<string>; called: string[] } {
  const called: string[] = [];
  const note = (store: string, given: unknown): string => {
    called.push(store);
    return `${store}:${(given as { name: string } | undefined)?.name ?? '-'}`;
  };
  return {
    called,
    constructors: {
      redis: (c, adapters) => note(typeof adapters.RedisConnection === 'function' ? 'redis' : 'redis without its adapters', c),
      postgres: (p, adapters) => note(typeof adapters.PostgresDatabase === 'function' ? 'postgres' : 'postgres without its adapters', p),
      sqlite: (d) => note('sqlite', d),
      memory: () => note('memory', undefined),
    },
  };
}

function chosen(configured: Parameters<typeof holders>[0], order?: StoreOrder): { store: string; called: string[] } {
  const { constructors, called } = recording();
  return { store: durableStoreOf(holders(configured), constructors, order), called };
}

describe('durableStoreOf', () => {
  it('keeps short-lived state in Redis, else PostgreSQL, else the embedded file, else memory', () => {
    expect(chosen({ redis: true, postgres: true })).toEqual({ store: 'redis:redis', called: ['redis'] });
    expect(chosen({ postgres: true })).toEqual({ store: 'postgres:postgres', called: ['postgres'] });
    expect(chosen({ redis: true })).toEqual({ store: 'redis:redis', called: ['redis'] });
    expect(chosen({ sqlite: true })).toEqual({ store: 'sqlite:sqlite', called: ['sqlite'] });
    expect(chosen({})).toEqual({ store: 'memory:-', called: ['memory'] });
  });

  it('keeps durable records in PostgreSQL whenever it is configured, Redis or not', () => {
    expect(chosen({ redis: true, postgres: true }, 'records')).toEqual({ store: 'postgres:postgres', called: ['postgres'] });
    expect(chosen({ redis: true }, 'records')).toEqual({ store: 'redis:redis', called: ['redis'] });
    expect(chosen({ sqlite: true }, 'records')).toEqual({ store: 'sqlite:sqlite', called: ['sqlite'] });
    expect(chosen({}, 'records')).toEqual({ store: 'memory:-', called: ['memory'] });
  });

  it('lays the wrapper over whichever store was chosen', () => {
    const { constructors } = recording();
    const wrapped = { ...constructors, wrap: (store: string) => `hmac(${store})` };
    expect(durableStoreOf(holders({ sqlite: true }), wrapped)).toBe('hmac(sqlite:sqlite)');
    expect(durableStoreOf(holders({}), wrapped)).toBe('hmac(memory:-)');
    expect(durableStoreOf(holders({ redis: true, postgres: true }), wrapped, 'records')).toBe('hmac(postgres:postgres)');
  });

  it('lets an error of the chosen constructor through', () => {
    const { constructors } = recording();
    const failing = {
      ...constructors,
      sqlite: (): string => {
        throw new Error('cannot open');
      },
    };
    expect(() => durableStoreOf(holders({ sqlite: true }), failing)).toThrow('cannot open');
  });
});
