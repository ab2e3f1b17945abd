import { createServer, type Server } from 'node:http';
import * as jose from 'jose';

/** One logout token a relying party took: its protected header and its verified claims. */
export interface ReceivedLogout {
  readonly header: jose.JWTHeaderParameters;
  readonly claims: jose.JWTPayload & { events?: Record<string, unknown>; sid?: string };
  readonly at: number;
}

/**
 * A relying party's back-channel logout endpoint, as an app built with jose writes it: it takes
 * `logout_token` from the form, verifies its signature against the provider's published keys, its
 * issuer and audience, and records it. It answers `status()` (200 by default); while `down`, it
 * does not listen at all. Anything it cannot verify is answered 400 and recorded in `rejected`.
 */
export class LogoutRp {
  readonly received: ReceivedLogout[] = [];
  readonly rejected: string[] = [];
  status: () => number = () => 200;
  /** How long it takes to answer (a slow app must not slow the logout that told it). */
  delayMs = 0;
  private server: Server | null = null;
  private jwks: ReturnType<typeof jose.createRemoteJWKSet> | null = null;

  constructor(
    readonly port: number,
    private readonly expected: { issuer: () => string; audience: string },
  ) {}

  get uri(): string {
    return `http://127.0.0.1:${this.port}/backchannel-logout`;
  }

  async up(): Promise<void> {
    if (this.server !== null) return;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void this.take(Buffer.concat(chunks).toString('utf8'), req.headers['content-type'] ?? '').then(async (ok) => {
          if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
          res.statusCode = ok ? this.status() : 400;
          res.end();
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until `count` tokens were taken (or throws after `ms`). */
  async waitFor(count: number, ms = 10_000): Promise<ReceivedLogout[]> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`the relying party got ${this.received.length} logout tokens, not ${count}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.received;
  }

  private async take(body: string, contentType: string): Promise<boolean> {
    try {
      if (!contentType.startsWith('application/x-www-form-urlencoded')) throw new Error('not a form');
      const token = new URLSearchParams(body).get('logout_token');
      if (token === null) throw new Error('no logout_token');
      this.jwks ??= jose.createRemoteJWKSet(new URL(`${this.expected.issuer()}/oidc/jwks`));
      const { payload, protectedHeader } = await jose.jwtVerify(token, this.jwks, {
        issuer: this.expected.issuer(),
        audience: this.expected.audience,
        algorithms: ['RS256'],
      });
      this.received.push({ header: protectedHeader, claims: payload as ReceivedLogout['claims'], at: Date.now() });
      return true;
    } catch (e) {
      this.rejected.push(e instanceof Error ? e.message : String(e));
      return false;
    }
  }
}
