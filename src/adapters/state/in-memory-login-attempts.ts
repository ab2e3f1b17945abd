import type { LoginAttempts } from '../../application/ports/login-attempts';
import { BoundedExpiringMap } from './bounded-map';

interface Counter {
  failures: number;
  lockedUntil: number;
}

/**
 * Failure counters in this process. Bounded: a flood of invented account names evicts the oldest
 * counters (locked keys are re-inserted on every touch, so an active lock stays young).
 */
export class InMemoryLoginAttempts implements LoginAttempts {
  private readonly counters: BoundedExpiringMap<Counter>;

  constructor(capacity = 100_000) {
    this.counters = new BoundedExpiringMap(capacity);
  }

  async lockedUntil(key: string, nowMs: number): Promise<number> {
    const counter = this.counters.get(key, nowMs);
    return counter !== undefined && counter.lockedUntil > nowMs ? counter.lockedUntil : 0;
  }

  async recordFailure(key: string, nowMs: number, maxFailures: number, lockMs: number): Promise<number> {
    if (maxFailures <= 0) return 0;
    const counter = this.counters.get(key, nowMs) ?? { failures: 0, lockedUntil: 0 };
    counter.failures += 1;
    if (counter.failures >= maxFailures) {
      counter.lockedUntil = Math.max(counter.lockedUntil, nowMs + lockMs);
      counter.failures = 0;
    }
    // The window slides: failures older than lockMs since the last one are forgotten with the entry.
    this.counters.set(key, counter, Math.max(counter.lockedUntil, nowMs + lockMs));
    return counter.lockedUntil > nowMs ? counter.lockedUntil : 0;
  }

  async reset(key: string): Promise<void> {
    this.counters.delete(key);
  }
}
