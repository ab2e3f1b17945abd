/** Thrown by {@link ConcurrencyLimiter.run} when the waiting line is full. */
export class QueueFullError extends Error {
  constructor() {
    super('too many tasks waiting');
    this.name = 'QueueFullError';
  }
}

/**
 * Runs at most `limit` tasks at once; the rest wait in arrival order, at most `maxQueued` of them
 * (a further task is refused at once rather than left waiting for longer than a client would). Used to keep CPU-heavy work
 * (bcrypt on libuv's thread pool) from taking every core away from the event loop.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly maxQueued = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a whole number of at least 1');
  }

  /** Tasks started and not yet settled. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a free slot. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit && this.waiting.length >= this.maxQueued) throw new QueueFullError();
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never dips below the queue's need.
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running -= 1;
    }
  }
}
