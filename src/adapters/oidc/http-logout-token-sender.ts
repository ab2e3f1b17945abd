import { createPrivateKey, sign, type JsonWebKey } from 'node:crypto';
import type { LogoutSendFailure, LogoutTokenSender } from '../../application/oidc/logout-token-sender';
import type { LogoutTokenClaims } from '../../domain/backchannel-logout';

/** The provider's signing key as its key set holds it (a private RSA JWK with kid and alg). */
export interface SigningJwkLike {
  readonly kid: string;
  readonly alg: string;
  readonly [field: string]: unknown;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Signs logout tokens with the provider's own signing key (RS256, the key its JWKS publishes, so
 * an app verifies them as it verifies ID tokens; `typ` is `logout+jwt` as the specification
 * recommends) and POSTs them with a time limit. Redirects are not followed: an app's logout URI
 * answers itself.
 */
export class HttpLogoutTokenSender implements LogoutTokenSender {
  constructor(
    /** The key set, the signing key first (loaded from the store once, then kept). */
    private readonly keys: () => Promise<readonly SigningJwkLike[]>,
    private readonly timeoutMs: number,
  ) {}

  async send(uri: string, claims: LogoutTokenClaims): Promise<{ ok: true } | { ok: false; reason: LogoutSendFailure; status?: number }> {
    let token: string;
    try {
      token = await this.sign(claims);
    } catch {
      return { ok: false, reason: 'signing_failed' };
    }
    try {
      const response = await fetch(uri, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-store' },
        body: new URLSearchParams({ logout_token: token }).toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The body is not read: free the connection.
      await response.body?.cancel().catch(() => undefined);
      return response.status === 200 || response.status === 204 ? { ok: true } : { ok: false, reason: 'refused', status: response.status };
    } catch (e) {
      const name = e instanceof Error ? e.name : '';
      return { ok: false, reason: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable' };
    }
  }

  private async sign(claims: LogoutTokenClaims): Promise<string> {
    const key = (await this.keys()).find((k) => k.alg === 'RS256');
    if (key === undefined) throw new Error('no RS256 signing key');
    const input = `${b64({ alg: 'RS256', typ: 'logout+jwt', kid: key.kid })}.${b64(claims)}`;
    const signature = sign('sha256', Buffer.from(input), createPrivateKey({ key: key as unknown as JsonWebKey, format: 'jwk' }));
    return `${input}.${signature.toString('base64url')}`;
  }
}
