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

interface Waiter {
  readonly start: () => void;
  readonly refuse: (e: Error) => void;
}

/**
 * Runs at most `limit` tasks at once; the rest wait, at most `maxQueued` of them (a further task is
 * refused at once rather than left waiting for longer than a client would).
 * Used to keep CPU-heavy work (bcrypt on libuv's thread pool) from taking every core away from the
 * event loop; with pacing, a sustained flood of such work also leaves part of its own core free.
 *
 * The waiting line is shared fairly between keys (who is asking: a client's address block). Waiting
 * tasks start in turns, one per key, in arrival order within a key. A key may fill a line nobody
 * else wants; when the line is full, a task of a key holding fewer places than the largest holder
 * takes the newest place of that holder (which is refused as if the line had been full), so one
 * key can never keep others out: at worst, everyone holds the same share.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private waitingCount = 0;
  // Insertion order is the turn order: a key that just had its turn goes to the back.
  private readonly waiting = new Map<string, Waiter[]>();

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
    return this.waitingCount;
  }

  /**
   * Runs `task` in its turn. `cores` says how many cores the task keeps busy while it runs (an
   * Argon2 check computes its lanes on as many threads): with pacing, its rest grows so that it
   * takes no more of the machine on average than a one-core task does.
   */
  async run<T>(task: () => Promise<T>, key = '', cores = 1): Promise<T> {
    if (this.running >= this.limit) await this.wait(key);
    else this.running += 1;
    const started = this.pacing.now();
    try {
      return await task();
    } finally {
      // A one-core task of time t rests t × r: its share is 1 / (1 + r) of a core. A task on c cores
      // keeps that share with a rest of t × (c × (1 + r) − 1).
      const restRatio = cores <= 1 ? this.pacing.restRatio : cores * (1 + this.pacing.restRatio) - 1;
      const rest = this.waitingCount > 0 && this.pacing.restRatio > 0 ? (this.pacing.now() - started) * restRatio : 0;
      // The caller has its result at once; only the next waiter may be held back for the rest.
      if (rest > 0) this.pacing.later(() => this.release(), rest);
      else this.release();
    }
  }

  /** Takes a place in the line for `key`, or refuses at once (QueueFullError). */
  private wait(key: string): Promise<void> {
    if (this.waitingCount >= this.maxQueued && !this.makeRoomFor(key)) return Promise.reject(new QueueFullError());
    return new Promise<void>((start, refuse) => {
      const line = this.waiting.get(key);
      if (line === undefined) this.waiting.set(key, [{ start, refuse }]);
      else line.push({ start, refuse });
      this.waitingCount += 1;
    });
  }

  /** Refuses the newest waiter of the largest holder when it holds at least two places more than `key`. */
  private makeRoomFor(key: string): boolean {
    const mine = this.waiting.get(key)?.length ?? 0;
    let largest: string | null = null;
    let most = mine + 1;
    for (const [k, line] of this.waiting) {
      if (line.length > most) {
        largest = k;
        most = line.length;
      }
    }
    if (largest === null) return false;
    const line = this.waiting.get(largest) as Waiter[];
    const evicted = line.pop() as Waiter;
    if (line.length === 0) this.waiting.delete(largest);
    this.waitingCount -= 1;
    evicted.refuse(new QueueFullError());
    return true;
  }

  /** Passes the slot straight to the next waiter, so `running` never dips below the queue's need. */
  private release(): void {
    const next = this.nextWaiter();
    if (next !== undefined) next.start();
    else this.running -= 1;
  }

  /** The first waiter of the key whose turn it is; that key then goes to the back of the turn order. */
  private nextWaiter(): Waiter | undefined {
    const first = this.waiting.entries().next();
    if (first.done === true) return undefined;
    const [key, line] = first.value;
    const next = line.shift();
    this.waiting.delete(key);
    if (line.length > 0) this.waiting.set(key, line);
    this.waitingCount -= 1;
    return next;
  }
}
