import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BcryptPasswordHasher } from '../adapters/crypto/bcrypt-password-hasher';
import { InvalidAccessRulesError } from '../adapters/rules/yaml-file-access-rules-source';
import { DatabaseStartError } from '../adapters/state/sqlite/sqlite-database';
import { configWarnings, loadConfig, secretFlagWarnings, type Config } from '../composition/config';
import { DEFAULT_DATA_DIR } from '../composition/data-dir';
import { demoBanner, withDemoAccount } from './demo-banner';
import { createGateway } from '../composition/gateway';
import { describeCookieDomain, protectedDomainOfAppUrl } from '../composition/cookie-domain';
import { unknownOptionWarnings } from '../composition/option-docs';

/**
 * The state store of the gateway process: Redis when REDIS_URL is set (shared by replicas, so it
 * wins), otherwise the embedded database in DATA_DIR (default ./data; for the demo a throwaway
 * directory, removed when it stops).
 */
function withDataDir(config: Config): { config: Config; throwaway: string | null } {
  if (config.redis !== null || config.database !== null || config.dataDir !== null) return { config, throwaway: null };
  if (!config.demo) return { config: { ...config, dataDir: DEFAULT_DATA_DIR }, throwaway: null };
  const throwaway = mkdtempSync(join(tmpdir(), 'portcullis-demo-'));
  return { config: { ...config, dataDir: throwaway }, throwaway };
}

/** Which store holds the state, for the start-up log line. */
function stateStoreOf(config: Config): string {
  if (config.database !== null) return config.redis === null ? 'postgres' : 'redis+postgres';
  if (config.redis !== null) return 'redis';
  return config.dataDir === null ? 'memory' : 'sqlite';
}

/**
 * The embedded database serves one gateway: a second one on the same DATA_DIR is refused by its
 * lock, but replicas with a DATA_DIR each (an orchestrator's volume per pod) would each keep
 * their own logouts and locks. A process cannot count its siblings; where the platform says this
 * may be one of several (Kubernetes sets KUBERNETES_SERVICE_HOST in every pod), say so once.
 */
function replicaHintOf(config: Config, env: NodeJS.ProcessEnv): string | null {
  if (config.redis !== null || config.database !== null || config.dataDir === null) return null;
  if (env.KUBERNETES_SERVICE_HOST === undefined) return null;
  return 'the state is in the embedded database of this one gateway (DATA_DIR): if several replicas run, each has its own logouts and locks; set DATABASE_URL (PostgreSQL) so they share them';
}

/** The `npm start` entry: read config, start, and shut down cleanly on SIGTERM/SIGINT. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  for (const warning of secretFlagWarnings(argv)) process.stderr.write(`portcullis: warning: ${warning}\n`);
  const loaded = loadConfig({ env, argv });
  if (!loaded.ok) {
    process.stderr.write(`Portcullis cannot start; fix the configuration:\n${loaded.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 2;
  }
  const stored = withDataDir(loaded.config);
  let config = stored.config;
  const removeThrowaway = (): void => {
    if (stored.throwaway !== null) rmSync(stored.throwaway, { recursive: true, force: true });
  };
  let banner: string | null = null;
  if (config.demo) {
    const demo = await withDemoAccount(config, new BcryptPasswordHasher());
    config = demo.config;
    banner = demoBanner(config, demo.password, stored.throwaway);
  }
  let gateway: ReturnType<typeof createGateway>;
  try {
    gateway = createGateway(config);
  } catch (e) {
    removeThrowaway();
    // The rules file changed between validation and loading: still a list of problems, not a stack trace.
    if (e instanceof InvalidAccessRulesError) {
      process.stderr.write(`Portcullis cannot start; fix the access rules:\n${e.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      return 2;
    }
    // A locked, corrupt, newer or unwritable database: one line that says what to do, exit code 2 like any configuration problem.
    const cause = e instanceof DatabaseStartError ? e : (e as { cause?: unknown })?.cause;
    if (cause instanceof DatabaseStartError) {
      process.stderr.write(`Portcullis cannot start; fix the database:\n  - ${cause.message}\n`);
      return 2;
    }
    throw e;
  }
  // Before listening: PostgreSQL's schema is checked (and a newer one refused) before the first request.
  try {
    await gateway.start();
  } catch (e) {
    await gateway.close();
    removeThrowaway();
    if (e instanceof DatabaseStartError) {
      process.stderr.write(`Portcullis cannot start; fix the database:\n  - ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  // Valid but risky: said once, loudly, where operators look (the log), before the first request.
  for (const warning of [...unknownOptionWarnings(env), ...configWarnings(config)]) gateway.logger.warn(warning);
  if ((loaded.config.redis !== null || loaded.config.database !== null) && loaded.config.dataDir !== null) {
    gateway.logger.warn('DATA_DIR is not used: with REDIS_URL or DATABASE_URL the state is shared by the replicas there', { dataDir: loaded.config.dataDir });
  }
  const replicaHint = replicaHintOf(config, env);
  if (replicaHint !== null) gateway.logger.warn(replicaHint);
  let port: number;
  let forwardAuth: Awaited<ReturnType<typeof gateway.listenForwardAuth>>;
  let metrics: Awaited<ReturnType<typeof gateway.listenMetrics>>;
  // Which option chose the address being bound, for a message that says what to change.
  let binding = `PORT ${config.port} (on ADDRESS ${config.address})`;
  try {
    ({ port } = await gateway.listen());
    binding = `FORWARD_AUTH_PORT ${String(config.forwardAuthPort)} (on FORWARD_AUTH_ADDRESS ${config.forwardAuthAddress})`;
    forwardAuth = await gateway.listenForwardAuth();
    binding = `METRICS_PORT ${String(config.metricsPort)} (on METRICS_ADDRESS ${config.metricsAddress})`;
    metrics = await gateway.listenMetrics();
  } catch (e) {
    await gateway.close();
    removeThrowaway();
    const code = (e as { code?: unknown } | null)?.code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
      const why =
        code === 'EADDRINUSE'
          ? 'another program listens there already (another gateway?): stop it, or choose another port'
          : code === 'EACCES'
            ? 'this user may not bind it (ports below 1024 need privileges): choose a port of 1024 or more'
            : 'no interface of this machine has that address: choose one it has, or 0.0.0.0';
      process.stderr.write(`Portcullis cannot start; fix the configuration:\n  - ${binding}: ${why}\n`);
      return 2;
    }
    throw e;
  }
  // Listening for signals before saying "listening": a supervisor (or a test) that stops the
  // gateway as soon as it reads that line must not find the default action (immediate death,
  // leaving the demo's throwaway directory behind).
  const stop = (signal: string): void => {
    // shutdown() stops the listeners before it returns; the line below is written after that.
    const stopped = gateway.shutdown();
    gateway.logger.info('shutting down: no new connections, finishing in-flight requests', { signal });
    stopped.then(
      (clean) => {
        if (!clean) gateway.logger.warn('shutdown timed out; open requests were cut', { timeoutSeconds: config.shutdownTimeoutSeconds });
        removeThrowaway();
        process.exit(clean ? 0 : 1);
      },
      () => {
        removeThrowaway();
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  if (banner !== null) process.stderr.write(`${banner}\n`);
  gateway.logger.info('portcullis listening', {
    address: config.address,
    port,
    // Where proxies ask; null: on the public port, next to the UI.
    forwardAuth: forwardAuth === null ? null : `${config.forwardAuthAddress}:${forwardAuth.port}`,
    appUrl: config.appUrl,
    // The public-suffix list decides how far up the session cookie reaches: an operator should see it, not guess it.
    cookieDomain: describeCookieDomain(protectedDomainOfAppUrl(config.appUrl)),
    // Issue 17: the further gateway URLs, each with its own cookie domain; [] for one domain.
    ...(config.appUrls.length > 1
      ? { handoffDomains: config.appUrls.slice(1).map((url) => ({ appUrl: url, cookieDomain: describeCookieDomain(protectedDomainOfAppUrl(url)) })) }
      : {}),
    demo: config.demo,
    sharedState: stateStoreOf(config),
    dataDir: config.redis === null && config.dataDir !== null ? resolve(config.dataDir) : null,
    metricsPort: metrics?.port ?? null,
  });
  return 0;
}
