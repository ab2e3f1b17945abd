import type { PasskeyEnrolmentAdmin } from '../commands/passkeys-command';
import { IssuePasskeyEnrolmentLinkUseCase } from '../../application/passkeys/issue-passkey-enrolment-link';
import { openAdminStore } from './admin-store';
import { TOKENS } from '../../composition/tokens';

/**
 * Opens the store the gateway configured by `env` uses, for `portcullis passkeys enrol` (issue 16).
 * The link's code is printed once and stored only as a keyed hash (SECRET must be the gateway's).
 */
export async function openPasskeyEnrolment(env: NodeJS.ProcessEnv, dataDir: string | null): Promise<PasskeyEnrolmentAdmin> {
  const {
    config,
    picked: issue,
    close,
  } = await openAdminStore(
    env,
    dataDir,
    'a link made here would never reach the gateway',
    'Stop the gateway, make the link, start it again (or keep the state in PostgreSQL or Redis, where it may run)',
    (c, config) => {
      // Checked before the store opens: nothing to close when passkeys are off.
      if (!config.passkeys) throw new Error('PASSKEYS is off: turn passkeys on first');
      return new IssuePasskeyEnrolmentLinkUseCase(
        // The stores as configured: a passkey-only account has no TOTP of its own to lay over it, and
        // the self-enrolled TOTP view (loaded by a running gateway) is not started in a command.
        c.get(TOKENS.StoreUsers),
        c.get(TOKENS.PasskeyEnrolmentLinks),
        c.get(TOKENS.IdGenerator),
        c.get(TOKENS.Clock),
        config.passkeyEnrolLinkLifetimeMs,
        c.get(TOKENS.AuditLog),
      );
    },
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
