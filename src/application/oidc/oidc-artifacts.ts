/**
 * What the OpenID Connect provider keeps between requests: authorization codes, sessions,
 * grants, access and refresh tokens, interactions. One record per (`kind`, `id`); `kind` is the
 * provider's model name ("AuthorizationCode", "RefreshToken", "Grant", ...), the payload is opaque
 * JSON to the store. Records carry their own expiry and may be forgotten after it.
 *
 * Durable stores (SQLite, PostgreSQL, Redis) keep them across restarts and share them between
 * replicas, so a refresh token issued by one replica is honoured by another and after a restart.
 */
export interface OidcArtifacts {
  /**
   * Creates or replaces record (`kind`, `id`), forgettable after `expiresInSeconds` (none: kept
   * until destroyed). `payload.grantId`, `payload.uid` and `payload.userCode`, when present, are
   * what {@link revokeByGrantId}, {@link findByUid} and {@link findByUserCode} look up.
   * Replacing a record replaces its payload and expiry and clears its consumed mark. A payload
   * reads back as saved (JSON values, empty arrays and objects included).
   */
  save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined): Promise<void>;
  /** The record, or undefined when it does not exist or has expired. */
  find(kind: string, id: string): Promise<OidcArtifact | undefined>;
  /** The unexpired record of `kind` whose `payload.uid` is `uid`, or undefined. */
  findByUid(kind: string, uid: string): Promise<OidcArtifact | undefined>;
  /** The unexpired record of `kind` whose `payload.userCode` is `userCode`, or undefined. */
  findByUserCode(kind: string, userCode: string): Promise<OidcArtifact | undefined>;
  /**
   * Marks the record consumed (sets `payload.consumed` to `nowSeconds`) unless it already is, in
   * one atomic step shared by every replica: of many concurrent calls for one record exactly one
   * resolves true. False when the record was already consumed, does not exist or has expired (then
   * nothing changes). A consumed code or rotated refresh token stays findable so the provider can
   * detect its reuse. Never changes the record's expiry.
   */
  consume(kind: string, id: string, nowSeconds: number): Promise<boolean>;
  /** Removes the record; resolves whether or not it existed. */
  destroy(kind: string, id: string): Promise<void>;
  /**
   * Removes every record, of every kind, whose `payload.grantId` is `grantId` (consumed ones
   * included); a record saved again since under another grant is kept.
   */
  revokeByGrantId(grantId: string): Promise<void>;
}

/** One stored record: the provider's JSON payload. */
export type OidcArtifact = Readonly<Record<string, unknown>>;
