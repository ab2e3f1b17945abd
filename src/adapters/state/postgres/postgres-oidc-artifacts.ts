import type { Clock } from '../../../application/ports/clock';
import type { OidcArtifact, OidcArtifacts } from '../../../application/oidc/oidc-artifacts';
import type { PostgresDatabase } from './postgres-database';
import { indexedFields, readRecord, untilOf } from '../oidc-artifact-record';

interface Row {
  payload: string;
  consumed: string | null;
}

/** A row is live while `until` is NULL (kept until destroyed) or later than the given time. */
const LIVE = '(until IS NULL OR until > $3)';

/**
 * OpenID Connect artifacts in PostgreSQL (table `oidc_artifacts`, schema step 2), shared by every
 * replica: a code issued by one is redeemed at another, a refresh token survives restarts. Every
 * call is one statement; an expired row reads as absent and the sweep deletes it. Rejects with
 * StateStoreUnavailableError when the server does not answer.
 */
export class PostgresOidcArtifacts implements OidcArtifacts {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined): Promise<void> {
    const { grantId, uid, userCode } = indexedFields(payload);
    await this.database.query(
      `INSERT INTO oidc_artifacts (kind, id, payload, consumed, grant_id, uid, user_code, until)
       VALUES ($1, $2, $3, NULL, $4, $5, $6, $7)
       ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, consumed = NULL, grant_id = EXCLUDED.grant_id,
         uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, until = EXCLUDED.until`,
      [kind, id, JSON.stringify(payload), grantId, uid, userCode, untilOf(this.clock.now(), expiresInSeconds)],
    );
  }

  async find(kind: string, id: string): Promise<OidcArtifact | undefined> {
    return this.one(`SELECT payload, consumed FROM oidc_artifacts WHERE kind = $1 AND id = $2 AND ${LIVE}`, kind, id);
  }

  async findByUid(kind: string, uid: string): Promise<OidcArtifact | undefined> {
    return this.one(`SELECT payload, consumed FROM oidc_artifacts WHERE kind = $1 AND uid = $2 AND ${LIVE} LIMIT 1`, kind, uid);
  }

  async findByUserCode(kind: string, userCode: string): Promise<OidcArtifact | undefined> {
    return this.one(`SELECT payload, consumed FROM oidc_artifacts WHERE kind = $1 AND user_code = $2 AND ${LIVE} LIMIT 1`, kind, userCode);
  }

  async consume(kind: string, id: string, nowSeconds: number): Promise<boolean> {
    // One statement with `consumed IS NULL`: the row lock makes concurrent consumers (of any replica) queue, and only the first changes it.
    const rows = await this.database.query(`UPDATE oidc_artifacts SET consumed = $4 WHERE kind = $1 AND id = $2 AND consumed IS NULL AND ${LIVE} RETURNING 1`, [
      kind,
      id,
      this.clock.now(),
      nowSeconds,
    ]);
    return rows.length === 1;
  }

  async destroy(kind: string, id: string): Promise<void> {
    await this.database.query('DELETE FROM oidc_artifacts WHERE kind = $1 AND id = $2', [kind, id]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.database.query('DELETE FROM oidc_artifacts WHERE grant_id = $1', [grantId]);
  }

  private async one(text: string, kind: string, value: string): Promise<OidcArtifact | undefined> {
    const rows = await this.database.query<Row>(text, [kind, value, this.clock.now()]);
    // BIGINT arrives as a string from node-postgres.
    return rows.length === 0 ? undefined : readRecord(rows[0].payload, rows[0].consumed === null ? null : Number(rows[0].consumed));
  }
}
