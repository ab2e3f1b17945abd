import type { Clock } from '../../application/ports/clock';
import type { OidcArtifact, OidcArtifacts } from '../../application/oidc/oidc-artifacts';

/** oidc-provider's storage adapter contract (one instance per model name). */
export interface ProviderAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<OidcArtifact | undefined>;
  findByUserCode(userCode: string): Promise<OidcArtifact | undefined>;
  findByUid(uid: string): Promise<OidcArtifact | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/**
 * The class oidc-provider instantiates per model ("Session", "AuthorizationCode", ...), each
 * instance speaking to the one {@link OidcArtifacts} port: the library's storage interface stops
 * here, and the durable adapters (memory, SQLite, PostgreSQL, Redis) know nothing of it.
 *
 * `alreadyConsumed` is the error the provider answers with (invalid_grant) when a code or refresh
 * token was consumed by a concurrent request between the provider's read and its consume.
 */
export function artifactsProviderAdapter(
  artifacts: OidcArtifacts,
  clock: Clock,
  alreadyConsumed: (kind: string) => Error,
): new (kind: string) => ProviderAdapter {
  return class ArtifactsProviderAdapter implements ProviderAdapter {
    constructor(private readonly kind: string) {}

    upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      return artifacts.save(this.kind, id, payload, expiresIn);
    }

    find(id: string): Promise<OidcArtifact | undefined> {
      return artifacts.find(this.kind, id);
    }

    findByUserCode(userCode: string): Promise<OidcArtifact | undefined> {
      return artifacts.findByUserCode(this.kind, userCode);
    }

    findByUid(uid: string): Promise<OidcArtifact | undefined> {
      return artifacts.findByUid(this.kind, uid);
    }

    /**
     * The provider reads a code or refresh token, checks it is not consumed, then consumes it: two
     * requests with one value can both pass the check. The store's consume is the atomic step; the
     * loser is treated as the provider treats a replay it sees: the grant is revoked (its tokens,
     * the winner's included, and the grant itself) and the request fails with invalid_grant.
     */
    async consume(id: string): Promise<void> {
      if (await artifacts.consume(this.kind, id, Math.floor(clock.now() / 1000))) return;
      const record = await artifacts.find(this.kind, id);
      const grantId = record?.grantId;
      if (typeof grantId === 'string' && grantId !== '') await Promise.all([artifacts.revokeByGrantId(grantId), artifacts.destroy('Grant', grantId)]);
      throw alreadyConsumed(this.kind);
    }

    destroy(id: string): Promise<void> {
      return artifacts.destroy(this.kind, id);
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return artifacts.revokeByGrantId(grantId);
    }
  };
}
