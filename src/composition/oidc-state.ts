import { AesGcmSigningKeys, SigningKeysUnreadableError } from '../adapters/crypto/aes-gcm-signing-keys';
import { HmacOidcArtifacts } from '../adapters/crypto/hmac-oidc-artifacts';
import type { OidcArtifacts } from '../application/oidc/oidc-artifacts';
import type { SigningKeys } from '../application/oidc/signing-keys';
import type { StateStores, StoreKind } from '../adapters/state/state-stores';
import type { RedisHolder } from './holders';

/** Where the OpenID Connect provider keeps its records and its signing key set. */
export interface OidcState {
  /** Stored under an HMAC of each id, `jti` sealed (HmacOidcArtifacts): a copy of the store yields no usable token. */
  readonly artifacts: OidcArtifacts;
  /** Sealed with a key derived from SECRET before it reaches the store (getOrCreate rejects with SigningKeysUnreadableError under another SECRET). */
  readonly signingKeys: SigningKeys;
  /** Which store holds them, for logs and `config explain`. */
  readonly store: StoreKind;
}

/**
 * The OpenID Connect provider's stores from the bundle chosen for durable records: PostgreSQL when
 * DATABASE_URL is set (even when Redis holds the short-lived login state), else Redis, else the
 * embedded database in DATA_DIR, else this process's memory. Grants and refresh tokens live for
 * days: with both set, keeping them in PostgreSQL keeps them when Redis is flushed or restarted
 * without persistence. See ADR 0025.
 *
 * Builds objects only: the stores are usable once `gateway.start()` has opened the database.
 */
export function buildOidcState(records: StateStores, secret: string): OidcState {
  // Tokens are stored under an HMAC of their value, the key set sealed: neither is readable from a copy of the store.
  return {
    store: records.kind,
    artifacts: new HmacOidcArtifacts(records.oidcArtifacts(), secret),
    signingKeys: new AesGcmSigningKeys(records.signingKeys(), secret),
  };
}

/**
 * Opens (creating when none is stored) the signing key set at start-up, so a set sealed under
 * another SECRET stops the start with one clear line (SigningKeysUnreadableError, a
 * DatabaseStartError: exit code 2) instead of failing every OpenID Connect request later. A
 * store that cannot answer yet is not a start-up problem: the provider opens the set on its
 * first request and answers 503 until it can.
 */
export async function openSigningKeysAtStart(signingKeys: SigningKeys, create: () => string, redis: RedisHolder): Promise<void> {
  try {
    // Redis connects in the background; give it a moment, never long (start-up does not wait for Redis otherwise).
    await redis.connection?.ready(2000);
    await signingKeys.getOrCreate(create);
  } catch (e) {
    if (e instanceof SigningKeysUnreadableError) throw e;
  }
}
