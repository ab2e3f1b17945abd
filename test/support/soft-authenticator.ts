import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (b: Buffer | Uint8Array): string => Buffer.from(b).toString('base64url');
const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();

/** What a ceremony may be made to lie about, for attack tests. */
export interface Forgery {
  readonly origin?: string;
  readonly rpId?: string;
  readonly challenge?: string;
  /** The signature counter to report (default: the authenticator's, incremented). */
  readonly counter?: number;
  readonly userVerified?: boolean;
  readonly userHandle?: string;
}

/**
 * A WebAuthn authenticator in software (ES256, `none` attestation), for tests that speak the
 * protocol without a browser: it answers the gateway's options exactly as a platform
 * authenticator would, and can be told to lie (another origin, RP id or challenge, a stale counter).
 */
export class SoftAuthenticator {
  readonly id = randomBytes(16);
  private readonly keys: { publicKey: KeyObject; privateKey: KeyObject } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  counter = 0;
  userHandle = '';

  constructor(readonly origin: string) {}

  get credentialId(): string {
    return b64url(this.id);
  }

  /** A copy with the same key and counter: a cloned authenticator. */
  clone(): SoftAuthenticator {
    const copy = Object.create(SoftAuthenticator.prototype) as SoftAuthenticator;
    Object.assign(copy, { id: this.id, keys: this.keys, counter: this.counter, userHandle: this.userHandle, origin: this.origin });
    return copy;
  }

  private coseKey(): Uint8Array {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const key = new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x as string, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y as string, 'base64url'))],
    ]);
    return isoCBOR.encode(key as never);
  }

  private authData(rpId: string, counter: number, userVerified: boolean, attested: boolean): Buffer {
    const flags = 0x01 | (userVerified ? 0x04 : 0) | (attested ? 0x40 : 0);
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const parts = [sha256(rpId), Buffer.from([flags]), count];
    if (attested) {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(this.id.length);
      parts.push(Buffer.alloc(16), len, this.id, Buffer.from(this.coseKey()));
    }
    return Buffer.concat(parts);
  }

  /** The `RegistrationResponseJSON` for `options` (PublicKeyCredentialCreationOptionsJSON). */
  register(options: Record<string, unknown>, forgery: Forgery = {}): Record<string, unknown> {
    const rp = options.rp as { id: string };
    const user = options.user as { id: string };
    this.userHandle = user.id;
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.create', challenge: forgery.challenge ?? options.challenge, origin: forgery.origin ?? this.origin, crossOrigin: false }),
    );
    const authData = this.authData(forgery.rpId ?? rp.id, forgery.counter ?? this.counter, forgery.userVerified ?? true, true);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientData), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** The `AuthenticationResponseJSON` for `options` (PublicKeyCredentialRequestOptionsJSON); the counter goes up by one. */
  assert(options: Record<string, unknown>, forgery: Forgery = {}): Record<string, unknown> {
    if (forgery.counter === undefined) this.counter += 1;
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: forgery.challenge ?? options.challenge, origin: forgery.origin ?? this.origin, crossOrigin: false }),
    );
    const authData = this.authData(forgery.rpId ?? (options.rpId as string), forgery.counter ?? this.counter, forgery.userVerified ?? true, false);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.keys.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: forgery.userHandle ?? this.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
