import type { AttemptLimit, AttemptReservation, LoginAttempts } from '../../../application/password/login-attempts';
import { BoundedExpiringMap } from '../bounded-map';

interface Counter {
  /** Failures in the current window, reserved attempts still being checked included. */
  failures: number;
  /** When the lock ends (ms); 0 or past when not locked. */
  lockedUntil: number;
}

/**
 * Failure counters in this process. Bounded: a flood of invented account names evicts the oldest
 * counters (locked keys are re-inserted on every touch, so an active lock stays young). Each method
 * runs without awaiting anything, so a check and its count are one step on the event loop.
 */
export class InMemoryLoginAttempts implements LoginAttempts {
  private readonly counters: BoundedExpiringMap<Counter>;
  // The latest lock end this store ever set: every lock is set here, so none outlasts it. Lifting
  // a lock early (refund, reset) leaves it alone; it only has to be late enough, never exact.
  private lockHorizon = 0;

  constructor(capacity = 100_000) {
    this.counters = new BoundedExpiringMap(capacity);
  }

  async lockedUntil(key: string, nowMs: number): Promise<number> {
    const counter = this.counters.get(key, nowMs);
    return counter !== undefined && counter.lockedUntil > nowMs ? counter.lockedUntil : 0;
  }

  async reserve(limits: readonly AttemptLimit[], nowMs: number, lockMs: number): Promise<AttemptReservation> {
    const counted = limits.filter((l) => l.maxFailures >= 1);
    let lockedUntil = 0;
    for (const { key } of counted) {
      const counter = this.counters.get(key, nowMs);
      if (counter !== undefined && counter.lockedUntil > nowMs) lockedUntil = Math.max(lockedUntil, counter.lockedUntil);
    }
    if (lockedUntil > 0) return { granted: false, lockedUntil };
    const locksUntil = limits.map(({ key, maxFailures }) => {
      if (maxFailures < 1) return 0;
      const counter = this.counters.get(key, nowMs) ?? { failures: 0, lockedUntil: 0 };
      counter.failures += 1;
      if (counter.failures >= maxFailures) {
        counter.lockedUntil = nowMs + lockMs;
        this.lockHorizon = Math.max(this.lockHorizon, counter.lockedUntil);
      }
      // The window slides: failures older than lockMs since the last one are forgotten with the
      // entry, and a lock's entry lives exactly as long as the lock (then counting starts afresh).
      this.counters.set(key, counter, Math.max(counter.lockedUntil, nowMs + lockMs));
      return counter.failures >= maxFailures ? counter.lockedUntil : 0;
    });
    return { granted: true, locksUntil };
  }

  async refund(limits: readonly AttemptLimit[], nowMs: number): Promise<void> {
    for (const { key, maxFailures } of limits) {
      const counter = this.counters.get(key, nowMs);
      if (counter === undefined || maxFailures < 1) continue;
      counter.failures = Math.max(0, counter.failures - 1);
      // A lock is only ever set by the reservation that reached the limit; falling back under it
      // means one of the guesses it counted was not a failure after all.
      if (counter.failures < maxFailures) counter.lockedUntil = 0;
    }
  }

  async reset(key: string): Promise<void> {
    this.counters.delete(key);
  }

  readonly noLockAfter = (): number => this.lockHorizon;
}
