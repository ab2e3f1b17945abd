import type { Session } from '../../domain/session';

/** Turns a session into an opaque, tamper-proof token and back (the cookie value). */
export interface SessionSealer {
  /** Seals a session; the token reveals nothing and cannot be altered. */
  seal(session: Session): string;
  /** Opens a token; null for anything tampered, foreign, malformed or of an unknown version. Never throws. */
  unseal(token: string): Session | null;
}
