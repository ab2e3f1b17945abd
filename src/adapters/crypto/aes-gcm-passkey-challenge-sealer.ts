import type { PasskeyChallengeSealer } from '../../application/passkeys/passkey-challenge-sealer';
import { PASSKEY_PURPOSES, type PasskeyChallenge } from '../../domain/passkey-challenge';
import { AesGcmBox } from './aes-gcm-box';

/**
 * Seals passkey ceremonies with AES-256-GCM under their own key derived from SECRET: the cookie
 * binds the challenge to its purpose, account and session, and nobody can write one.
 */
export class AesGcmPasskeyChallengeSealer implements PasskeyChallengeSealer {
  private readonly box: AesGcmBox;

  constructor(secret: string) {
    this.box = new AesGcmBox(secret, 'passkey-challenge', 'p1');
  }

  seal(c: PasskeyChallenge): string {
    return this.box.seal([c.id, c.purpose, c.challenge, c.username, c.sessionId, c.expiresAt]);
  }

  unseal(token: string): PasskeyChallenge | null {
    const p = this.box.open(token);
    if (!Array.isArray(p) || p.length !== 6) return null;
    const [id, purpose, challenge, username, sessionId, expiresAt] = p as unknown[];
    if (typeof id !== 'string' || typeof purpose !== 'string' || !PASSKEY_PURPOSES.has(purpose) || typeof challenge !== 'string') return null;
    if ((username !== null && typeof username !== 'string') || (sessionId !== null && typeof sessionId !== 'string') || typeof expiresAt !== 'number')
      return null;
    return Object.freeze({ id, purpose: purpose as PasskeyChallenge['purpose'], challenge, username, sessionId, expiresAt });
  }
}
