import type { LogoutDeliveries } from '../../../application/oidc/logout-deliveries';
import type { LogoutDelivery } from '../../../domain/backchannel-logout';
import type { SqliteDatabase, Statement } from './sqlite-database';
import { LOGOUT_DELIVERY_COLUMNS, logoutDeliveryOf, logoutDeliveryValues, type LogoutDeliveryRow } from '../logout-delivery-rows';

/**
 * Back-channel logouts owed, in the embedded database (table `logout_deliveries`, schema step 9),
 * so a restart carries on with them. One process writes the file, and a claim is one write
 * (select and lease in the same transaction): two claims never return the same delivery.
 */
export class SqliteLogoutDeliveries implements LogoutDeliveries {
  private insert!: Statement<[string, string, string, string | null, number, number, number, number, number]>;
  private due!: Statement<[number, number, number]>;
  private lease!: Statement<[number, string]>;
  private retry_!: Statement<[number, number, string]>;
  private remove_!: Statement<[string]>;

  constructor(private readonly database: SqliteDatabase) {
    database.whenOpen((db) => {
      this.insert = db.prepare(
        `INSERT INTO logout_deliveries (${LOGOUT_DELIVERY_COLUMNS}, leased_until, until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      );
      this.due = db.prepare(`SELECT ${LOGOUT_DELIVERY_COLUMNS} FROM logout_deliveries WHERE due_at <= ? AND leased_until <= ? ORDER BY due_at, id LIMIT ?`);
      this.lease = db.prepare('UPDATE logout_deliveries SET leased_until = ? WHERE id = ?');
      this.retry_ = db.prepare('UPDATE logout_deliveries SET attempts = ?, due_at = ?, leased_until = 0 WHERE id = ?');
      this.remove_ = db.prepare('DELETE FROM logout_deliveries WHERE id = ?');
    });
  }

  async add(delivery: LogoutDelivery): Promise<void> {
    await this.database.write(() => this.insert.run(...logoutDeliveryValues(delivery)));
  }

  claim(now: number, leaseMs: number, limit: number): Promise<LogoutDelivery[]> {
    return this.database.write(() => {
      const rows = this.due.all(now, now, Math.max(0, limit)) as LogoutDeliveryRow[];
      for (const row of rows) this.lease.run(now + leaseMs, row.id);
      return rows.map(logoutDeliveryOf);
    });
  }

  async retry(id: string, attempts: number, dueAt: number): Promise<void> {
    await this.database.write(() => this.retry_.run(attempts, dueAt, id));
  }

  async remove(id: string): Promise<void> {
    await this.database.write(() => this.remove_.run(id));
  }
}
