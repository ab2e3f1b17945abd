import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BcryptPasswordHasher } from '../adapters/crypto/bcrypt-password-hasher';
import { InvalidAccessRulesError } from '../adapters/rules/yaml-file-access-rules-source';
import { DatabaseStartError } from '../adapters/state/sqlite/sqlite-database';
import { configWarnings, loadConfig } from '../composition/config';
import type { Config } from '../config/load';
import { secretFlagWarnings } from '../config/flags';
import { DEFAULT_DATA_DIR } from '../config/state';
import { demoBanner, withDemoAccount } from './demo-banner';
import { createGateway } from '../composition/gateway';
import { describeCookieDomain, protectedDomainOfAppUrl } from '../composition/cookie-domain';
import { unknownOptionWarnings } from '../config/option-docs';

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

type Gateway = ReturnType<typeof createGateway>;

/** What the gateway listens on once started: its port, and the forward-auth and metrics listeners when configured. */
interface Listening {
  readonly port: number;
  readonly forwardAuth: Awaited<ReturnType<Gateway['listenForwardAuth']>>;
  readonly metrics: Awaited<ReturnType<Gateway['listenMetrics']>>;
}

/** Exit code 2 with the problems of `what`, one a line: a configuration problem, not a stack trace. */
function cannotStart(what: string, problems: readonly string[]): number {
  process.stderr.write(`Portcullis cannot start; fix the ${what}:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  return 2;
}

/** The gateway built from `config`, or the exit code of a start-up problem that was reported. */
function buildGateway(config: Config, removeThrowaway: () => void): Gateway | number {
  try {
    return createGateway(config);
  } catch (e) {
    removeThrowaway();
    // The rules file changed between validation and loading: still a list of problems, not a stack trace.
    if (e instanceof InvalidAccessRulesError) return cannotStart('access rules', e.problems);
    // A locked, corrupt, newer or unwritable database: one line that says what to do, exit code 2 like any configuration problem.
    const cause = e instanceof DatabaseStartError ? e : (e as { cause?: unknown })?.cause;
    if (cause instanceof DatabaseStartError) return cannotStart('database', [cause.message]);
    throw e;
  }
}

/** Starts the gateway (PostgreSQL's schema is checked, and a newer one refused, before the first request); null when started, else the exit code. */
async function startGateway(gateway: Gateway, removeThrowaway: () => void): Promise<number | null> {
  try {
    await gateway.start();
    return null;
  } catch (e) {
    await gateway.close();
    removeThrowaway();
    if (e instanceof DatabaseStartError) return cannotStart('database', [e.message]);
    throw e;
  }
}

/** Valid but risky: said once, loudly, where operators look (the log), before the first request. */
function warnAtStart(gateway: Gateway, loaded: Config, config: Config, env: NodeJS.ProcessEnv): void {
  for (const warning of [...unknownOptionWarnings(env), ...configWarnings(config)]) gateway.logger.warn(warning);
  if ((loaded.redis !== null || loaded.database !== null) && loaded.dataDir !== null) {
    gateway.logger.warn('DATA_DIR is not used: with REDIS_URL or DATABASE_URL the state is shared by the replicas there', { dataDir: loaded.dataDir });
  }
  const replicaHint = replicaHintOf(config, env);
  if (replicaHint !== null) gateway.logger.warn(replicaHint);
}

/** Binds the public, forward-auth and metrics listeners; what listens, or the exit code of an address that cannot be bound. */
async function listen(gateway: Gateway, config: Config, removeThrowaway: () => void): Promise<Listening | number> {
  // Which option chose the address being bound, for a message that says what to change.
  let binding = `PORT ${config.port} (on ADDRESS ${config.address})`;
  try {
    const { port } = await gateway.listen();
    binding = `FORWARD_AUTH_PORT ${String(config.forwardAuthPort)} (on FORWARD_AUTH_ADDRESS ${config.forwardAuthAddress})`;
    const forwardAuth = await gateway.listenForwardAuth();
    binding = `METRICS_PORT ${String(config.metricsPort)} (on METRICS_ADDRESS ${config.metricsAddress})`;
    const metrics = await gateway.listenMetrics();
    return { port, forwardAuth, metrics };
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
      return cannotStart('configuration', [`${binding}: ${why}`]);
    }
    throw e;
  }
}

/**
 * Shuts the gateway down cleanly on SIGTERM and SIGINT. Listening for signals before saying
 * "listening": a supervisor (or a test) that stops the gateway as soon as it reads that line must
 * not find the default action (immediate death, leaving the demo's throwaway directory behind).
 */
function stopOnSignals(gateway: Gateway, config: Config, removeThrowaway: () => void): void {
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
}

/** The "portcullis listening" line: where the gateway listens, its cookie domains and where its state is. */
function logListening(gateway: Gateway, config: Config, { port, forwardAuth, metrics }: Listening): void {
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
}

/** The `npm start` entry: read config, start, and shut down cleanly on SIGTERM/SIGINT. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  for (const warning of secretFlagWarnings(argv)) process.stderr.write(`portcullis: warning: ${warning}\n`);
  const loaded = loadConfig({ env, argv });
  if (!loaded.ok) return cannotStart('configuration', loaded.problems);
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
  const gateway = buildGateway(config, removeThrowaway);
  if (typeof gateway === 'number') return gateway;
  const notStarted = await startGateway(gateway, removeThrowaway);
  if (notStarted !== null) return notStarted;
  warnAtStart(gateway, loaded.config, config, env);
  const listening = await listen(gateway, config, removeThrowaway);
  if (typeof listening === 'number') return listening;
  stopOnSignals(gateway, config, removeThrowaway);
  if (banner !== null) process.stderr.write(`${banner}\n`);
  logListening(gateway, config, listening);
  return 0;
}
