import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { createHttpApp, type HttpUseCases } from '../adapters/http/app';
import { forwardAuthHandler } from '../adapters/http/forward-auth';
import { forwardAuthFirst, forwardAuthOnly, publicOnly, type GatewayRequestListener } from '../adapters/http/request-listener';
import type { SessionSealer } from '../application/ports/session-sealer';
import type { Logger } from '../adapters/system/logger';
import type { Config } from '../config/load';
import { buildContainer, type Overrides } from './container';
import { httpUseCases } from './http';
import { TOKENS } from './tokens';

export interface Gateway {
  readonly config: Config;
  /** The use cases, for hosts that bring their own HTTP server. */
  readonly useCases: HttpUseCases;
  /** Turns the sessions the use cases return into cookie values and back, for hosts that set their own cookies. */
  readonly sessions: SessionSealer;
  readonly logger: Logger;
  /**
   * The Koa application serving the API and the UI; built on first use, so a host with its own
   * server never builds it. Forward auth is not in it: `listener` answers `/api/auth/*` before Koa.
   */
  readonly app: Koa;
  /**
   * The request listener `listen` serves: forward auth answered before Koa, everything else by
   * `app`; with FORWARD_AUTH_PORT, the UI and browser API only (`/api/auth/*` is 404 there).
   */
  readonly listener: GatewayRequestListener;
  /**
   * Starts what runs in the background: opens the SQLite database (DATA_DIR), the PostgreSQL schema
   * check and change feed, the Redis connection and revocation feed, the access rules and users
   * file watches, the decoy hash. Building the gateway starts
   * nothing; `listen`, `listenForwardAuth` and `listenMetrics` call this first (and wait for it),
   * and a host with its own server awaits it before serving. Resolves once the stores that load at
   * start are ready to be used (PostgreSQL: schema checked and updated; when the server is
   * unreachable it resolves too and keeps trying, cookie sessions answering 503 meanwhile).
   * Rejects with DatabaseStartError when the database can never work with this configuration (a
   * newer schema, a wrong password). Idempotent: every call returns the same promise.
   */
  start(): Promise<void>;
  /** Starts the public listener (UI, browser API, and forward auth unless it has its own); resolves the bound port. */
  listen(port?: number, address?: string): Promise<{ server: Server; port: number }>;
  /**
   * Starts the internal forward-auth listener (`/api/auth/*`, `/api/healthcheck`, `/api/ready`);
   * resolves null when forward auth shares the public listener (no FORWARD_AUTH_PORT).
   */
  listenForwardAuth(port?: number, address?: string): Promise<{ server: Server; port: number } | null>;
  /**
   * Starts the Prometheus endpoint (`GET /metrics`) on its own port; resolves null when metrics
   * are off (no METRICS_PORT).
   */
  listenMetrics(port?: number, address?: string): Promise<{ server: Server; port: number } | null>;
  /**
   * Releases what the gateway holds besides its servers (rules and users file watches, Redis and
   * directory connections), without draining requests. Idempotent.
   */
  close(): Promise<void>;
  /**
   * Graceful stop: readiness turns 503, the servers started by `listen`/`listenMetrics` stop
   * accepting, in-flight requests finish (up to SHUTDOWN_TIMEOUT), then the rules watch and Redis
   * close and the log is flushed. Resolves true when everything finished in time. Idempotent.
   */
  shutdown(): Promise<boolean>;
}

function listenOn(server: Server, port: number, address: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr !== null ? addr.port : port });
    });
  });
}

/** A server with bounded waits for slow or idle clients: headers within 10 s, whole requests within 30 s. */
function boundedServer(listener: GatewayRequestListener): Server {
  const server = createServer(listener);
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 65_000;
  return server;
}

/** Stops accepting, lets in-flight requests end, and closes keep-alive connections as soon as they are idle. */
function drain(server: Server, deadline: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve(true);
    let done = false;
    const finish = (ok: boolean): void => {
      if (done) return;
      done = true;
      clearInterval(idle);
      clearTimeout(timer);
      resolve(ok);
    };
    server.close(() => finish(true));
    // A connection that finishes its last request becomes idle; close it then, not before.
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const timer = setTimeout(
      () => {
        server.closeAllConnections();
        finish(false);
      },
      Math.max(0, deadline - Date.now()),
    );
  });
}

/** Builds a whole gateway from a validated configuration. */
export function createGateway(config: Config, overrides: Overrides = {}): Gateway {
  const container = buildContainer(config, overrides);
  // The stores' connections first: they register their start, readiness and close before anything built on them.
  for (const holder of [TOKENS.Database, TOKENS.Postgres, TOKENS.Redis] as const) container.get(holder);
  const useCases = httpUseCases(config, container);
  // The back-channel logout queue runs on every gateway with OpenID Connect clients (issue 35).
  if (config.oidc.clients.length > 0) container.get(TOKENS.LogoutDeliveryWorker);
  const logger = container.get(TOKENS.Logger);
  let app: Koa | null = null;
  const koa = (): Koa => (app ??= createHttpApp(useCases, container.get(TOKENS.HttpSettings), container.get(TOKENS.OidcHttp).oidc?.middleware ?? null));
  const separateForwardAuth = config.forwardAuthPort !== null;
  const forwardAuth = () => forwardAuthHandler(useCases.authorizeProxyRequest, container.get(TOKENS.HttpSettings));
  let listener: GatewayRequestListener | null = null;
  const requestListener = (): GatewayRequestListener => (listener ??= separateForwardAuth ? publicOnly(koa()) : forwardAuthFirst(koa(), forwardAuth()));
  let internalListener: GatewayRequestListener | null = null;
  const resources = container.get(TOKENS.Resources);
  const servers: Server[] = [];
  let starting: Promise<void> | null = null;
  // Every part has registered what it starts by now (the use cases above resolved them): start them.
  const start = (): Promise<void> => {
    if (starting !== null) return starting;
    starting = resources.startAll();
    // Handled here so a host that does not await start() gets no unhandled rejection; awaiting it still sees the error.
    starting.catch(() => undefined);
    return starting;
  };
  let closing: Promise<void> | null = null;
  let stopping: Promise<boolean> | null = null;
  // Newest first: the connections and the database, registered first, close last.
  const release = (): Promise<void> => (closing ??= resources.closeAll());

  return {
    config,
    useCases,
    sessions: container.get(TOKENS.SessionSealer),
    logger,
    get app() {
      return koa();
    },
    get listener() {
      return requestListener();
    },
    start,
    async listen(port = config.port, address = config.address) {
      await start();
      const server = boundedServer(requestListener());
      servers.push(server);
      return listenOn(server, port, address);
    },
    async listenForwardAuth(port = config.forwardAuthPort ?? 0, address = config.forwardAuthAddress) {
      if (!separateForwardAuth) return null;
      await start();
      const server = boundedServer((internalListener ??= forwardAuthOnly(koa(), forwardAuth())));
      servers.push(server);
      return listenOn(server, port, address);
    },
    async listenMetrics(port = config.metricsPort ?? 0, address = config.metricsAddress) {
      const { metrics } = container.get(TOKENS.Metrics);
      if (metrics === null) return null;
      await start();
      const server = createServer((req, res) => {
        if (req.method !== 'GET' || (req.url !== '/metrics' && !req.url?.startsWith('/metrics?'))) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
          return;
        }
        metrics.registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
          () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
        );
      });
      servers.push(server);
      return listenOn(server, port, address);
    },
    close() {
      return release();
    },
    shutdown() {
      stopping ??= (async () => {
        container.get(TOKENS.Lifecycle).drain();
        const deadline = Date.now() + config.shutdownTimeoutSeconds * 1000;
        const drained = await Promise.all(servers.map((s) => drain(s, deadline)));
        await release();
        const flush = (logger as { flush?: () => Promise<void> }).flush;
        if (flush !== undefined) await flush.call(logger);
        return drained.every(Boolean);
      })();
      return stopping;
    },
  };
}
