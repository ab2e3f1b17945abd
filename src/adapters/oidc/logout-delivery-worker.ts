import type { DeliverLogoutsUseCase } from '../../application/oidc/deliver-logouts';
import type { Logger } from '../system/logger';

/** How many runs may be under way at once: a slow app holds up its own run, not the deliveries queued after it. */
const MAX_RUNS = 4;

/**
 * Runs the back-channel logout queue: every `intervalMs` (whatever another replica or an earlier
 * process queued), and at once when this process queued something ({@link poke}). Runs claim
 * their deliveries with a lease, so several may be under way (up to {@link MAX_RUNS}); a full
 * batch is followed by another run straight away. A run that fails (the store down) is logged
 * and tried again at the next tick.
 */
export class LogoutDeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private readonly running = new Set<Promise<void>>();
  private again = false;

  constructor(
    private readonly deliver: DeliverLogoutsUseCase,
    private readonly batch: number,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.poke(), this.intervalMs);
    // The queue must never keep a process alive that has nothing else to do.
    this.timer.unref();
    this.poke();
  }

  /** Runs the queue now (or right after a run in progress); nothing before {@link start} (a CLI command leaves the queue to the gateways). */
  poke(): void {
    if (this.timer === null) return;
    if (this.running.size >= MAX_RUNS) {
      this.again = true;
      return;
    }
    const run: Promise<void> = this.drain().finally(() => {
      this.running.delete(run);
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
    this.running.add(run);
  }

  private async drain(): Promise<void> {
    try {
      let claimed = this.batch;
      while (claimed >= this.batch && this.timer !== null) claimed = await this.deliver.execute();
    } catch (e) {
      this.logger.warn('back-channel logouts could not be sent now', { error: e instanceof Error ? e.name : 'unknown' });
    }
  }

  /** Stops polling; runs in progress finish (a delivery they do not finish stays leased, then is handed out again). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.running]);
  }
}
