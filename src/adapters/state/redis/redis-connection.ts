import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { ReadinessCheck } from '../../../application/readiness/readiness-check';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import type { Logger } from '../../system/logger';
import { describeRedisTarget, type RedisTarget } from '../../../config/redis-url';

export interface RedisConnectionOptions {
  /**
   * ioredis, handed over by composition, which loads it only when REDIS_URL is set: a gateway
   * without Redis would otherwise carry about 7 MB of idle heap for it (see docs/benchmark.md).
   */
  readonly ioredis: typeof import('ioredis');
  readonly target: RedisTarget;
  /** Prepended to every key and channel, so several gateways (or other apps) can share one Redis. */
  readonly prefix: string;
  readonly logger: Logger;
  /** A command that has no answer after this long fails (and the store reports itself unavailable). */
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /** Longest wait between reconnection attempts. */
  readonly maxReconnectDelayMs?: number;
}

type Listener = (up: boolean) => void;

/** Turns a parsed target into ioredis options: fail fast while disconnected, reconnect forever with a capped backoff. */
function ioredisOptions(options: RedisConnectionOptions, lazyConnect: boolean): RedisOptions {
  const { target } = options;
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  const common: RedisOptions = {
    db: target.db,
    username: target.username,
    password: target.password,
    // Commands never wait in a queue for a connection: a login must fail at once (503), not hang.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    retryStrategy: (times) => Math.min(100 * times, maxDelay),
    // Subscriptions are renewed by RedisRevokedSessions itself, so it can resync right after.
    autoResubscribe: false,
    // The command connection is opened by start(), not by the constructor (factories do no I/O).
    lazyConnect,
  };
  if (target.kind === 'standalone') {
    return { ...common, host: target.host, port: target.port, tls: target.tls ? {} : undefined };
  }
  return {
    ...common,
    sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: target.masterName,
    sentinelPassword: target.sentinelPassword,
    tls: target.tls ? {} : undefined,
    enableTLSForSentinelMode: target.tls,
    sentinelTLS: target.tls ? {} : undefined,
    sentinelRetryStrategy: (times) => Math.min(100 * times, maxDelay),
  };
}

/**
 * One gateway's link to Redis: a command connection, and (on demand) a subscriber connection.
 * Watches its health, logs an outage once when it starts and once when it ends (never per
 * request), and maps every failed command to {@link StateStoreUnavailableError}.
 */
export class RedisConnection implements ReadinessCheck {
  readonly name = 'redis';
  readonly client: Redis;
  readonly prefix: string;
  private subscriber: Redis | null = null;
  /** null until the first connection attempt settles. */
  private up: boolean | null = null;
  private readonly listeners: Listener[] = [];
  private readonly described: string;
  private closing = false;
  private reconnects = 0;

  constructor(private readonly options: RedisConnectionOptions) {
    this.prefix = options.prefix;
    this.described = describeRedisTarget(options.target);
    this.client = new options.ioredis.default(ioredisOptions(options, true));
    this.watch(this.client, true);
  }

  /**
   * Opens the command connection (and keeps reconnecting with the backoff when it fails). The
   * constructor connects nothing; `gateway.start()` calls this. Idempotent; never rejects (an
   * outage is logged and reported by {@link isUp}, as for a connection lost later).
   */
  start(): void {
    if (this.closing || this.client.status !== 'wait') return;
    // A failed first attempt is seen through the 'error' listener and retried by retryStrategy.
    this.client.connect().catch(() => undefined);
  }

  /** Whether the command connection is ready right now. */
  isUp(): boolean {
    return this.up === true;
  }

  /** How many times the command connection has started reconnecting. */
  reconnectCount(): number {
    return this.reconnects;
  }

  /** Calls `listener(up)` on every change of health. */
  onHealthChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /**
   * Resolves once the command connection is ready (for start-up and tests), starting it when not
   * started yet; rejects after `timeoutMs`.
   */
  ready(timeoutMs = 5000): Promise<void> {
    this.start();
    if (this.client.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.client.off('ready', onReady);
        reject(new Error('redis did not become ready'));
      }, timeoutMs);
      const onReady = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.client.once('ready', onReady);
    });
  }

  /** Runs a command; any failure (down, timeout, error reply) becomes {@link StateStoreUnavailableError}. */
  async run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    try {
      const answer = await command(this.client);
      // A timeout marks the link down without a reconnect; the next answer brings it back.
      if (this.up === false && this.client.status === 'ready') this.markUp();
      return answer;
    } catch (e) {
      this.markDown(e);
      throw new StateStoreUnavailableError('redis', { cause: e });
    }
  }

  /** A second connection in subscriber mode (one per gateway), with the same options. */
  subscriberConnection(): Redis {
    if (this.subscriber === null) {
      this.subscriber = new this.options.ioredis.default(ioredisOptions(this.options, false));
      this.watch(this.subscriber, false);
    }
    return this.subscriber;
  }

  async check(signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw new Error('aborted');
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      this.client.ping().then(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(e instanceof Error ? e : new Error('ping failed'));
        },
      );
    });
  }

  /** Closes both connections: politely when possible, at once otherwise. Never rejects. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([this.client, this.subscriber].map((c) => (c === null ? undefined : closeOne(c))));
  }

  private watch(connection: Redis, primary: boolean): void {
    // Without an 'error' listener ioredis prints every failed reconnection attempt itself.
    connection.on('error', (e: unknown) => {
      if (primary) this.markDown(e);
    });
    if (!primary) return;
    connection.on('ready', () => this.markUp());
    connection.on('close', () => {
      if (!this.closing) this.markDown(CONNECTION_CLOSED);
    });
    connection.on('reconnecting', () => {
      this.reconnects += 1;
    });
  }

  private markUp(): void {
    if (this.up === true) return;
    const first = this.up === null;
    this.up = true;
    this.options.logger.info(first ? 'redis connected' : 'redis available again', { redis: this.described });
    for (const l of this.listeners) l(true);
  }

  private markDown(e: unknown): void {
    if (this.up === false || this.closing) return;
    this.up = false;
    const { reason, cause } = outageCause(e, this.options.commandTimeoutMs ?? 500);
    this.options.logger.warn(`redis unavailable (${cause}): logins fail with 503, forward auth keeps answering from local state`, {
      redis: this.described,
      reason,
      cause,
    });
    for (const l of this.listeners) l(false);
  }
}

const CONNECTION_CLOSED = new Error('connection closed');

/** What Redis's error replies mean for an operator, by their first word. */
const REPLY_CAUSES: Readonly<Record<string, string>> = {
  WRONGPASS: 'Redis refused the user name or password in REDIS_URL',
  NOAUTH: 'Redis requires a password: put it in REDIS_URL (redis://:password@host:port)',
  NOPERM: 'the Redis user of REDIS_URL lacks a permission the gateway needs',
  LOADING: 'Redis is still loading its data set',
  MASTERDOWN: 'the Redis replica lost its primary',
  READONLY: 'REDIS_URL points at a read-only replica',
  MISCONF: 'Redis cannot write (it failed to save its snapshot)',
  OOM: 'Redis is out of memory (maxmemory)',
};

/**
 * Why Redis is unavailable, for the one warning an outage gets: `reason` a stable word (a system
 * error code such as ECONNREFUSED, the first word of an error reply, `connection_closed`,
 * `command_timeout`), `cause` a sentence. A system error's own message is kept (it names the
 * address: `connect ECONNREFUSED 10.0.0.7:6379`); an error reply is never copied beyond its first
 * word, since a reply may quote a command and its keys. No password is ever part of either.
 */
export function outageCause(e: unknown, commandTimeoutMs: number): { reason: string; cause: string } {
  if (e === CONNECTION_CLOSED) return { reason: 'connection_closed', cause: 'the connection was closed (Redis stopped, restarted or dropped it)' };
  // Duck-typed, not instanceof Error: errors from another realm (a vm context, a test runner) are errors too.
  const error =
    typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string'
      ? (e as { message: string; name?: unknown; code?: unknown; syscall?: unknown })
      : null;
  if (error === null) return { reason: 'unknown', cause: 'an unknown failure' };
  if (typeof error.code === 'string' && /^E[A-Z0-9_]+$/.test(error.code)) {
    // Node's system errors: `connect ECONNREFUSED 10.0.0.7:6379`, `getaddrinfo ENOTFOUND redis`.
    const own = typeof error.syscall === 'string' && /^[\x20-\x7e]{1,200}$/.test(error.message) ? error.message : error.code;
    return { reason: error.code, cause: own };
  }
  if (error.name === 'ReplyError') {
    const word = /^[A-Z]{2,20}\b/.exec(error.message)?.[0] ?? 'ERR';
    return { reason: word, cause: REPLY_CAUSES[word] ?? `Redis answered with an ${word} error` };
  }
  if (error.message === 'Command timed out') return { reason: 'command_timeout', cause: `a command got no answer within ${commandTimeoutMs} ms` };
  // ioredis's own errors (MaxRetriesPerRequestError, ...) are named by class; their messages are ioredis's, not Redis's.
  const name = typeof error.name === 'string' && /^[A-Za-z]{1,60}$/.test(error.name) ? error.name : 'Error';
  return { reason: name, cause: name };
}

async function closeOne(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  const timer = setTimeout(() => connection.disconnect(), 1000);
  try {
    await connection.quit();
  } catch {
    connection.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
