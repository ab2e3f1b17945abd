import type { PasskeyEnrolmentAdmin } from '../adapters/cli/passkeys-command';
import { IssuePasskeyEnrolmentLinkUseCase } from '../application/use-cases/issue-passkey-enrolment-link';
import { loadConfig } from './config';
import { buildContainer } from './container';
import { TOKENS } from './tokens';

const READY_TIMEOUT_MS = 5000;

/**
 * Opens the store the gateway configured by `env` uses, for `portcullis passkeys enrol` (issue 16).
 * The link's code is printed once and stored only as a keyed hash (SECRET must be the gateway's).
 */
export async function openPasskeyEnrolment(env: NodeJS.ProcessEnv, dataDir: string | null): Promise<PasskeyEnrolmentAdmin> {
  const loaded = loadConfig({ env: { ...env, ...(dataDir === null ? {} : { DATA_DIR: dataDir }), LOG_LEVEL: 'silent' } });
  if (!loaded.ok) throw new Error(`the configuration is not valid: ${loaded.problems.join('; ')}`);
  const config = loaded.config;
  if (!config.passkeys) throw new Error('PASSKEYS is off: turn passkeys on first');
  if (config.redis === null && config.database === null && config.dataDir === null) {
    throw new Error('no durable store is configured (DATA_DIR, DATABASE_URL or REDIS_URL): a link made here would never reach the gateway');
  }
  const c = buildContainer(config);
  const { database } = c.get(TOKENS.Database);
  const { postgres } = c.get(TOKENS.Postgres);
  const { connection: redis } = c.get(TOKENS.Redis);
  const close = async (): Promise<void> => {
    await redis?.close();
    await postgres?.close();
    database?.close();
  };
  try {
    database?.start();
    await postgres?.start();
    if (redis !== null) {
      redis.start();
      await redis.ready(READY_TIMEOUT_MS);
    }
  } catch (e) {
    await close();
    throw e;
  }
  const issue = new IssuePasskeyEnrolmentLinkUseCase(
    c.get(TOKENS.UserStore),
    c.get(TOKENS.PasskeyEnrolmentLinks),
    c.get(TOKENS.IdGenerator),
    c.get(TOKENS.Clock),
    config.passkeyEnrolLinkLifetimeMs,
    c.get(TOKENS.AuditLog),
  );
  return {
    async enrol(login) {
      const result = await issue.execute({ login });
      if (!result.ok) {
        switch (result.error.code) {
          case 'unknown_account':
            throw new Error(`no account ${login} in the user store (or it is disabled)`);
          case 'not_passkey_only':
            throw new Error(`${login} has a password: it adds passkeys on its account page after logging in`);
          case 'store_unavailable':
            throw new Error('the store is unavailable; no link was made');
        }
      }
      const { username, code, expiresAt } = result.value;
      return { username, url: `${config.appUrl}/enrol#${code}`, expiresAt };
    },
    close,
  };
}
