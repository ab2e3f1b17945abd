import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** One signing key of the issuer: its private half, and its public JWK as the key set shows it. */
export interface IssuerKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256' | 'PS256';
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

export async function issuerKey(kid: string, alg: IssuerKey['alg']): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' } };
}

/**
 * A workload JWT issuer on 127.0.0.1 (a CI system, say): its OpenID Connect discovery document at
 * `/.well-known/openid-configuration` and its key set at `/jwks`, with the keys `published`. Counts
 * the requests for each; `down` answers 503 to everything, as an issuer in trouble might.
 */
export class TestJwtIssuer {
  published: IssuerKey[] = [];
  down = false;
  readonly hits = { discovery: 0, jwks: 0 };
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      if (this.down) {
        res.writeHead(503).end();
        return;
      }
      if (req.url === '/.well-known/openid-configuration') {
        this.hits.discovery += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/jwks` }));
      } else if (req.url === '/jwks') {
        this.hits.jwks += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: this.published.map((k) => k.jwk) }));
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => (this.server as Server).listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A token signed with `key`: iss is this issuer, exp an hour away, unless `claims` say otherwise (undefined leaves a claim out). */
  async sign(key: IssuerKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const all: Record<string, unknown> = { iss: this.url, iat: now, exp: now + 3600, ...claims };
    for (const name of Object.keys(all)) if (all[name] === undefined) delete all[name];
    return new SignJWT(all).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey);
  }
}

/** An unsigned token (`alg: none`) with these claims. */
export function unsignedJwt(claims: Record<string, unknown>): string {
  const part = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}
