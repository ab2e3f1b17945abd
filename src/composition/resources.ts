/** Things the gateway holds open (file watchers, directory connections), closed together at shutdown. */
export class Resources {
  private readonly closers: Array<() => unknown> = [];

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
