import { AesGcmOAuthFlowSealer } from '../../../src/adapters/crypto/aes-gcm-oauth-flow-sealer';
import { AesGcmSessionSealer } from '../../../src/adapters/crypto/aes-gcm-session-sealer';
import { oauthFlowSealerContract } from './oauth-flow-sealer.contract';
import { aSession } from './session-sealer.contract';

oauthFlowSealerContract('AesGcmOAuthFlowSealer', (_env, secret) => new AesGcmOAuthFlowSealer(secret));

describe('AesGcmOAuthFlowSealer', () => {
  it('does not open a session cookie made with the same secret (separate keys per purpose)', () => {
    const secret = 'one-secret-for-both-0123456789-abcdefghijk';
    const sessionToken = new AesGcmSessionSealer(secret).seal(aSession());
    expect(new AesGcmOAuthFlowSealer(secret).unseal(sessionToken)).toBeNull();
    expect(new AesGcmOAuthFlowSealer(secret).unseal(`f1.${sessionToken.slice(3)}`)).toBeNull();
  });
});
