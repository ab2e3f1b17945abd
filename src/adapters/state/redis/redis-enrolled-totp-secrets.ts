import type Redis from 'ioredis';
import type { EnrolledTotpSecrets } from '../../../application/totp/enrolled-totp-secrets';
import type { ReadinessCheck } from '../../../application/readiness/readiness-check';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import type { TotpSecretSealer } from '../../../application/totp/totp-secret-sealer';
import type { RedisConnection } from './redis-connection';
import type { Logger } from '../../system/logger';
import { SealedTotpSecrets } from '../sealed-totp-secrets';

/** Stores a sealed secret unless the account has one, and announces the change. KEYS[1] = hash; ARGV = channel, username, sealed. */
const ENROL = `
if redis.call('HSETNX', KEYS[1], ARGV[2], ARGV[3]) == 0 then return 0 end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`;
/** Deletes the account's secret while it is still the one given, and announces the change. */
const REMOVE = `
if redis.call('HGET', KEYS[1], ARGV[2]) ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`;

interface Commands {
  portcullisTotpEnrol(key: string, channel: string, username: string, sealed: string): Promise<number>;
  portcullisTotpRemove(key: string, channel: string, username: string, sealed: string): Promise<number>;
}

/** How many fields one HSCAN call asks for while a replica loads the hash. */
const SCAN_PAGE = 1000;

/**
 * Self-enrolled TOTP secrets shared by every replica, sealed, answered from memory, as the
 * revocations are (ADR 0007, 0031). Redis holds them in one hash `<prefix>totp:enrolled`
 * (username → sealed secret, no TTL); every change is one Lua script that also publishes the
 * username on the channel of the same name. Each replica subscribes, then reads the whole hash
 * after every (re)connection (so nothing published in between is lost), and re-reads an
 * account's field when it hears its name.
 *
 * Until its first load, `secretOf` throws StateStoreUnavailableError (logins, HTTP Basic and
 * session checks of password accounts fail closed) and the readiness check `totp-enrolments`
 * fails. During an outage afterwards memory keeps answering; a change needs Redis (503).
 */
export class RedisEnrolledTotpSecrets implements EnrolledTotpSecrets, ReadinessCheck {
  readonly name = 'totp-enrolments';
  // Until loaded, HTTP Basic and logins answer 503 here: not ready for forward auth.
  readonly gatesForwardAuth = true;
  private readonly memory: SealedTotpSecrets;
  private readonly key: string;
  private subscriber: Redis | null = null;
  private loaded = false;
  private syncing: Promise<void> | null = null;
  /** Accounts announced while a load runs: read again after it, so its older snapshot cannot win. */
  private heard: Set<string> | null = null;

  constructor(
    private readonly redis: RedisConnection,
    sealer: TotpSecretSealer,
    private readonly logger: Logger,
  ) {
    this.memory = new SealedTotpSecrets(sealer);
    this.key = `${redis.prefix}totp:enrolled`;
    redis.client.defineCommand('portcullisTotpEnrol', { numberOfKeys: 1, lua: ENROL });
    redis.client.defineCommand('portcullisTotpRemove', { numberOfKeys: 1, lua: REMOVE });
  }

  /** Subscribes and loads what Redis holds, now and after every reconnection. Call once. */
  start(): void {
    const sub = this.redis.subscriberConnection();
    this.subscriber = sub;
    sub.on('message', (channel: string, username: string) => {
      if (channel !== this.key) return;
      this.heard?.add(username);
      void this.reread(username);
    });
    sub.on('ready', () => void this.resync());
    this.redis.onHealthChange((up) => {
      if (up) void this.resync();
    });
    if (sub.status === 'ready') void this.resync();
  }

  /** Readiness: fails until the enrolments Redis holds have been loaded once. */
  async check(): Promise<void> {
    if (!this.loaded) throw new Error('totp enrolments not loaded from redis yet');
  }

  /** Resolves when a load that is running has finished (for tests and start-up). */
  async settled(): Promise<void> {
    while (this.syncing !== null) await this.syncing;
  }

  secretOf(username: string): string | null {
    if (!this.loaded) throw new StateStoreUnavailableError('redis');
    return this.memory.get(username)?.secret ?? null;
  }

  async enrol(username: string, secret: string): Promise<boolean> {
    const sealed = this.memory.seal(username, secret);
    const stored = (await this.redis.run((c) => (c as unknown as Commands).portcullisTotpEnrol(this.key, this.key, username, sealed))) === 1;
    if (stored) this.memory.learn(username, sealed);
    return stored;
  }

  async remove(username: string, secret: string): Promise<boolean> {
    const held = this.memory.get(username);
    if (held === undefined || held.secret !== secret) return false;
    const removed = (await this.redis.run((c) => (c as unknown as Commands).portcullisTotpRemove(this.key, this.key, username, held.sealed))) === 1;
    if (removed) this.memory.learn(username, null);
    return removed;
  }

  private async reread(username: string): Promise<void> {
    try {
      this.memory.learn(username, await this.redis.run((c) => c.hget(this.key, username)));
    } catch {
      // The next (re)connection reloads the whole hash.
    }
  }

  private resync(): Promise<void> {
    if (this.syncing === null) {
      this.syncing = this.load().finally(() => {
        this.syncing = null;
      });
    }
    return this.syncing;
  }

  /** Subscribe first, then read: a change published in between arrives by message. */
  private async load(): Promise<void> {
    const sub = this.subscriber;
    if (sub === null || sub.status !== 'ready' || !this.redis.isUp()) return;
    this.heard = new Set();
    try {
      await sub.subscribe(this.key);
      const rows: { username: string; sealed: string }[] = [];
      let cursor = '0';
      do {
        const [next, entries] = await this.redis.run((c) => c.hscan(this.key, cursor, 'COUNT', SCAN_PAGE));
        cursor = next;
        for (let i = 0; i + 1 < entries.length; i += 2) rows.push({ username: entries[i], sealed: entries[i + 1] });
      } while (cursor !== '0');
      this.memory.reload(rows);
      for (const username of this.heard) await this.reread(username);
      this.loaded = true;
    } catch {
      this.logger.debug('redis totp enrolment load failed; retrying');
      setTimeout(() => void this.resync(), 1000).unref();
    } finally {
      this.heard = null;
    }
  }
}
