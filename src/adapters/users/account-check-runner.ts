import type { CheckDirectoryAccountsUseCase } from '../../application/sessions/check-directory-accounts';
import type { Logger } from '../system/logger';

/** What a check came to, for the metrics: `ok` (whatever it found) or `failed` (nothing ended). */
export type AccountCheckOutcome = 'ok' | 'failed';

/**
 * Runs the directory account check every `intervalMs` (LDAP_ACCOUNT_CHECK_INTERVAL): one check at
 * a time (a tick that finds the last one still running is skipped, so a slow directory is never
 * asked twice at once). A check that fails (the directory or a store down) ends nothing: the first
 * of a run of failures is logged, and so is the recovery; each is counted.
 */
export class AccountCheckRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private failing = false;

  constructor(
    private readonly check: CheckDirectoryAccountsUseCase,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly counted: (outcome: AccountCheckOutcome) => void = () => undefined,
  ) {}

  start(): void {
    if (this.timer !== null || this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    // The check must never keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  /** One check now, unless one is under way (then that one's end); never rejects. */
  runOnce(): Promise<void> {
    this.running ??= this.attempt().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async attempt(): Promise<void> {
    try {
      const found = await this.check.execute();
      this.counted('ok');
      if (this.failing) this.logger.info('ldap account check working again');
      this.failing = false;
      if (found.absent > 0) this.logger.info('ldap accounts gone from the directory signed out everywhere', { accounts: found.absent, sessions: found.ended });
    } catch (e) {
      this.counted('failed');
      if (!this.failing)
        this.logger.warn('ldap account check failed; nobody is signed out until it works again', { error: e instanceof Error ? e.name : 'unknown' });
      this.failing = true;
    }
  }

  /** Stops checking; a check under way finishes. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
