/**
 * Things the gateway holds open (file watchers, directory connections): started together by
 * `gateway.start()` (factories only construct), closed together at shutdown.
 */
export class Resources {
  private readonly closers: Array<() => unknown> = [];
  private readonly starters: Array<() => void> = [];

  /** Registers what `gateway.start()` starts (a watch), in the order registered. */
  onStart(start: () => void): void {
    this.starters.push(start);
  }

  /** Runs what {@link onStart} registered, once. */
  startAll(): void {
    for (const start of this.starters.splice(0)) start();
  }

  add(close: () => unknown): void {
    this.closers.push(close);
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
