import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { HmacSubjectIdentifiers } from '../adapters/crypto/hmac-subject-identifiers';
import { deriveKey } from '../adapters/crypto/key-derivation';
import { NodeCryptoIdentityAssertions } from '../adapters/crypto/node-crypto-identity-assertions';
import { currentSigningKey, rsaThumbprint, type SigningKey } from '../adapters/crypto/signing-key-set';
import type { Logger } from '../adapters/system/logger';
import type { Clock } from '../application/ports/clock';
import type { IdentityAssertions } from '../application/ports/identity-assertions';
import type { SubjectIdentifiers } from '../application/ports/subject-identifiers';
import type { Config } from './config';

/** The `sub` of every account, shared by the OpenID Connect provider and the signed assertions. */
export function subjectIdentifiersOf(config: Pick<Config, 'secret'>): SubjectIdentifiers {
  return new HmacSubjectIdentifiers(deriveKey(config.secret, 'oidc-subject'));
}

/**
 * Where the assertion signer reads the provider's current key set (`{"keys":[...]}`, the first
 * RS256 key signs). The OpenID Connect provider's loader (OIDC_SIGNING_KEY_FILE, else the
 * `SigningKeys` store) takes this place when both are wired together; until then a key set made
 * for this process, off the event loop, when the first rule asks for an assertion.
 */
export type KeySetLoader = () => Promise<string>;

const generateRsa = promisify(generateKeyPair);

export const processKeySet: KeySetLoader = async () => {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return JSON.stringify({ keys: [{ ...jwk, kid: rsaThumbprint(jwk), alg: 'RS256', use: 'sig' }] });
};

/** The signer of `response.assertion` rules: issuer APP_URL, the provider's subjects and key. */
export function identityAssertionsOf(
  config: Pick<Config, 'appUrl' | 'secret'>,
  clock: Clock,
  logger: Logger,
  keySet: KeySetLoader = processKeySet,
): IdentityAssertions {
  const load = async (): Promise<SigningKey> => currentSigningKey(await keySet());
  return new NodeCryptoIdentityAssertions(config.appUrl, subjectIdentifiersOf(config), clock, load, (error) =>
    logger.error('cannot load the signing key for identity assertions', { error: error instanceof Error ? error.message : String(error) }),
  );
}
