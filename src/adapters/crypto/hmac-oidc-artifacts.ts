import { createHmac } from 'node:crypto';
import type { OidcArtifact, OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import { AesGcmBox } from './aes-gcm-box';
import { deriveKey } from './key-derivation';

/**
 * Keeps bearer values out of the store. oidc-provider stores an opaque token (authorization
 * code, access token, refresh token, its session and interaction ids) under the token itself and
 * repeats it as `payload.jti`: a copied database file, Redis dump or backup would hand its reader
 * working refresh tokens. This wrapper stores each record under an HMAC of its id (keyed by
 * SECRET) and seals `jti`, so the store holds neither; the provider, which only ever looks a
 * token up by its value, sees no difference. Deterministic, so every replica (same SECRET) finds
 * what another saved. Grant ids, uids and user codes stay readable: the store indexes them, and
 * none of them is accepted as a credential by an endpoint. See ADR 0025.
 */
export class HmacOidcArtifacts implements OidcArtifacts {
  private readonly idKey: Buffer;
  private readonly box: AesGcmBox;

  constructor(
    private readonly store: OidcArtifacts,
    secret: string,
  ) {
    this.idKey = deriveKey(secret, 'oidc-artifact-ids v1');
    this.box = new AesGcmBox(secret, 'oidc-artifact-jti', 'j1');
  }

  save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined): Promise<void> {
    const stored = typeof payload.jti === 'string' ? { ...payload, jti: this.box.seal(payload.jti) } : payload;
    return this.store.save(kind, this.keyed(kind, id), stored, expiresInSeconds);
  }

  async find(kind: string, id: string): Promise<OidcArtifact | undefined> {
    return this.opened(await this.store.find(kind, this.keyed(kind, id)));
  }

  async findByUid(kind: string, uid: string): Promise<OidcArtifact | undefined> {
    return this.opened(await this.store.findByUid(kind, uid));
  }

  async findByUserCode(kind: string, userCode: string): Promise<OidcArtifact | undefined> {
    return this.opened(await this.store.findByUserCode(kind, userCode));
  }

  consume(kind: string, id: string, nowSeconds: number): Promise<boolean> {
    return this.store.consume(kind, this.keyed(kind, id), nowSeconds);
  }

  destroy(kind: string, id: string): Promise<void> {
    return this.store.destroy(kind, this.keyed(kind, id));
  }

  revokeByGrantId(grantId: string): Promise<void> {
    return this.store.revokeByGrantId(grantId);
  }

  /** The kind is part of the MAC, so one id under two kinds stays two records. */
  private keyed(kind: string, id: string): string {
    return createHmac('sha256', this.idKey).update(kind).update('\u0000').update(id).digest('base64url');
  }

  private opened(record: OidcArtifact | undefined): OidcArtifact | undefined {
    if (record === undefined || typeof record.jti !== 'string') return record;
    const jti = this.box.open(record.jti);
    // Sealed under another SECRET (or altered): the record cannot be trusted to name its token.
    return typeof jti === 'string' ? { ...record, jti } : undefined;
  }
}
