import { NodeCryptoIdentityAssertions } from '../adapters/crypto/node-crypto-identity-assertions';
import { currentSigningKey, type SigningKey } from '../adapters/crypto/signing-key-set';
import type { Logger } from '../adapters/system/logger';
import type { Clock } from '../application/ports/clock';
import type { IdentityAssertions } from '../application/forward-auth/identity-assertions';
import type { SigningKeys } from '../application/oidc/signing-keys';
import type { SubjectIdentifiers } from '../application/oidc/subject-identifiers';
import type { Config } from '../config/load';
import { loadSigningKeys } from './oidc-keys';

/** Reads the provider's current key set, serialized (`{"keys":[...]}`, the first RS256 key signs). */
export type KeySetLoader = () => Promise<string>;

/**
 * The provider's own key loader: OIDC_SIGNING_KEY_FILE's key when configured, else the durable
 * store's key set (created once), so assertions verify against the JWKS the provider publishes.
 */
export function providerKeySet(config: Pick<Config, 'oidc'>, signingKeys: SigningKeys): KeySetLoader {
  return async () => JSON.stringify({ keys: await loadSigningKeys(config.oidc.signingKeyPem, signingKeys) });
}

/**
 * The signer of `response.assertion` rules: issuer APP_URL, the provider's subjects (one `sub` for
 * a person in ID tokens and assertions alike) and its current key, read when the first assertion
 * is asked for (a gateway whose rules ask for none never reads or creates a key for them).
 */
export function identityAssertionsOf(
  config: Pick<Config, 'appUrl'>,
  subjects: SubjectIdentifiers,
  clock: Clock,
  logger: Logger,
  keySet: KeySetLoader,
): IdentityAssertions {
  const load = async (): Promise<SigningKey> => currentSigningKey(await keySet());
  return new NodeCryptoIdentityAssertions(config.appUrl, subjects, clock, load, (error) =>
    logger.error('cannot load the signing key for identity assertions', { error: error instanceof Error ? error.message : String(error) }),
  );
}
