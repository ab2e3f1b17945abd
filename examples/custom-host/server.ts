/**
 * # Portcullis in your own HTTP server (no Koa)
 *
 * Portcullis is also a library: `createGateway(config)` wires the whole core and hands back its use
 * cases, which know nothing of HTTP. This file is a complete host built on plain `node:http` that
 * serves two routes with them:
 *
 * - `POST /login` with a JSON body `{"username": "...", "password": "..."}`: runs `LoginUseCase`
 *   and, on success, sets a cookie holding the session the use case sealed (`result.value.token`).
 * - `GET /auth`: the forward-auth check. Runs `AuthorizeProxyRequestUseCase` with the cookie, any
 *   HTTP Basic credentials (`parseBasicAuthorization`) and the `X-Forwarded-*` headers, and answers 200 with `Remote-User` or 401.
 *
 * Run it (after `npm run build`), configured exactly like the gateway itself:
 *
 *     APP_URL=https://auth.example.com SECRET=... USERS='alice:$2b$10$...' PORT=8080 \
 *       node dist/examples/custom-host/server.js
 *
 *     curl -i -c jar -H 'content-type: application/json' -d '{"username":"alice","password":"..."}' localhost:8080/login
 *     curl -i -b jar -H 'X-Forwarded-Host: app.example.com' localhost:8080/auth
 *
 * Every outcome a use case returns is a value with a `code`; the `switch` statements below map each
 * one to an HTTP answer, and the compiler complains if a new code is left unmapped.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createGateway, loadConfig, parseBasicAuthorization, printableHeaderValue, protectedDomainOfAppUrl, type Gateway } from '../../src/index';

const COOKIE = 'custom-session';
const MAX_BODY = 16 * 1024;

function send(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify({ status, ...body }));
}

function cookieValue(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(size <= MAX_BODY ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null);
      } catch {
        resolve(null);
      }
    });
  });
}

/** The host: two routes over the gateway's use cases. */
export function createCustomHost(gateway: Gateway): Server {
  const { login, authorizeProxyRequest } = gateway.useCases;
  const domain = protectedDomainOfAppUrl(gateway.config.appUrl);
  const cookieAttributes = `Path=/; HttpOnly; SameSite=Lax${domain.shareable ? `; Domain=${domain.domain}` : ''}${gateway.config.cookieSecure ? '; Secure' : ''}`;
  const header = (req: IncomingMessage, name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };

  async function handleLogin(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJson(req)) as { username?: unknown; password?: unknown } | null;
    if (body === null || typeof body.username !== 'string' || typeof body.password !== 'string') {
      return send(res, 400, { message: 'Send {"username": string, "password": string}' });
    }
    const result = await login.execute({ login: body.username, password: body.password, ip: req.socket.remoteAddress ?? 'unknown' });
    if (result.ok) {
      const { session } = result.value;
      const maxAge = Math.floor((session.expiresAt - session.issuedAt) / 1000);
      const cookie = `${COOKIE}=${result.value.token}; Max-Age=${maxAge}; ${cookieAttributes}`;
      return send(res, 200, { message: 'Logged in', totpPending: String(session.totpPending) }, { 'set-cookie': cookie });
    }
    switch (result.error.code) {
      case 'invalid_credentials':
        return send(res, 401, { message: 'Unauthorized' });
      case 'account_locked':
        return send(res, 429, { message: `Locked for ${result.error.retryAfter} seconds` }, { 'retry-after': String(result.error.retryAfter) });
      case 'store_unavailable':
        return send(res, 503, { message: 'Try again later' });
      default: {
        const unmapped: never = result.error;
        throw new Error(`unmapped ${String(unmapped)}`);
      }
    }
  }

  async function handleAuth(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const result = await authorizeProxyRequest.execute({
      // The X-Forwarded-* headers as traefik and caddy send them; an nginx in front would send X-Original-URL.
      forwarded: { proxy: 'traefik', proto: header(req, 'x-forwarded-proto'), host: header(req, 'x-forwarded-host'), uri: header(req, 'x-forwarded-uri') },
      sessionToken: cookieValue(req),
      credentials: parseBasicAuthorization(header(req, 'authorization')) ?? undefined,
      ip: req.socket.remoteAddress ?? 'unknown',
    });
    if (result.ok) {
      const identity = result.value.identity;
      return send(res, 200, { message: 'Authenticated' }, identity === null ? {} : { 'remote-user': printableHeaderValue(identity.username) });
    }
    switch (result.error.code) {
      case 'unauthenticated':
        return send(res, 401, { message: 'Unauthorized', login: `${gateway.config.appUrl}/login` });
      case 'forbidden':
        return send(res, 403, { message: 'Forbidden' });
      case 'invalid_token':
        return send(res, 401, { message: 'Invalid token' });
      case 'step_up_required':
        return send(res, 401, { message: 'Confirm who you are again', login: `${gateway.config.appUrl}/login?step_up=${encodeURIComponent(result.error.reference)}` });
      case 'bad_forwarded_headers':
        return send(res, 400, { message: `${result.error.problem === 'repeated' ? 'Repeated' : 'Malformed'} ${result.error.field}` });
      case 'ambiguous_path':
        return send(res, 400, { message: 'Ambiguous path' });
      case 'account_locked':
        return send(res, 429, { message: `Locked for ${result.error.retryAfter} seconds` });
      case 'store_unavailable':
        return send(res, 503, { message: 'Try again later' });
      default: {
        const unmapped: never = result.error;
        throw new Error(`unmapped ${String(unmapped)}`);
      }
    }
  }

  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = req.method === 'POST' && path === '/login' ? handleLogin : req.method === 'GET' && path === '/auth' ? handleAuth : null;
    if (route === null) return send(res, 404, { message: 'Not found' });
    route(req, res).catch(() => {
      // Never leak what went wrong inside to the client.
      if (!res.headersSent) send(res, 500, { message: 'Internal server error' });
      else res.destroy();
    });
  });
}

if (require.main === module) {
  const loaded = loadConfig({ env: process.env, argv: process.argv.slice(2) });
  if (!loaded.ok) {
    process.stderr.write(`custom host cannot start:\n${loaded.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(2);
  }
  const gateway = createGateway(loaded.config);
  // Building the gateway starts nothing; start() runs what works in the background (the PostgreSQL
  // schema check, the Redis revocation feed, the rules file watch) before the first request is served.
  gateway.start().then(
    () => {
      const server = createCustomHost(gateway);
      server.listen(loaded.config.port, loaded.config.address, () => {
        const address = server.address();
        const port = typeof address === 'object' && address !== null ? address.port : loaded.config.port;
        process.stdout.write(`custom host listening on http://${loaded.config.address}:${port}\n`);
      });
      process.once('SIGTERM', () => server.close(() => process.exit(0)));
    },
    (e: unknown) => {
      process.stderr.write(`custom host cannot start: ${e instanceof Error ? e.message : String(e)}\n`);
      void gateway.close().then(() => process.exit(2));
    },
  );
}
