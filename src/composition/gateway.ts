import type { Server } from 'node:http';
import type Koa from 'koa';
import { createHttpApp, type HttpUseCases } from '../adapters/http/app';
import type { HttpSettings } from '../adapters/http/http-settings';
import type { SessionSealer } from '../application/ports/session-sealer';
import type { Logger } from '../adapters/system/logger';
import type { AccessRulesSource } from '../application/ports/access-rules-source';
import type { Config } from './config';
import { buildContainer, type Overrides } from './container';
import type { Resources } from './resources';
import { TOKENS } from './tokens';

export interface Gateway {
  readonly config: Config;
  /** The use cases, for hosts that bring their own HTTP server. */
  readonly useCases: HttpUseCases;
  /** Turns the sessions the use cases return into cookie values and back, for hosts that set their own cookies. */
  readonly sessions: SessionSealer;
  readonly logger: Logger;
  /** The Koa application serving the API and the UI; built on first use, so a host with its own server never builds it. */
  readonly app: Koa;
  /** Starts listening; resolves the bound port. */
  listen(port?: number, address?: string): Promise<{ server: Server; port: number }>;
  /** Releases what the gateway holds besides its server (rules and users file watches, directory connections). Idempotent. */
  close(): Promise<void>;
}

/** Builds a whole gateway from a validated configuration. */
export function createGateway(config: Config, overrides: Overrides = {}): Gateway {
  const container = buildContainer(config, overrides);
  const useCases: HttpUseCases = {
    login: container.get(TOKENS.LoginUseCase),
    verifyTotp: container.get(TOKENS.VerifyTotpUseCase),
    logout: container.get(TOKENS.LogoutUseCase),
    getCurrentUser: container.get(TOKENS.GetCurrentUserUseCase),
    authorizeProxyRequest: container.get(TOKENS.AuthorizeProxyRequestUseCase),
    startOAuth: container.get(TOKENS.StartOAuthUseCase),
    completeOAuth: container.get(TOKENS.CompleteOAuthUseCase),
  };
  const logger = container.get<Logger>(TOKENS.Logger);
  const rulesSource = container.get<AccessRulesSource>(TOKENS.AccessRulesSource);
  let app: Koa | null = null;
  const koa = (): Koa => (app ??= createHttpApp(useCases, container.get<HttpSettings>(TOKENS.HttpSettings)));
  const resources = container.get<Resources>(TOKENS.Resources);
  return {
    config,
    useCases,
    sessions: container.get<SessionSealer>(TOKENS.SessionSealer),
    logger,
    get app() {
      return koa();
    },
    close() {
      rulesSource.close();
      return resources.closeAll();
    },
    listen(port = config.port, address = config.address) {
      return new Promise((resolve, reject) => {
        const server = koa().listen(port, address);
        // Bounded waits for slow or idle clients: headers within 10 s, whole requests within 30 s.
        server.headersTimeout = 10_000;
        server.requestTimeout = 30_000;
        server.keepAliveTimeout = 65_000;
        server.once('error', reject);
        server.once('listening', () => {
          const addr = server.address();
          resolve({ server, port: typeof addr === 'object' && addr !== null ? addr.port : port });
        });
      });
    },
  };
}
