import { AesGcmPasskeyChallengeSealer } from '../../../src/adapters/crypto/aes-gcm-passkey-challenge-sealer';
import { AesGcmOAuthFlowSealer } from '../../../src/adapters/crypto/aes-gcm-oauth-flow-sealer';
import type { PasskeyChallenge } from '../../../src/domain/passkey-challenge';
import { TEST_SECRET } from '../../support/credentials';

const CEREMONY: PasskeyChallenge = { id: 'c1', purpose: 'register', challenge: 'abc', username: 'alice', sessionId: 's1', expiresAt: 1_800_000_000_000 };

describe('AesGcmPasskeyChallengeSealer', () => {
  const sealer = new AesGcmPasskeyChallengeSealer(TEST_SECRET);

  it('opens what it sealed', () => {
    expect(sealer.unseal(sealer.seal(CEREMONY))).toEqual(CEREMONY);
    const login: PasskeyChallenge = { ...CEREMONY, purpose: 'login', username: null, sessionId: null };
    expect(sealer.unseal(sealer.seal(login))).toEqual(login);
  });

  it('refuses a tampered token, a token of another secret and a token sealed for another purpose', () => {
    const token = sealer.seal(CEREMONY);
    // The second-to-last character changes (it always carries data bits): asked of that character, not the last one,
    // which let it stay the same when it was already 'A' (once in 64 seals).
    const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.slice(-1);
    expect(flipped).not.toBe(token);
    expect(sealer.unseal(flipped)).toBeNull();
    expect(new AesGcmPasskeyChallengeSealer(`${TEST_SECRET}-other`).unseal(token)).toBeNull();
    const flow = new AesGcmOAuthFlowSealer(TEST_SECRET).seal({
      id: 'f',
      provider: 'github',
      state: 's',
      codeVerifier: 'v',
      redirectTarget: null,
      createdAt: 1,
      expiresAt: 2,
    });
    expect(sealer.unseal(flow)).toBeNull();
    expect(sealer.unseal('')).toBeNull();
  });
});
