import type { RevokedSessions } from '../../../application/ports/revoked-sessions';
import type { Clock } from '../../../application/ports/clock';
import { BoundedExpiringMap } from '../bounded-map';

/** Revoked session ids in this process, each kept until the session would have expired anyway. */
export class InMemoryRevokedSessions implements RevokedSessions {
  private readonly revoked: BoundedExpiringMap<true>;
  private writes = 0;

  constructor(
    private readonly clock: Clock,
    capacity = 1_000_000,
  ) {
    this.revoked = new BoundedExpiringMap(capacity);
  }

  async revoke(id: string, untilMs: number): Promise<void> {
    if (++this.writes % 1024 === 0) this.revoked.sweep(this.clock.now());
    this.revoked.set(id, true, untilMs);
  }

  /** Answered at once, from memory: forward auth asks on every request with a cookie. */
  isRevoked(id: string): boolean {
    return this.revoked.size !== 0 && this.revoked.get(id, this.clock.now()) === true;
  }
}
