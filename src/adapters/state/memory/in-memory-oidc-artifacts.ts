import type { Clock } from '../../../application/ports/clock';
import type { OidcArtifact, OidcArtifacts } from '../../../application/oidc/oidc-artifacts';
import { BoundedExpiringMap } from '../bounded-map';
import { indexedFields, readRecord, untilOf, type IndexedFields } from '../oidc-artifact-record';

interface Stored extends IndexedFields {
  readonly kind: string;
  readonly payload: string;
  readonly consumed: number | null;
}

/**
 * OpenID Connect artifacts in this process (tests, `DATA_DIR` unset): gone at restart, not shared.
 * Bounded: a flood of authorization requests evicts the oldest records (interactions and codes
 * that are by then nearly expired) instead of growing without limit. The lookup indexes may point
 * at an evicted record; every lookup checks the record itself, and the indexes are pruned now and
 * then.
 */
export class InMemoryOidcArtifacts implements OidcArtifacts {
  private readonly records: BoundedExpiringMap<Stored>;
  private readonly byGrant = new Map<string, Set<string>>();
  private readonly byUid = new Map<string, string>();
  private readonly byUserCode = new Map<string, string>();
  private writes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly capacity = 100_000,
  ) {
    this.records = new BoundedExpiringMap(capacity);
  }

  /** How many records are held (expired ones included until swept). */
  get size(): number {
    return this.records.size;
  }

  async save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined): Promise<void> {
    const now = this.clock.now();
    if (++this.writes % 1024 === 0) this.sweep(now);
    const key = keyOf(kind, id);
    const fields = indexedFields(payload);
    this.records.set(key, { kind, payload: JSON.stringify(payload), consumed: null, ...fields }, untilOf(now, expiresInSeconds) ?? Infinity);
    if (fields.grantId !== null) {
      const members = this.byGrant.get(fields.grantId) ?? new Set<string>();
      members.add(key);
      this.byGrant.set(fields.grantId, members);
    }
    if (fields.uid !== null) this.byUid.set(keyOf(kind, fields.uid), key);
    if (fields.userCode !== null) this.byUserCode.set(keyOf(kind, fields.userCode), key);
    // Inserting may have evicted the oldest record: keep the indexes from outgrowing the records.
    if (this.byUid.size > this.capacity || this.byUserCode.size > this.capacity || this.byGrant.size > this.capacity) this.sweep(now);
  }

  async find(kind: string, id: string): Promise<OidcArtifact | undefined> {
    const record = this.records.get(keyOf(kind, id), this.clock.now());
    return record === undefined ? undefined : readRecord(record.payload, record.consumed);
  }

  async findByUid(kind: string, uid: string): Promise<OidcArtifact | undefined> {
    return this.findIndexed(this.byUid.get(keyOf(kind, uid)), (r) => r.kind === kind && r.uid === uid);
  }

  async findByUserCode(kind: string, userCode: string): Promise<OidcArtifact | undefined> {
    return this.findIndexed(this.byUserCode.get(keyOf(kind, userCode)), (r) => r.kind === kind && r.userCode === userCode);
  }

  async consume(kind: string, id: string, nowSeconds: number): Promise<boolean> {
    const now = this.clock.now();
    const key = keyOf(kind, id);
    const record = this.records.get(key, now);
    const until = this.records.expiryOf(key, now);
    // Checked and marked in one synchronous step: no other call runs in between.
    if (record === undefined || until === undefined || record.consumed !== null) return false;
    // Re-inserted with its own expiry: consuming never extends a record's life.
    this.records.set(key, { ...record, consumed: nowSeconds }, until);
    return true;
  }

  async destroy(kind: string, id: string): Promise<void> {
    this.records.delete(keyOf(kind, id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const members = this.byGrant.get(grantId);
    if (members === undefined) return;
    this.byGrant.delete(grantId);
    const now = this.clock.now();
    for (const key of members) {
      // The set may name a record since replaced by one of another grant: leave that one alone.
      if (this.records.get(key, now)?.grantId === grantId) this.records.delete(key);
    }
  }

  private findIndexed(key: string | undefined, matches: (record: Stored) => boolean): OidcArtifact | undefined {
    if (key === undefined) return undefined;
    const record = this.records.get(key, this.clock.now());
    return record !== undefined && matches(record) ? readRecord(record.payload, record.consumed) : undefined;
  }

  /** Drops expired records and index entries that point at no live record. */
  private sweep(now: number): void {
    this.records.sweep(now);
    const live = (key: string): boolean => this.records.get(key, now) !== undefined;
    for (const [grantId, members] of this.byGrant) {
      for (const key of members) if (this.records.get(key, now)?.grantId !== grantId) members.delete(key);
      if (members.size === 0) this.byGrant.delete(grantId);
    }
    for (const [k, key] of this.byUid) if (!live(key)) this.byUid.delete(k);
    for (const [k, key] of this.byUserCode) if (!live(key)) this.byUserCode.delete(k);
  }
}

/** `kind` never holds a NUL (it is a model name), so the pair maps to one key unambiguously. */
function keyOf(kind: string, id: string): string {
  return `${kind}\u0000${id}`;
}
