import type { PostgresTarget } from '../../../config/state';
import type { Client, ClientConfig, Pool, PoolClient, QueryResultRow } from 'pg';
import type { Clock } from '../../../application/ports/clock';
import type { ReadinessCheck } from '../../../application/readiness/readiness-check';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import { DatabaseStartError, reasonOf } from '../sqlite/sqlite-database';
import { EXPIRING_TABLES, MIGRATIONS, type Migration } from '../sqlite/migrations';
import type { Logger } from '../../system/logger';

/** Where the database is and how to reach it (from DATABASE_URL, DATABASE_SSL, DATABASE_CA_FILE): defined by the configuration. */
export type { PostgresTarget };

export interface PostgresDatabaseOptions {
  /**
   * node-postgres, handed over by composition, which loads it only when DATABASE_URL is set: a
   * gateway on Redis or on disk never carries it.
   */
  readonly pg: typeof import('pg');
  readonly target: PostgresTarget;
  readonly logger: Logger;
  readonly clock: Clock;
  /** How often expired rows are deleted (and the memory mirrors swept). */
  readonly sweepIntervalMs?: number;
  /** How long to wait before connecting the notification listener again after it dropped. */
  readonly reconnectMs?: number;
  /** Schema steps; tests pass their own to check what a newer schema does. */
  readonly migrations?: readonly Migration[];
}

/** The one channel every replica listens on; payloads are `<kind> <key> <untilMs>`. */
export const CHANGES_CHANNEL = 'portcullis_changes';
/** Held (transaction-scoped) while the schema is checked and updated, so two replicas starting together do not race. */
const MIGRATION_LOCK = 0x706f7274;

type Query = <R extends QueryResultRow = QueryResultRow>(text: string, params?: unknown[]) => Promise<R[]>;
type ChangeHandler = (key: string, untilMs: number) => void;
type Resync = (query: Query) => Promise<void>;

/** Errors that say "these settings will never work", as opposed to "the server is not there right now". */
const FATAL_AT_START = new Set([
  '28P01',
  '28000',
  '3D000',
  '42501',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
]);
/** Serialisation failures and deadlocks: the transaction is simply tried again. */
const RETRYABLE = new Set(['40001', '40P01']);

function clientConfig(target: PostgresTarget): ClientConfig {
  const config: ClientConfig = {
    connectionString: target.url,
    application_name: 'portcullis',
    // Bounded waits: a request that needs a write answers 503 within seconds, never hangs.
    connectionTimeoutMillis: 3000,
    statement_timeout: 5000,
    query_timeout: 6000,
    keepAlive: true,
  };
  if (target.ssl === 'require') config.ssl = { rejectUnauthorized: false };
  if (target.ssl === 'verify-full') config.ssl = { rejectUnauthorized: true, ...(target.ca === null ? {} : { ca: target.ca }) };
  return config;
}

/**
 * The gateway's PostgreSQL database, shared by several replicas: one pool for queries, one
 * dedicated connection that LISTENs for changes made by the other replicas. Every PostgreSQL
 * adapter uses it; each owns its tables (the same versioned migrations as SQLite, migrations.ts).
 *
 * - {@link start}: checks and updates the schema (under an advisory lock), refuses a schema newer
 *   than this code knows, then connects the listener and lets each adapter load its memory mirror.
 *   When the server cannot be reached, start-up goes on and keeps trying every second: until an
 *   adapter has loaded once it answers "unavailable" (cookie sessions 503), never "not revoked".
 * - Writes ({@link query}, {@link transaction}) reject with StateStoreUnavailableError when the
 *   server does not answer: requests that need a durable write answer 503 (fail closed).
 * - The listener reconnects by itself; after each (re)connection it LISTENs first and then the
 *   adapters read their tables again, so a change made while it was away is not missed.
 * - Readiness (`postgres`) fails while the server does not answer or the listener is down.
 */
export class PostgresDatabase implements ReadinessCheck {
  readonly name = 'postgres';
  private readonly pool: Pool;
  private readonly handlers = new Map<string, ChangeHandler>();
  private readonly resyncs: Resync[] = [];
  private readonly sweepers: Array<(nowMs: number) => void> = [];
  private listener: Client | null = null;
  private listening = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private migrated = false;
  private up = true;
  private outages = 0;
  private closed = false;

  constructor(private readonly options: PostgresDatabaseOptions) {
    const { Pool: PgPool } = options.pg;
    this.pool = new PgPool({ ...clientConfig(options.target), max: 10, idleTimeoutMillis: 30_000 });
    // An idle pooled connection that dies (server restart) emits this; without a listener the process would crash.
    this.pool.on('error', (e) => this.markDown(e));
  }

  /**
   * Checks and updates the schema, then connects the listener. Rejects with
   * {@link DatabaseStartError} when the database can never work with these settings (schema
   * newer than this code, wrong password, no such database, a step without a PostgreSQL
   * dialect); resolves (and keeps trying in the background) when it is merely unreachable.
   */
  async start(): Promise<void> {
    try {
      await this.migrate();
    } catch (e) {
      if (e instanceof DatabaseStartError) throw e;
      if (FATAL_AT_START.has(reasonOf(e))) {
        throw new DatabaseStartError(
          `cannot use the PostgreSQL database in DATABASE_URL (${reasonOf(e)}): check the user, password, database name and TLS settings`,
          { cause: e },
        );
      }
      this.markDown(e);
      this.scheduleReconnect();
      return;
    }
    await this.connectListener();
    const interval = this.options.sweepIntervalMs ?? 60_000;
    this.sweepTimer = setInterval(() => void this.sweep().catch(() => undefined), interval);
    this.sweepTimer.unref();
  }

  /** Calls `handler` for every change of `kind` announced by any replica (this one included). */
  onChange(kind: string, handler: ChangeHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Registers a mirror load, run after every (re)connection of the listener, once it LISTENs. */
  onConnect(resync: Resync): void {
    this.resyncs.push(resync);
  }

  onSweep(sweeper: (nowMs: number) => void): void {
    this.sweepers.push(sweeper);
  }

  /** One statement (atomic on its own). Rejects with StateStoreUnavailableError when the server does not answer. */
  async query<R extends QueryResultRow = QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
    if (this.closed) throw new StateStoreUnavailableError('postgres');
    try {
      const result = await this.pool.query<R>(text, params);
      this.markUp();
      return result.rows;
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED; `work` takes the row locks it needs with
   * SELECT ... FOR UPDATE) and commits; tried again on a deadlock or serialisation failure.
   * Rejects with StateStoreUnavailableError when it cannot commit.
   */
  async transaction<T>(work: (query: Query) => Promise<T>): Promise<T> {
    if (this.closed) throw new StateStoreUnavailableError('postgres');
    for (let attempt = 1; ; attempt += 1) {
      let client: PoolClient | null = null;
      try {
        client = await this.pool.connect();
        const c = client;
        const query: Query = async (text, params = []) => (await c.query(text, params)).rows;
        await c.query('BEGIN');
        const value = await work(query);
        await c.query('COMMIT');
        c.release();
        this.markUp();
        return value;
      } catch (e) {
        // A connection in an unknown state is destroyed, not handed back to the pool.
        client?.release(e instanceof Error ? e : true);
        if (RETRYABLE.has(reasonOf(e)) && attempt < 5) continue;
        throw this.unavailable(e);
      }
    }
  }

  /** Readiness: the server answers a query and the change listener is connected. */
  async check(signal: AbortSignal): Promise<void> {
    if (!this.listening) throw new Error('postgres change listener not connected');
    const aborted = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new Error('postgres did not answer in time')), { once: true }),
    );
    aborted.catch(() => undefined);
    await Promise.race([this.query('SELECT 1'), aborted]);
  }

  /** Whether the last query succeeded (for the `portcullis_store_up` gauge). */
  isUp(): boolean {
    return this.up;
  }

  reconnectCount(): number {
    return this.outages;
  }

  /** Whether the change listener is connected (tests and diagnostics). */
  isListening(): boolean {
    return this.listening;
  }

  /** Deletes expired rows (every replica does, harmlessly) and sweeps the mirrors. */
  async sweep(): Promise<void> {
    const now = this.options.clock.now();
    for (const { table } of EXPIRING_TABLES) await this.query(`DELETE FROM ${table} WHERE until <= $1`, [now]);
    for (const sweeper of this.sweepers) sweeper(now);
  }

  /** Stops the listener, the timers and the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
    const listener = this.listener;
    this.listener = null;
    this.listening = false;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  private async migrate(): Promise<void> {
    const migrations = this.options.migrations ?? MIGRATIONS;
    const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1].version;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS portcullis_schema (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const current = Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM portcullis_schema')).rows[0]?.v ?? 0);
      if (current > latest) {
        throw new DatabaseStartError(
          `the PostgreSQL database has schema version ${current}, newer than this Portcullis knows (${latest}): run the newer Portcullis, or restore a backup made by this one`,
        );
      }
      for (const step of migrations) {
        if (step.version <= current) continue;
        if (step.postgres === undefined) throw new DatabaseStartError(`schema step ${step.version} (${step.description}) has no PostgreSQL dialect`);
        await client.query(step.postgres);
        await client.query('INSERT INTO portcullis_schema (version, description) VALUES ($1, $2)', [step.version, step.description]);
      }
      await client.query('COMMIT');
      client.release();
      this.migrated = true;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw e;
    }
  }

  private async connectListener(): Promise<void> {
    if (this.closed) return;
    const { Client: PgClient } = this.options.pg;
    const client = new PgClient(clientConfig(this.options.target));
    const lost = (e?: unknown): void => {
      if (this.listener !== client) return;
      this.listener = null;
      this.listening = false;
      if (e !== undefined) this.markDown(e);
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', (e) => lost(e));
    client.on('end', () => lost(new Error('listener connection ended')));
    client.on('notification', (n) => {
      if (n.channel === CHANGES_CHANNEL && n.payload !== undefined) this.dispatch(n.payload);
    });
    this.listener = client;
    try {
      await client.connect();
      // LISTEN before reading: a change committed in between arrives as a notification, so none falls in a gap.
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      const query: Query = async (text, params = []) => (await this.pool.query(text, params)).rows;
      for (const resync of this.resyncs) await resync(query);
      if (this.listener !== client) return;
      this.listening = true;
      this.markUp();
    } catch (e) {
      lost(e);
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer !== null) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.reconnect();
    }, this.options.reconnectMs ?? 500);
    this.reconnectTimer.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.closed) return;
    if (!this.migrated) {
      try {
        await this.start();
      } catch (e) {
        // A fatal problem found late (the server came up with a newer schema): refuse, loudly, and keep refusing.
        this.options.logger.error('the PostgreSQL database cannot be used', { reason: e instanceof DatabaseStartError ? e.message : reasonOf(e) });
        this.scheduleReconnect();
      }
      return;
    }
    await this.connectListener();
  }

  private dispatch(payload: string): void {
    const first = payload.indexOf(' ');
    const last = payload.lastIndexOf(' ');
    if (first <= 0 || last <= first) return;
    const until = Number(payload.slice(last + 1));
    if (!Number.isFinite(until)) return;
    this.handlers.get(payload.slice(0, first))?.(payload.slice(first + 1, last), until);
  }

  private unavailable(e: unknown): Error {
    if (e instanceof StateStoreUnavailableError) return e;
    this.markDown(e);
    // Whatever went wrong, the answer that depended on this write must not be given: 503, never a 500 with details.
    return new StateStoreUnavailableError('postgres', { cause: e });
  }

  private markDown(e: unknown): void {
    if (!this.up) return;
    this.up = false;
    this.outages += 1;
    this.options.logger.error('PostgreSQL does not answer: requests that need a durable write answer 503 until it does; sessions are checked from memory', {
      reason: reasonOf(e),
    });
  }

  private markUp(): void {
    if (this.up) return;
    this.up = true;
    this.options.logger.info('PostgreSQL answers again');
  }
}
