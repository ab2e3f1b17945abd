import type { Clock } from '../application/ports/clock';
import type { OidcArtifact, OidcArtifacts } from '../application/ports/oidc-artifacts';
import type { SigningKeys } from '../application/ports/signing-keys';

/**
 * Where the provider keeps its artifacts and its key set. Interim: process memory only (lost on a
 * restart, not shared by replicas) until the durable adapters (SQLite, PostgreSQL, Redis) are
 * wired here by the storage work; the provider itself only sees the two ports.
 */
export interface OidcStorage {
  readonly artifacts: OidcArtifacts;
  readonly signingKeys: SigningKeys;
}

interface Entry {
  payload: Record<string, unknown>;
  expiresAt: number | null;
}

/** Bounded: the oldest records go first when a flood of authorizations fills it. */
const MAX_RECORDS = 100_000;

class InterimMemoryOidcArtifacts implements OidcArtifacts {
  private readonly records = new Map<string, Entry>();

  constructor(private readonly clock: Clock) {}

  private key = (kind: string, id: string): string => `${kind}\0${id}`;

  private live(key: string): Entry | undefined {
    const e = this.records.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt !== null && e.expiresAt <= this.clock.now()) {
      this.records.delete(key);
      return undefined;
    }
    return e;
  }

  async save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined): Promise<void> {
    const key = this.key(kind, id);
    this.records.delete(key);
    if (this.records.size >= MAX_RECORDS) this.records.delete(this.records.keys().next().value as string);
    this.records.set(key, { payload: { ...payload }, expiresAt: expiresInSeconds === undefined ? null : this.clock.now() + expiresInSeconds * 1000 });
  }

  async find(kind: string, id: string): Promise<OidcArtifact | undefined> {
    const e = this.live(this.key(kind, id));
    return e === undefined ? undefined : { ...e.payload };
  }

  private async findBy(kind: string, field: string, value: string): Promise<OidcArtifact | undefined> {
    for (const [key, e] of this.records) {
      if (key.startsWith(`${kind}\0`) && e.payload[field] === value && this.live(key) !== undefined) return { ...e.payload };
    }
    return undefined;
  }

  findByUid(kind: string, uid: string): Promise<OidcArtifact | undefined> {
    return this.findBy(kind, 'uid', uid);
  }

  findByUserCode(kind: string, userCode: string): Promise<OidcArtifact | undefined> {
    return this.findBy(kind, 'userCode', userCode);
  }

  async consume(kind: string, id: string, nowSeconds: number): Promise<void> {
    const e = this.live(this.key(kind, id));
    if (e !== undefined) e.payload = { ...e.payload, consumed: nowSeconds };
  }

  async destroy(kind: string, id: string): Promise<void> {
    this.records.delete(this.key(kind, id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [key, e] of this.records) if (e.payload.grantId === grantId) this.records.delete(key);
  }
}

class InterimMemorySigningKeys implements SigningKeys {
  private stored: string | null = null;

  async getOrCreate(create: () => string): Promise<string> {
    this.stored ??= create();
    return this.stored;
  }

  async replace(keySet: string): Promise<void> {
    this.stored = keySet;
  }
}

export function oidcStorageOf(clock: Clock): OidcStorage {
  return { artifacts: new InterimMemoryOidcArtifacts(clock), signingKeys: new InterimMemorySigningKeys() };
}
