import type { Clock } from '../ports/clock';
import type { SessionIndex, SessionSighting } from '../ports/session-index';

/** How often at most a session's "last seen" is written: the account page shows it to the minute. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

/** Told that a session was used; must answer at once and never throw (it runs on forward auth's path). */
export interface SessionActivity {
  seen(sessionId: string): void;
}

/**
 * Notes when sessions are used, for the account page's "last seen", without costing the request
 * that uses them: `seen` is a map lookup (and, at most once a minute per session, two map writes);
 * the writes go to the index in one batch when {@link flush} runs, from a timer, never from a
 * request. Both maps are bounded: past `capacity` the oldest notes are dropped, which only makes
 * a "last seen" older than it could be. See docs/adr/0026-account-page-and-session-index.md.
 */
export class LastSeenRecorder implements SessionActivity {
  /** When each session's last-seen was last noted (to be written), oldest first. */
  private readonly noted = new Map<string, number>();
  private pending = new Map<string, number>();
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly index: SessionIndex,
    private readonly clock: Clock,
    private readonly capacity = 100_000,
  ) {}

  seen(sessionId: string): void {
    const now = this.clock.now();
    const last = this.noted.get(sessionId);
    if (last !== undefined && now - last < LAST_SEEN_RESOLUTION_MS) return;
    this.noted.delete(sessionId);
    if (this.noted.size >= this.capacity) this.noted.delete(this.noted.keys().next().value as string);
    this.noted.set(sessionId, now);
    if (this.pending.size < this.capacity) this.pending.set(sessionId, now);
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
}
