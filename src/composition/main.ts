import { BcryptPasswordHasher } from '../adapters/crypto/bcrypt-password-hasher';
import { InvalidAccessRulesError } from '../adapters/rules/yaml-file-access-rules-source';
import { configWarnings, loadConfig, secretFlagWarnings } from './config';
import { demoBanner, withDemoAccount } from './demo';
import { createGateway } from './gateway';

/** The `npm start` entry: read config, start, and shut down cleanly on SIGTERM/SIGINT. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  for (const warning of secretFlagWarnings(argv)) process.stderr.write(`portcullis: warning: ${warning}\n`);
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
  // Valid but risky: said once, loudly, where operators look (the log), before the first request.
  for (const warning of configWarnings(config)) gateway.logger.warn(warning);
  const { port } = await gateway.listen();
  const forwardAuth = await gateway.listenForwardAuth();
  const metrics = await gateway.listenMetrics();
  if (banner !== null) process.stderr.write(`${banner}\n`);
  gateway.logger.info('portcullis listening', {
    address: config.address,
    port,
    // Where proxies ask; null: on the public port, next to the UI.
    forwardAuth: forwardAuth === null ? null : `${config.forwardAuthAddress}:${forwardAuth.port}`,
    appUrl: config.appUrl,
    demo: config.demo,
    sharedState: config.redis === null ? 'memory' : 'redis',
    metricsPort: metrics?.port ?? null,
  });

  const stop = (signal: string): void => {
    // shutdown() stops the listeners before it returns; the line below is written after that.
    const stopped = gateway.shutdown();
    gateway.logger.info('shutting down: no new connections, finishing in-flight requests', { signal });
    stopped.then(
      (clean) => {
        if (!clean) gateway.logger.warn('shutdown timed out; open requests were cut', { timeoutSeconds: config.shutdownTimeoutSeconds });
        process.exit(clean ? 0 : 1);
      },
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return 0;
}
