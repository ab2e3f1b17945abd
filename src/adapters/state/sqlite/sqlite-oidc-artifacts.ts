import type { Clock } from '../../../application/ports/clock';
import type { OidcArtifact, OidcArtifacts } from '../../../application/oidc/oidc-artifacts';
import type { SqliteDatabase, Statement } from './sqlite-database';
import { indexedFields, readRecord, untilOf } from '../oidc-artifact-record';

interface Row {
  payload: string;
  consumed: number | null;
}

/**
 * OpenID Connect artifacts in the embedded database (table `oidc_artifacts`, schema step 2), so
 * grants and refresh tokens survive a restart. Reads go to the file (committed writes only: every
 * write resolves after its commit); an expired row reads as absent and the periodic sweep deletes
 * it. Writes fail with StateStoreUnavailableError when the disk cannot take them.
 */
export class SqliteOidcArtifacts implements OidcArtifacts {
  private upsert!: Statement<
    [{ kind: string; id: string; payload: string; grantId: string | null; uid: string | null; userCode: string | null; until: number | null }]
  >;
  private select!: Statement<[string, string, number], Row>;
  private selectByUid!: Statement<[string, string, number], Row>;
  private selectByUserCode!: Statement<[string, string, number], Row>;
  private markConsumed!: Statement<[number, string, string, number]>;
  private remove!: Statement<[string, string]>;
  private removeGrant!: Statement<[string]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    database.whenOpen((db) => {
      const live = '(until IS NULL OR until > ?)';
      this.upsert = db.prepare(
        `INSERT INTO oidc_artifacts (kind, id, payload, consumed, grant_id, uid, user_code, until)
         VALUES (@kind, @id, @payload, NULL, @grantId, @uid, @userCode, @until)
         ON CONFLICT (kind, id) DO UPDATE SET payload = excluded.payload, consumed = NULL, grant_id = excluded.grant_id,
           uid = excluded.uid, user_code = excluded.user_code, until = excluded.until`,
      );
      this.select = db.prepare(`SELECT payload, consumed FROM oidc_artifacts WHERE kind = ? AND id = ? AND ${live}`);
      this.selectByUid = db.prepare(`SELECT payload, consumed FROM oidc_artifacts WHERE kind = ? AND uid = ? AND ${live} LIMIT 1`);
      this.selectByUserCode = db.prepare(`SELECT payload, consumed FROM oidc_artifacts WHERE kind = ? AND user_code = ? AND ${live} LIMIT 1`);
      this.markConsumed = db.prepare(`UPDATE oidc_artifacts SET consumed = ? WHERE kind = ? AND id = ? AND consumed IS NULL AND ${live}`);
      this.remove = db.prepare('DELETE FROM oidc_artifacts WHERE kind = ? AND id = ?');
      this.removeGrant = db.prepare('DELETE FROM oidc_artifacts WHERE grant_id = ?');
    });
  }

  async save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined): Promise<void> {
    const row = { kind, id, payload: JSON.stringify(payload), ...indexedFields(payload), until: untilOf(this.clock.now(), expiresInSeconds) };
    await this.database.write(() => this.upsert.run(row));
  }

  async find(kind: string, id: string): Promise<OidcArtifact | undefined> {
    return toRecord(this.select.get(kind, id, this.clock.now()));
  }

  async findByUid(kind: string, uid: string): Promise<OidcArtifact | undefined> {
    return toRecord(this.selectByUid.get(kind, uid, this.clock.now()));
  }

  async findByUserCode(kind: string, userCode: string): Promise<OidcArtifact | undefined> {
    return toRecord(this.selectByUserCode.get(kind, userCode, this.clock.now()));
  }

  async consume(kind: string, id: string, nowSeconds: number): Promise<boolean> {
    const now = this.clock.now();
    // `consumed IS NULL` in the statement: of concurrent consumers only one changes the row.
    const changed = await this.database.write(() => this.markConsumed.run(nowSeconds, kind, id, now).changes);
    return changed === 1;
  }

  async destroy(kind: string, id: string): Promise<void> {
    await this.database.write(() => this.remove.run(kind, id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.database.write(() => this.removeGrant.run(grantId));
  }
}

function toRecord(row: Row | undefined): OidcArtifact | undefined {
  return row === undefined ? undefined : readRecord(row.payload, row.consumed);
}
