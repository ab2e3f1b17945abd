import type { LogoutDelivery } from '../../domain/backchannel-logout';

/**
 * The queue of back-channel logouts owed to relying parties, kept in the state store so that a
 * restart or another replica carries on where a process stopped. Deliveries are claimed with a
 * lease: a claimed delivery is not handed out again until its lease ends, so of two replicas
 * polling at once only one sends it; one whose sender died is handed out again after the lease.
 */
export interface LogoutDeliveries {
  /** Queues a delivery; adding an id already queued changes nothing. */
  add(delivery: LogoutDelivery): Promise<void>;
  /**
   * Up to `limit` deliveries due at `now` (`dueAt` ≤ `now`) and not leased, earliest first, each
   * leased until `now + leaseMs` in one atomic step shared by every replica: concurrent claims
   * never return the same delivery. They come back as queued (their `dueAt` before the lease).
   */
  claim(now: number, leaseMs: number, limit: number): Promise<LogoutDelivery[]>;
  /** Schedules the next attempt of a claimed delivery (its lease ends): `attempts` made so far, due at `dueAt`. */
  retry(id: string, attempts: number, dueAt: number): Promise<void>;
  /** Removes a delivery (delivered, or given up); resolves whether or not it existed. */
  remove(id: string): Promise<void>;
}
