import { LOGOUT_DELIVERY_KEPT_MS, type LogoutDelivery } from '../../domain/backchannel-logout';

/** A `logout_deliveries` row (SQLite and PostgreSQL); PostgreSQL's BIGINTs come back as strings. */
export interface LogoutDeliveryRow {
  readonly id: string;
  readonly client_id: string;
  readonly subject: string;
  readonly sid: string | null;
  readonly created_at: number | string;
  readonly attempts: number | string;
  readonly due_at: number | string;
}

export const LOGOUT_DELIVERY_COLUMNS = 'id, client_id, subject, sid, created_at, attempts, due_at';

export const logoutDeliveryOf = (row: LogoutDeliveryRow): LogoutDelivery => ({
  id: row.id,
  clientId: row.client_id,
  subject: row.subject,
  sid: row.sid,
  createdAt: Number(row.created_at),
  attempts: Number(row.attempts),
  dueAt: Number(row.due_at),
});

/** The values of a new row, in {@link LOGOUT_DELIVERY_COLUMNS} order, then leased_until (0) and until. */
export const logoutDeliveryValues = (d: LogoutDelivery): [string, string, string, string | null, number, number, number, number, number] => [
  d.id,
  d.clientId,
  d.subject,
  d.sid,
  d.createdAt,
  d.attempts,
  d.dueAt,
  0,
  d.createdAt + LOGOUT_DELIVERY_KEPT_MS,
];
