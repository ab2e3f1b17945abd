import type { Clock } from '../../../application/ports/clock';
import type { UsedOAuthFlows } from '../../../application/ports/used-oauth-flows';
import { BoundedExpiringMap } from '../bounded-map';

/**
 * Used flow ids in this process, each kept until its flow would have expired anyway. Bounded:
 * a flood of callbacks evicts the oldest entries, whose flows are by then nearly expired.
 */
export class InMemoryUsedOAuthFlows implements UsedOAuthFlows {
  private readonly used: BoundedExpiringMap<true>;
  private writes = 0;

  constructor(
    private readonly clock: Clock,
    capacity = 200_000,
  ) {
    this.used = new BoundedExpiringMap(capacity);
  }

  async use(id: string, untilMs: number): Promise<boolean> {
    const now = this.clock.now();
    if (++this.writes % 1024 === 0) this.used.sweep(now);
    // Synchronous check-and-set: two concurrent callbacks cannot both see "unused".
    if (this.used.get(id, now) === true) return false;
    this.used.set(id, true, Math.max(untilMs, now + 1));
    return true;
  }
}
