import type { Clock } from '../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../application/ports/passkey-enrolment-links';
import { BoundedExpiringMap } from './bounded-map';

/** Enrolment links in this process (one replica, no durable store; gone at a restart). Bounded. */
export class InMemoryPasskeyEnrolmentLinks implements PasskeyEnrolmentLinks {
  private readonly links: BoundedExpiringMap<string>;

  constructor(
    private readonly clock: Clock,
    capacity = 10_000,
  ) {
    this.links = new BoundedExpiringMap(capacity);
  }

  async put(code: string, username: string, untilMs: number): Promise<void> {
    this.links.sweep(this.clock.now());
    this.links.set(code, username, untilMs);
  }

  async take(code: string): Promise<string | null> {
    // Read and delete without an await in between: two concurrent redemptions cannot both get it.
    const username = this.links.get(code, this.clock.now()) ?? null;
    this.links.delete(code);
    return username;
  }
}
