import { createHmac } from 'node:crypto';
import type { PasskeyCeremonies, PasskeyDescriptor, RegisteredCredential } from '../../application/passkeys/passkey-ceremonies';
import { knownTransports, type Passkey } from '../../domain/passkey';
import { deriveKey } from '../crypto/key-derivation';

type SimpleWebAuthn = typeof import('@simplewebauthn/server');

export interface RelyingParty {
  /** The relying-party id: the protected (cookie) domain, so one passkey serves every app under it. */
  readonly id: string;
  /** What authenticators show as the site's name. */
  readonly name: string;
  /** APP_URL's origin: the only page a ceremony may come from. */
  readonly origin: string;
}

/** Plain-object checks: a response is whatever a client sent. */
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const BASE64URL = /^[A-Za-z0-9_-]{1,1400}$/;

/**
 * The challenge's bytes. The library base64url-encodes a string challenge's UTF-8 bytes, which
 * would make the browser sign something else than the value this gateway compares with; as bytes,
 * the options carry the challenge exactly as it was made (random, canonical base64url).
 */
function challengeBytes(challenge: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(Buffer.from(challenge, 'base64url'));
}

/**
 * The WebAuthn ceremonies through `@simplewebauthn/server` (v14). Attestation is not asked for
 * (`none`): the gateway trusts the person who is logged in to choose their authenticator, not a
 * vendor list. Every response is checked for shape first, and any error the library throws on a
 * bad response (wrong origin, RP id, challenge, signature, malformed CBOR) reads as "not
 * verified": a client's bytes never become a 500.
 *
 * The WebAuthn user handle is an HMAC of the username under a key derived from SECRET: stable
 * (registering again on one authenticator replaces its passkey for this site instead of adding a
 * second), and it tells an authenticator or a relying party that sees it nothing about the account.
 */
export class SimpleWebAuthnPasskeyCeremonies implements PasskeyCeremonies {
  private readonly handleKey: Buffer;

  constructor(
    private readonly lib: () => SimpleWebAuthn,
    private readonly rp: RelyingParty,
    secret: string,
  ) {
    this.handleKey = deriveKey(secret, 'passkey-user-handle v1');
  }

  private userHandle(username: string): Buffer {
    return createHmac('sha256', this.handleKey).update(username.toLowerCase()).digest().subarray(0, 32);
  }

  async registrationOptions(input: {
    readonly username: string;
    readonly displayName: string;
    readonly challenge: string;
    readonly exclude: readonly PasskeyDescriptor[];
  }): Promise<Record<string, unknown>> {
    const options = await this.lib().generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userName: input.username,
      userDisplayName: input.displayName,
      userID: new Uint8Array(this.userHandle(input.username)),
      challenge: challengeBytes(input.challenge),
      attestationType: 'none',
      excludeCredentials: input.exclude.map((d) => ({ id: d.id, transports: [...d.transports] })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: 120_000,
    });
    return options as unknown as Record<string, unknown>;
  }

  async verifyRegistration(response: unknown, challenge: string): Promise<RegisteredCredential | null> {
    if (!isRecord(response) || typeof response.id !== 'string' || !BASE64URL.test(response.id) || !isRecord(response.response)) return null;
    try {
      const verified = await this.lib().verifyRegistrationResponse({
        response: response as never,
        expectedChallenge: challenge,
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        requireUserVerification: true,
      });
      if (!verified.verified) return null;
      const { credential } = verified.registrationInfo;
      return {
        id: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: knownTransports(Array.isArray(response.response.transports) ? response.response.transports : credential.transports),
      };
    } catch {
      return null;
    }
  }

  async authenticationOptions(input: { readonly challenge: string; readonly allow: readonly PasskeyDescriptor[]; readonly userVerification: boolean }) {
    const options = await this.lib().generateAuthenticationOptions({
      rpID: this.rp.id,
      challenge: challengeBytes(input.challenge),
      allowCredentials: input.allow.map((d) => ({ id: d.id, transports: [...d.transports] })),
      userVerification: input.userVerification ? 'required' : 'preferred',
      timeout: 120_000,
    });
    return options as unknown as Record<string, unknown>;
  }

  credentialIdOf(response: unknown): string | null {
    if (!isRecord(response) || typeof response.id !== 'string' || !BASE64URL.test(response.id)) return null;
    return response.id;
  }

  async verifyAuthentication(response: unknown, challenge: string, passkey: Passkey, userVerification: boolean): Promise<{ readonly counter: number } | null> {
    if (this.credentialIdOf(response) !== passkey.id || !isRecord(response) || !isRecord(response.response)) return null;
    // A discoverable passkey says whose it is: it must be the account the passkey is stored for.
    const handle = response.response.userHandle;
    if (handle !== undefined && handle !== null && handle !== '' && handle !== this.userHandle(passkey.username).toString('base64url')) return null;
    try {
      const verified = await this.lib().verifyAuthenticationResponse({
        response: response as never,
        expectedChallenge: challenge,
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        // The counter policy is the domain's (counterMayFollow), with its own answer and audit line:
        // the library is given 0 so that it never refuses for the counter itself.
        credential: { id: passkey.id, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: 0, transports: [...passkey.transports] },
        requireUserVerification: userVerification,
      });
      return verified.verified ? { counter: verified.authenticationInfo.newCounter } : null;
    } catch {
      return null;
    }
  }
}
