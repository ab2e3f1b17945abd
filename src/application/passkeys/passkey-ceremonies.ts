import type { Passkey } from '../../domain/passkey';

/** A credential the browser is told about (to exclude it, or to allow it). */
export interface PasskeyDescriptor {
  readonly id: string;
  readonly transports: readonly string[];
}

/** What a verified registration proved: a new credential for the relying party. */
export interface RegisteredCredential {
  readonly id: string;
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
}

/**
 * The WebAuthn ceremonies, with this gateway's relying party (id = the protected cookie domain,
 * origin = APP_URL's). Options are plain JSON for the browser; responses are what the browser
 * returned, unchecked (any shape: a malformed one verifies as null, never throws).
 */
export interface PasskeyCeremonies {
  /** Options for `navigator.credentials.create`, for the account `username`, under `challenge`. */
  registrationOptions(input: {
    readonly username: string;
    readonly displayName: string;
    readonly challenge: string;
    readonly exclude: readonly PasskeyDescriptor[];
  }): Promise<Record<string, unknown>>;

  /**
   * The credential a registration response proves, when it answers `challenge` from this origin
   * for this relying party with a user present and verified; else null.
   */
  verifyRegistration(response: unknown, challenge: string): Promise<RegisteredCredential | null>;

  /**
   * Options for `navigator.credentials.get` under `challenge`: any discoverable passkey when
   * `allow` is empty, else one of those. `userVerification` says whether the authenticator must
   * verify the person (a passkey login) or only their presence (a second factor after a password).
   */
  authenticationOptions(input: {
    readonly challenge: string;
    readonly allow: readonly PasskeyDescriptor[];
    readonly userVerification: boolean;
  }): Promise<Record<string, unknown>>;

  /** The credential id an authentication response names (not yet verified), or null for a malformed one. */
  credentialIdOf(response: unknown): string | null;

  /**
   * The signature counter of an authentication response when it is a valid signature by
   * `passkey` over `challenge`, from this origin and relying party, made for its owner, with the
   * person verified when `userVerification` is true; else null. The counter is not compared here
   * (see counterMayFollow).
   */
  verifyAuthentication(response: unknown, challenge: string, passkey: Passkey, userVerification: boolean): Promise<{ readonly counter: number } | null>;
}
