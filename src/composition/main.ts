import { BcryptPasswordHasher } from '../adapters/crypto/bcrypt-password-hasher';
import { InvalidAccessRulesError } from '../adapters/rules/yaml-file-access-rules-source';
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
  let gateway: ReturnType<typeof createGateway>;
  try {
    gateway = createGateway(config);
  } catch (e) {
    // The rules file changed between validation and loading: still a list of problems, not a stack trace.
    if (!(e instanceof InvalidAccessRulesError)) throw e;
    process.stderr.write(`Portcullis cannot start; fix the access rules:\n${e.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 2;
  }
  const { server, port } = await gateway.listen();
  if (banner !== null) process.stderr.write(`${banner}\n`);
  gateway.logger.info('portcullis listening', { address: config.address, port, appUrl: config.appUrl, demo: config.demo });

  const stop = (signal: string): void => {
    gateway.logger.info('shutting down', { signal });
    const closed = gateway.close();
    server.close(() => {
      void closed.finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return 0;
}
