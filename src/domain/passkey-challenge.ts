/**
 * A WebAuthn ceremony under way: the challenge the browser was given and what it is bound to.
 * It travels sealed in a cookie; its id is claimed once in the durable store when it is answered,
 * so an answer works once, on any replica, and only within its lifetime.
 */
export interface PasskeyChallenge {
  /** Random; what is claimed to make the ceremony single-use. */
  readonly id: string;
  /**
   * `register`: a logged-in person adds a passkey; `login`: a passkey login; `second_factor`: a
   * passkey instead of a TOTP code; `enrol`: the first passkey of a passkey-only account, from an
   * enrolment link (no session: the redeemed link stood for the person); `reauthenticate`: a
   * passkey-only account proving itself again before a passkey change (issue 29).
   */
  readonly purpose: 'register' | 'login' | 'second_factor' | 'enrol' | 'reauthenticate';
  /** The challenge (base64url) the authenticator must sign. */
  readonly challenge: string;
  /** The account it was made for (register, second_factor, enrol, reauthenticate); null for a login, where the passkey names it. */
  readonly username: string | null;
  /** The session it was made in (register, reauthenticate: the full session; second_factor: the pending one); null for a login and an enrolment. */
  readonly sessionId: string | null;
  readonly expiresAt: number;
}

export const PASSKEY_PURPOSES: ReadonlySet<string> = new Set(['register', 'login', 'second_factor', 'enrol', 'reauthenticate']);
