import type { Server } from 'node:http';
import type Koa from 'koa';
import { createHttpApp, type HttpUseCases } from '../adapters/http/app';
import type { HttpSettings } from '../adapters/http/http-settings';
import type { Logger } from '../adapters/system/logger';
import type { Config } from './config';
import { buildContainer, type Overrides } from './container';
import type { Resources } from './resources';
import { TOKENS } from './tokens';

export interface Gateway {
  readonly config: Config;
  /** The use cases, for hosts that bring their own HTTP server. */
  readonly useCases: HttpUseCases;
  readonly logger: Logger;
  /** The Koa application serving the API and the UI. */
  readonly app: Koa;
  /** Starts listening; resolves the bound port. */
  listen(port?: number, address?: string): Promise<{ server: Server; port: number }>;
  /** Releases what the gateway holds open besides its server (file watchers, directory connections). */
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
  const app = createHttpApp(useCases, container.get<HttpSettings>(TOKENS.HttpSettings));
  const resources = container.get<Resources>(TOKENS.Resources);
  return {
    config,
    useCases,
    logger,
    app,
    close: () => resources.closeAll(),
    listen(port = config.port, address = config.address) {
      return new Promise((resolve, reject) => {
        const server = app.listen(port, address);
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
