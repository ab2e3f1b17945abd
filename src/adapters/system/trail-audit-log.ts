import { randomBytes } from 'node:crypto';
import type { AuditEvent, AuditLog } from '../../application/ports/audit-log';
import type { AuditTrail, StoredAuditEvent } from '../../application/ports/audit-trail';
import type { Clock } from '../../application/ports/clock';
import { auditEventId } from '../../domain/audit-event-id';
import type { Logger } from './logger';

export interface TrailAuditLogOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * AUDIT_RETENTION_DAYS in ms: events older than this are pruned at start and every
   * {@link pruneEveryMs}. 0 keeps nothing: no event is recorded, and the prune empties the trail.
   */
  readonly retentionMs: number;
  /** Events dropped because the queue was full (the store slow or down): a metric counts them. */
  readonly dropped?: (count: number) => void;
  /** How long an event may wait in the queue before a batch is written. */
  readonly flushMs?: number;
  /** A batch this large is written at once, without waiting for {@link flushMs}. */
  readonly batch?: number;
  /** How many events wait at most; past it the oldest go (counted by {@link dropped}). */
  readonly capacity?: number;
  /** After a failed write, how long until the next try. */
  readonly retryMs?: number;
  readonly pruneEveryMs?: number;
}

/** Another audit log, and the trail's recorder when there is one: what core's AuditLog is. */
export function withTrail(log: AuditLog, recorder: TrailAuditLog | null): AuditLog {
  if (recorder === null) return log;
  return {
    record(event: AuditEvent): void {
      log.record(event);
      recorder.record(event);
    },
  };
}

/** The event as the trail stores it: its person fields copied out for the filters, the rest as it was. */
export function storedAuditEventOf(event: AuditEvent, id: string, time: number): StoredAuditEvent {
  const fields = event as unknown as Readonly<Record<string, unknown>>;
  const text = (key: string): string | null => {
    const v = fields[key];
    return typeof v === 'string' && v !== '' ? v : null;
  };
  return { id, time, event: event.event, username: text('username'), login: text('login'), admin: text('admin'), ip: text('ip'), data: { ...fields } };
}

/**
 * Writes every audit event to the durable trail (issue 36) without ever holding up the request that
 * caused it: {@link record} only queues (bounded), and a timer writes the queue in batches (one
 * store round trip, one commit for many events). A store that is slow or down never fails a
 * request: its batch goes back to the queue and is tried again later, and past the queue's
 * capacity the oldest events are dropped and counted. The log line and the metrics of each event
 * are written by the other audit logs at once, whatever happens here.
 */
export class TrailAuditLog implements AuditLog {
  private queue: StoredAuditEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private failing = false;
  private closed = false;
  private sequence = 0;
  /** Tells apart the ids of replicas that record in the same millisecond. */
  private readonly tag = BigInt(`0x${randomBytes(8).toString('hex')}`)
    .toString(36)
    .padStart(6, '0')
    .slice(-6);
  private readonly flushMs: number;
  private readonly batch: number;
  private readonly capacity: number;
  private readonly retryMs: number;
  private readonly pruneEveryMs: number;

  constructor(
    private readonly trail: AuditTrail,
    private readonly options: TrailAuditLogOptions,
  ) {
    this.flushMs = options.flushMs ?? 200;
    this.batch = options.batch ?? 200;
    this.capacity = options.capacity ?? 10_000;
    this.retryMs = options.retryMs ?? 2_000;
    this.pruneEveryMs = options.pruneEveryMs ?? 3_600_000;
  }

  record(event: AuditEvent): void {
    if (this.options.retentionMs <= 0) return;
    try {
      const time = this.options.clock.now();
      this.sequence = (this.sequence + 1) % 36 ** 4;
      this.queue.push(storedAuditEventOf(event, auditEventId(time, `${this.sequence.toString(36).padStart(4, '0')}${this.tag}`), time));
      this.trim();
      // A full batch goes at once, unless the store is failing: then the retry timer paces the tries.
      if (this.queue.length >= this.batch && !this.failing) this.schedule(0);
      else this.schedule(this.flushMs);
    } catch {
      // Recording must never fail the request that caused the event.
    }
  }

  /** How many events wait to be written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Prunes once now, then every `pruneEveryMs`; the timer keeps no process alive. */
  start(): void {
    if (this.closed || this.pruneTimer !== null) return;
    void this.prune();
    this.pruneTimer = setInterval(() => void this.prune(), this.pruneEveryMs);
    this.pruneTimer.unref();
  }

  /** Forgets the events older than the retention; a failure is logged, never thrown. */
  async prune(): Promise<void> {
    try {
      const removed = await this.trail.prune(this.options.clock.now() - this.options.retentionMs);
      if (removed > 0) this.options.logger.info('audit trail pruned', { removed });
    } catch (e) {
      this.options.logger.warn('audit trail prune failed: tried again later', { reason: e instanceof Error ? e.name : 'unknown' });
    }
  }

  /**
   * Writes what is queued, one batch after another, until the queue is empty or a write fails
   * (then the batch waits in the queue for the next try). Resolves, never rejects.
   */
  flush(): Promise<void> {
    this.writing ??= this.writeAll().finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  /** Stops the timers and writes what is left (shutdown); a store that fails now loses the rest. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.pruneTimer !== null) clearInterval(this.pruneTimer);
    this.timer = null;
    this.pruneTimer = null;
    await this.writing;
    await this.flush();
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batch);
      try {
        await this.trail.append(batch);
      } catch (e) {
        this.queue.unshift(...batch);
        this.trim();
        if (!this.failing) this.options.logger.warn('audit trail write failed: events wait in memory', { reason: e instanceof Error ? e.name : 'unknown' });
        this.failing = true;
        this.schedule(this.retryMs);
        return;
      }
      if (this.failing) this.options.logger.info('audit trail writes again');
      this.failing = false;
    }
  }

  private trim(): void {
    const excess = this.queue.length - this.capacity;
    if (excess <= 0) return;
    this.queue.splice(0, excess);
    this.options.dropped?.(excess);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer !== null) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush().then(() => {
        if (this.queue.length > 0 && !this.failing) this.schedule(this.flushMs);
      });
    }, delayMs);
    this.timer.unref();
  }
}
