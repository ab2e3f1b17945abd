/** Thrown by {@link ConcurrencyLimiter.run} when the waiting line is full. */
export class QueueFullError extends Error {
  constructor() {
    super('too many tasks waiting');
    this.name = 'QueueFullError';
  }
}

/** How a limiter paces itself: a rest after each task while others wait, and the clock it measures with. */
export interface Pacing {
  /**
   * While tasks are waiting, a freed slot stays closed for this fraction of the time the finished
   * task took (0.5: the work gets at most two thirds of a core per slot under sustained load).
   */
  readonly restRatio: number;
  readonly now: () => number;
  readonly later: (fn: () => void, ms: number) => void;
}

const NO_PACING: Pacing = { restRatio: 0, now: () => 0, later: (fn) => fn() };

/**
 * Runs at most `limit` tasks at once; the rest wait in arrival order, at most `maxQueued` of them
 * (a further task is refused at once rather than left waiting for longer than a client would).
 * Used to keep CPU-heavy work (bcrypt on libuv's thread pool) from taking every core away from the
 * event loop; with pacing, a sustained flood of such work also leaves part of its own core free.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly maxQueued = Number.POSITIVE_INFINITY,
    private readonly pacing: Pacing = NO_PACING,
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
    const started = this.pacing.now();
    try {
      return await task();
    } finally {
      const rest = this.waiting.length > 0 ? (this.pacing.now() - started) * this.pacing.restRatio : 0;
      // The caller has its result at once; only the next waiter may be held back for the rest.
      if (rest > 0) this.pacing.later(() => this.release(), rest);
      else this.release();
    }
  }

  /** Passes the slot straight to the next waiter, so `running` never dips below the queue's need. */
  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.running -= 1;
  }
}
