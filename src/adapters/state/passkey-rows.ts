import type { Passkey } from '../../domain/passkey';

/** A passkey as the SQL stores keep it (one row, snake_case columns; transports as a space-separated list). */
export interface PasskeyRow {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly public_key: string;
  readonly counter: number | string;
  readonly transports: string;
  readonly created_at: number | string;
  readonly last_used_at: number | string | null;
}

export const PASSKEY_COLUMNS = 'id, username, name, public_key, counter, transports, created_at, last_used_at';

/** The row read back as a passkey (PostgreSQL answers BIGINT as text). */
export function passkeyOf(row: PasskeyRow): Passkey {
  return Object.freeze({
    id: row.id,
    username: row.username,
    name: row.name,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports === '' ? [] : row.transports.split(' '),
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  });
}

export function rowOf(passkey: Passkey): PasskeyRow {
  return {
    id: passkey.id,
    username: passkey.username,
    name: passkey.name,
    public_key: passkey.publicKey,
    counter: passkey.counter,
    transports: passkey.transports.join(' '),
    created_at: passkey.createdAt,
    last_used_at: passkey.lastUsedAt,
  };
}
