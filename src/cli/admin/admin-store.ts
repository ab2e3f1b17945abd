import { DatabaseInUseError } from '../../adapters/state/sqlite/sqlite-database';
import type { Config } from '../../config/load';
import { loadConfig } from '../../composition/config';
import { buildContainer } from '../../composition/container';
import { TOKENS } from '../../composition/tokens';

/** How long an admin command waits for Redis to connect. */
export const LOAD_TIMEOUT_MS = 5000;

/** What a command took from the gateway's container, its durable store opened. */
export interface AdminStore<T> {
  readonly config: Config;
  readonly picked: T;
  close(): Promise<void>;
}

/**
 * Opens the store the gateway configured by `env` uses (the embedded file, PostgreSQL or Redis) for
 * an admin command (`portcullis sessions`, `portcullis oidc keys`, `portcullis passkeys enrol`). `what` says, in the refusal
 * without a durable store, what would be lost; `pick` takes what the command needs from the
 * container. The embedded file is locked by a running gateway: opening it then fails with the
 * database's own message and `whileRunning`, what to do instead (issue 30).
 */
export async function openAdminStore<T>(
  env: NodeJS.ProcessEnv,
  dataDir: string | null,
  what: string,
  whileRunning: string,
  pick: (c: ReturnType<typeof buildContainer>, config: Config) => T,
): Promise<AdminStore<T>> {
  const loaded = loadConfig({ env: { ...env, ...(dataDir === null ? {} : { DATA_DIR: dataDir }), LOG_LEVEL: 'silent' } });
  if (!loaded.ok) throw new Error(`the configuration is not valid: ${loaded.problems.join('; ')}`);
  const config = loaded.config;
  if (config.redis === null && config.database === null && config.dataDir === null) {
    throw new Error(`no durable store is configured (DATA_DIR, DATABASE_URL or REDIS_URL): ${what}`);
  }
  const c = buildContainer(config);
  // Resolved before the stores open, as in the gateway: some adapters hook into the opening.
  const picked = pick(c, config);
  const { database } = c.get(TOKENS.Database);
  const { postgres } = c.get(TOKENS.Postgres);
  const { connection: redis } = c.get(TOKENS.Redis);
  const close = async (): Promise<void> => {
    // The audit events a command recorded reach the trail before its store closes.
    await c.get(TOKENS.AuditTrailRecorder).recorder?.close();
    await redis?.close();
    await postgres?.close();
    database?.close();
  };
  try {
    database?.start();
    await postgres?.start();
    if (redis !== null) {
      redis.start();
      await redis.ready(LOAD_TIMEOUT_MS);
    }
  } catch (e) {
    await close();
    if (e instanceof DatabaseInUseError) throw new Error(`${e.message}. ${whileRunning}`, { cause: e });
    throw e;
  }
  return { config, picked, close };
}
