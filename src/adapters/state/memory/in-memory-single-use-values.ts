import type { Clock } from '../../../application/ports/clock';
import { BoundedExpiringMap } from '../bounded-map';

/**
 * Values taken at most once, in this process (hand-off codes, passkey enrolment links: one
 * replica, no durable store, gone at a restart). Bounded: a flood of puts evicts the oldest
 * values first. Expired values are swept every `sweepEvery` puts to return memory early.
 */
export class InMemorySingleUseValues<V> {
  private readonly values: BoundedExpiringMap<V>;
  private writes = 0;

  constructor(
    private readonly clock: Clock,
    capacity: number,
    private readonly sweepEvery: number,
  ) {
    this.values = new BoundedExpiringMap(capacity);
  }

  /** Stores `value` under `code` until `untilMs`. */
  async put(code: string, value: V, untilMs: number): Promise<void> {
    if (++this.writes % this.sweepEvery === 0) this.values.sweep(this.clock.now());
    this.values.set(code, value, untilMs);
  }

  /** Removes the code and resolves its value when it was there and unexpired, else null. */
  async take(code: string): Promise<V | null> {
    // Read and delete without an await in between: two concurrent redemptions cannot both get it.
    const value = this.values.get(code, this.clock.now()) ?? null;
    this.values.delete(code);
    return value;
  }
}
