import type { UsedTotpSteps } from '../../../application/ports/used-totp-steps';
import type { Clock } from '../../../application/ports/clock';
import { BoundedExpiringMap } from '../bounded-map';

/** The last TOTP step each account used, in this process; a step at or below it is a replay. */
export class InMemoryUsedTotpSteps implements UsedTotpSteps {
  private readonly lastStep: BoundedExpiringMap<number>;

  constructor(
    private readonly clock: Clock,
    capacity = 100_000,
  ) {
    this.lastStep = new BoundedExpiringMap(capacity);
  }

  async claim(username: string, step: number, untilMs: number): Promise<boolean> {
    const key = username.toLowerCase();
    const last = this.lastStep.get(key, this.clock.now());
    if (last !== undefined && step <= last) return false;
    this.lastStep.set(key, step, untilMs);
    return true;
  }
}
