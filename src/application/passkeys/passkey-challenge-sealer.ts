import type { PasskeyChallenge } from '../../domain/passkey-challenge';

/** Turns a pending passkey ceremony into an opaque, tamper-proof token (a cookie value) and back. */
export interface PasskeyChallengeSealer {
  /** Seals a ceremony; the token cannot be altered and reveals nothing. */
  seal(challenge: PasskeyChallenge): string;
  /** Opens a token; null for anything tampered, foreign or malformed. Never throws. Does not check expiry. */
  unseal(token: string): PasskeyChallenge | null;
}
