import { BcryptPasswordHasher } from '../adapters/crypto/bcrypt-password-hasher';
import { loadConfig } from './config';
import { demoBanner, withDemoAccount } from './demo';
import { createGateway } from './gateway';

/** The `npm start` entry: read config, start, and shut down cleanly on SIGTERM/SIGINT. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const loaded = loadConfig({ env, argv });
  if (!loaded.ok) {
    process.stderr.write(`Portcullis cannot start; fix the configuration:\n${loaded.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 2;
  }
  let config = loaded.config;
  let banner: string | null = null;
  if (config.demo) {
    const demo = await withDemoAccount(config, new BcryptPasswordHasher());
    config = demo.config;
    banner = demoBanner(config, demo.password);
  }
  const gateway = createGateway(config);
  const { server, port } = await gateway.listen();
  if (banner !== null) process.stderr.write(`${banner}\n`);
  gateway.logger.info('portcullis listening', { address: config.address, port, appUrl: config.appUrl, demo: config.demo });

  const stop = (signal: string): void => {
    gateway.logger.info('shutting down', { signal });
    server.close(() => {
      void gateway.close().finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return 0;
}
