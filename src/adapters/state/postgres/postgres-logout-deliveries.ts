import type { LogoutDeliveries } from '../../../application/oidc/logout-deliveries';
import type { LogoutDelivery } from '../../../domain/backchannel-logout';
import type { PostgresDatabase } from './postgres-database';
import { LOGOUT_DELIVERY_COLUMNS, logoutDeliveryOf, logoutDeliveryValues, type LogoutDeliveryRow } from '../logout-delivery-rows';

/**
 * Back-channel logouts owed, in PostgreSQL (table `logout_deliveries`), shared by every replica.
 * A claim is one statement that locks the due rows it picks and skips rows another replica is
 * claiming at that moment (FOR UPDATE SKIP LOCKED), then leases them: of two replicas polling at
 * once, each delivery goes to one.
 */
export class PostgresLogoutDeliveries implements LogoutDeliveries {
  constructor(private readonly database: PostgresDatabase) {}

  async add(delivery: LogoutDelivery): Promise<void> {
    await this.database.query(
      `INSERT INTO logout_deliveries (${LOGOUT_DELIVERY_COLUMNS}, leased_until, until) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO NOTHING`,
      logoutDeliveryValues(delivery),
    );
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<LogoutDelivery[]> {
    const rows = await this.database.query<LogoutDeliveryRow & Record<string, unknown>>(
      `WITH due AS (
         SELECT id FROM logout_deliveries WHERE due_at <= $1 AND leased_until <= $1
         ORDER BY due_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
       )
       UPDATE logout_deliveries AS d SET leased_until = $2 FROM due WHERE d.id = due.id
       RETURNING d.id, d.client_id, d.subject, d.sid, d.created_at, d.attempts, d.due_at`,
      [now, now + leaseMs, Math.max(0, limit)],
    );
    return rows.map(logoutDeliveryOf).sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1));
  }

  async retry(id: string, attempts: number, dueAt: number): Promise<void> {
    await this.database.query('UPDATE logout_deliveries SET attempts = $1, due_at = $2, leased_until = 0 WHERE id = $3', [attempts, dueAt, id]);
  }

  async remove(id: string): Promise<void> {
    await this.database.query('DELETE FROM logout_deliveries WHERE id = $1', [id]);
  }
}
