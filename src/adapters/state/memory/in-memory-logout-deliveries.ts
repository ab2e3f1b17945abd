import type { LogoutDeliveries } from '../../../application/oidc/logout-deliveries';
import type { LogoutDelivery } from '../../../domain/backchannel-logout';

interface Queued {
  delivery: LogoutDelivery;
  leasedUntil: number;
}

/**
 * Back-channel logouts owed, in this process (one replica, lost at restart). Bounded: past
 * `capacity` the oldest deliveries go, so an unreachable relying party cannot grow memory forever.
 */
export class InMemoryLogoutDeliveries implements LogoutDeliveries {
  private readonly queued = new Map<string, Queued>();

  constructor(private readonly capacity = 10_000) {}

  async add(delivery: LogoutDelivery): Promise<void> {
    if (this.queued.has(delivery.id)) return;
    this.queued.set(delivery.id, { delivery: { ...delivery }, leasedUntil: 0 });
    while (this.queued.size > this.capacity) this.queued.delete(this.queued.keys().next().value as string);
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<LogoutDelivery[]> {
    const due = [...this.queued.values()]
      .filter((q) => q.delivery.dueAt <= now && q.leasedUntil <= now)
      .sort((a, b) => a.delivery.dueAt - b.delivery.dueAt)
      .slice(0, Math.max(0, limit));
    for (const q of due) q.leasedUntil = now + leaseMs;
    return due.map((q) => ({ ...q.delivery }));
  }

  async retry(id: string, attempts: number, dueAt: number): Promise<void> {
    const q = this.queued.get(id);
    if (q === undefined) return;
    q.delivery = { ...q.delivery, attempts, dueAt };
    q.leasedUntil = 0;
  }

  async remove(id: string): Promise<void> {
    this.queued.delete(id);
  }
}
