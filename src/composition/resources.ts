import type { ReadinessCheck } from '../application/readiness/readiness-check';
import type { StoreRegistry } from '../adapters/state/state-stores';

/**
 * What the gateway holds open, starts and probes, registered by each part when it is built
 * (factories only construct). `gateway.start()` runs what registered, `/api/ready` probes what
 * registered, shutdown closes what registered: none of them asks which class a part is.
 */
export class Resources implements StoreRegistry {
  private readonly closers: Array<() => unknown> = [];
  private readonly starters: Array<() => void | Promise<void>> = [];
  private readonly afterStarters: Array<() => Promise<void>> = [];
  private readonly checks: ReadinessCheck[] = [];

  /** Registers what `gateway.start()` starts (a connection, a feed, a watch), in the order registered. */
  onStart(start: () => void | Promise<void>): void {
    this.starters.push(start);
  }

  /** Registers what starts once everything of {@link onStart} has started (reads from a database just opened). */
  afterStart(start: () => Promise<void>): void {
    this.afterStarters.push(start);
  }

  /** Registers a dependency `/api/ready` probes. */
  ready(check: ReadinessCheck): void {
    this.checks.push(check);
  }

  /** Everything registered with {@link ready}, live: a part built later is probed too. */
  get readiness(): readonly ReadinessCheck[] {
    return this.checks;
  }

  /** Registers what shutdown closes. */
  add(close: () => unknown): void {
    this.closers.push(close);
  }

  /**
   * Runs what {@link onStart} registered, once, each in turn (one that throws does not keep the
   * others from starting), then what {@link afterStart} registered. Rejects with the first failure.
   */
  startAll(): Promise<void> {
    const started: Array<Promise<void>> = [];
    for (const start of this.starters.splice(0)) {
      try {
        const pending = start();
        if (pending !== undefined) started.push(pending);
      } catch (e) {
        started.push(Promise.reject(e instanceof Error ? e : new Error(String(e))));
      }
    }
    const after = this.afterStarters.splice(0);
    return Promise.all(started).then(async () => {
      for (const start of after) await start();
    });
  }

  /** Closes everything, newest first; one failing closer does not keep the others open. */
  async closeAll(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch {
        // Shutting down anyway.
      }
    }
  }
}
