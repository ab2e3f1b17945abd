import { isIdle, LAST_USE_RESOLUTION_MS } from '../../domain/session-lifetime';
import type { Awaitable } from '../ports/awaitable';
import type { Clock } from '../ports/clock';
import type { SessionIndex, SessionSighting } from '../ports/session-index';

/** How often at most a session's "last seen" is written when no idle timeout asks for better: the account page shows it to the minute. */
export const LAST_SEEN_RESOLUTION_MS = LAST_USE_RESOLUTION_MS;

/** Told that a session was used; must answer at once and never throw (it runs on forward auth's path). */
export interface SessionActivity {
  seen(sessionId: string): void;
  /**
   * True when the session has gone unused for the idle timeout (issue 33) on every replica, as far
   * as can be known within the granularity; always false with the timeout off. Answers at once
   * from this replica's notes, and asks the session index (rejecting with
   * StateStoreUnavailableError when it cannot) only when those are older than the granularity.
   */
  idle(sessionId: string, issuedAt: number): Awaitable<boolean>;
}

/** The timing of the notes: the idle timeout (0: off) and how fresh "last use" is kept (see lastUseGranularityMs). */
export interface LastSeenTiming {
  readonly idleTimeoutMs: number;
  readonly granularityMs: number;
}

/** What this replica knows of one session's use. */
interface Note {
  /** The latest use known: seen here, or read from the index. */
  used: number;
  /** When a use was last queued for the index (-Infinity: never). */
  written: number;
  /** When the index was last asked for the session's last use (-Infinity: never). */
  checked: number;
}

const OFF: LastSeenTiming = { idleTimeoutMs: 0, granularityMs: LAST_USE_RESOLUTION_MS };

/**
 * Notes when sessions are used, for the account page's "last seen" and the idle timeout, without
 * costing the request that uses them: `seen` is a map lookup (and, at most once per granularity
 * per session, two map writes); the writes go to the index in one batch when {@link flush} runs,
 * from a timer, never from a request. `idle` answers from these notes, and reads the index
 * (so another replica's recent use counts) only when the session looks idle here and the index
 * was not asked within the granularity. The map is bounded: past `capacity` the oldest notes are
 * dropped, which only makes a "last seen" older than it could be (or costs one more read).
 * See docs/adr/0026-account-page-and-session-index.md and docs/adr/0042-idle-and-renewed-sessions.md.
 */
export class LastSeenRecorder implements SessionActivity {
  private readonly notes = new Map<string, Note>();
  private pending = new Map<string, number>();
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly index: SessionIndex,
    private readonly clock: Clock,
    private readonly capacity = 100_000,
    private readonly timing: LastSeenTiming = OFF,
  ) {}

  seen(sessionId: string): void {
    const now = this.clock.now();
    const note = this.notes.get(sessionId);
    if (note !== undefined && now - note.written < this.timing.granularityMs) {
      if (now > note.used) note.used = now;
      return;
    }
    this.remember(sessionId, { used: now, written: now, checked: note?.checked ?? -Infinity });
    if (this.pending.size < this.capacity) this.pending.set(sessionId, now);
  }

  idle(sessionId: string, issuedAt: number): Awaitable<boolean> {
    const { idleTimeoutMs, granularityMs } = this.timing;
    if (idleTimeoutMs <= 0) return false;
    const now = this.clock.now();
    const note = this.notes.get(sessionId);
    const known = Math.max(note?.used ?? -Infinity, issuedAt);
    if (!isIdle(known, idleTimeoutMs, now)) return false;
    if (note !== undefined && now - note.checked < granularityMs) return true;
    // Idle as far as this replica saw: another one may have used it since; ask the shared index.
    return this.index.lastSeen(sessionId).then((stored) => {
      const used = Math.max(known, stored ?? -Infinity);
      const current = this.notes.get(sessionId);
      if (current !== undefined) {
        current.used = Math.max(current.used, used);
        current.checked = now;
      } else this.remember(sessionId, { used, written: -Infinity, checked: now });
      return isIdle(Math.max(used, current?.used ?? -Infinity), idleTimeoutMs, now);
    });
  }

  /** How many sightings wait for the next flush. */
  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Writes what was noted since the last flush, in one batch. Never rejects: sightings that
   * cannot be written (store down) are dropped; "last seen" is a hint, not a record.
   */
  flush(): Promise<void> {
    if (this.flushing !== null) return this.flushing;
    if (this.pending.size === 0) return Promise.resolve();
    const batch: SessionSighting[] = [...this.pending].map(([id, at]) => ({ id, at }));
    this.pending = new Map();
    this.flushing = this.index
      .touch(batch)
      .catch(() => undefined)
      .finally(() => {
        this.flushing = null;
      });
    return this.flushing;
  }

  /** Stores a note as the newest, dropping the oldest past capacity. */
  private remember(sessionId: string, note: Note): void {
    this.notes.delete(sessionId);
    if (this.notes.size >= this.capacity) this.notes.delete(this.notes.keys().next().value as string);
    this.notes.set(sessionId, note);
  }
}
