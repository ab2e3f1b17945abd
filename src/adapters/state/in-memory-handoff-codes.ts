import type { Clock } from '../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../application/ports/handoff-codes';
import { BoundedExpiringMap } from './bounded-map';

/**
 * Hand-off codes in this process (one replica, no durable store). Bounded: a flood of hand-off
 * starts evicts the oldest codes, which at 30 s of life are the ones closest to expiry anyway.
 */
export class InMemoryHandoffCodes implements HandoffCodes {
  private readonly codes: BoundedExpiringMap<HandoffGrant>;
  private writes = 0;

  constructor(
    private readonly clock: Clock,
    capacity = 100_000,
  ) {
    this.codes = new BoundedExpiringMap(capacity);
  }

  async put(code: string, grant: HandoffGrant, untilMs: number): Promise<void> {
    const now = this.clock.now();
    if (++this.writes % 1024 === 0) this.codes.sweep(now);
    this.codes.set(code, grant, untilMs);
  }

  async take(code: string): Promise<HandoffGrant | null> {
    // Read and delete without an await in between: two concurrent redemptions cannot both get it.
    const grant = this.codes.get(code, this.clock.now()) ?? null;
    this.codes.delete(code);
    return grant;
  }
}
