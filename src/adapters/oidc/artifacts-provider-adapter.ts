import type { Clock } from '../../application/ports/clock';
import type { OidcArtifact, OidcArtifacts } from '../../application/ports/oidc-artifacts';

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
 */
export function artifactsProviderAdapter(artifacts: OidcArtifacts, clock: Clock): new (kind: string) => ProviderAdapter {
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

    consume(id: string): Promise<void> {
      return artifacts.consume(this.kind, id, Math.floor(clock.now() / 1000));
    }

    destroy(id: string): Promise<void> {
      return artifacts.destroy(this.kind, id);
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return artifacts.revokeByGrantId(grantId);
    }
  };
}
