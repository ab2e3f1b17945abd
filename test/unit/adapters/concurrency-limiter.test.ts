import { ConcurrencyLimiter, QueueFullError } from '../../../src/adapters/crypto/concurrency-limiter';
import { defaultBcryptConcurrency } from '../../../src/adapters/crypto/bcrypt-password-hasher';

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('ConcurrencyLimiter', () => {
  it('never runs more tasks at once than its limit', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const gates = [deferred<number>(), deferred<number>(), deferred<number>(), deferred<number>()];
    let started = 0;
    const runs = gates.map((g) => limiter.run(() => ((started += 1), g.promise)));
    await settle();
    expect(started).toBe(2);
    expect(limiter.queued).toBe(2);
    gates[0].resolve(0);
    await settle();
    expect(started).toBe(3);
    gates[1].resolve(1);
    gates[2].resolve(2);
    gates[3].resolve(3);
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2, 3]);
    expect(limiter.active).toBe(0);
  });

  it('starts waiting tasks in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const first = deferred<void>();
    const order: string[] = [];
    const runs = [
      limiter.run(async () => (order.push('a'), first.promise)),
      limiter.run(async () => void order.push('b')),
      limiter.run(async () => void order.push('c')),
    ];
    await settle();
    expect(order).toEqual(['a']);
    first.resolve();
    await Promise.all(runs);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('frees the slot of a task that fails and passes the failure on', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
    expect(limiter.active).toBe(0);
  });

  it('refuses a task at once when the waiting line is full, and takes tasks again once it drains', async () => {
    const limiter = new ConcurrencyLimiter(1, 1);
    let release!: () => void;
    const running = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const waiting = limiter.run(async () => 'waited');
    await expect(limiter.run(async () => 'refused')).rejects.toBeInstanceOf(QueueFullError);
    release();
    await running;
    await expect(waiting).resolves.toBe('waited');
    await expect(limiter.run(async () => 'later')).resolves.toBe('later');
  });

  it('with pacing, holds a freed slot back for its share of the finished task time while others wait, and answers the finished caller at once', async () => {
    let clock = 0;
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const limiter = new ConcurrencyLimiter(1, Number.POSITIVE_INFINITY, { restRatio: 0.5, now: () => clock, later: (fn, ms) => void timers.push({ fn, ms }) });
    const first = deferred<string>();
    const order: string[] = [];
    const a = limiter.run(async () => {
      const v = await first.promise;
      clock += 40;
      return v;
    });
    const b = limiter.run(async () => void order.push('b'));
    first.resolve('a');
    await expect(a).resolves.toBe('a');
    await settle();
    expect(order).toEqual([]);
    expect(timers.map((t) => t.ms)).toEqual([20]);
    timers[0].fn();
    await b;
    expect(order).toEqual(['b']);
    expect(timers).toHaveLength(1);
    expect(limiter.active).toBe(0);
  });

  it('rests longer after a task that kept several cores busy, so its share of the machine stays the same', async () => {
    let clock = 0;
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const limiter = new ConcurrencyLimiter(1, Number.POSITIVE_INFINITY, { restRatio: 1, now: () => clock, later: (fn, ms) => void timers.push({ fn, ms }) });
    const gate = deferred<void>();
    const a = limiter.run(
      async () => {
        await gate.promise;
        clock += 40;
      },
      'a',
      2,
    );
    const b = limiter.run(async () => undefined, 'b');
    gate.resolve();
    await a;
    await settle();
    // Two cores for 40 ms are 80 ms of work: with a 120 ms rest they take half a core over the 160 ms, as one core with a 40 ms rest does.
    expect(timers.map((t) => t.ms)).toEqual([120]);
    timers[0].fn();
    await b;
    expect(limiter.active).toBe(0);
  });

  it('lets one key fill an idle waiting line, then makes its newest waiter give way to another key', async () => {
    const limiter = new ConcurrencyLimiter(1, 3);
    const gate = deferred<void>();
    const order: string[] = [];
    const running = limiter.run(() => gate.promise, 'flood');
    const flood = ['f1', 'f2', 'f3'].map((name) => limiter.run(async () => void order.push(name), 'flood'));
    expect(limiter.queued).toBe(3);
    await expect(limiter.run(async () => 'f4', 'flood')).rejects.toBeInstanceOf(QueueFullError);
    const other = limiter.run(async () => void order.push('other'), 'other');
    await expect(flood[2]).rejects.toBeInstanceOf(QueueFullError);
    expect(limiter.queued).toBe(3);
    gate.resolve();
    await Promise.all([running, flood[0], flood[1], other]);
    // Turns alternate between keys: the newcomer does not wait behind the whole flood.
    expect(order).toEqual(['f1', 'other', 'f2']);
  });

  it('refuses a key that already holds its share of a full line', async () => {
    const limiter = new ConcurrencyLimiter(1, 4);
    const gate = deferred<void>();
    const running = limiter.run(() => gate.promise, 'a');
    const waiting = [
      limiter.run(async () => 'a', 'a'),
      limiter.run(async () => 'a', 'a'),
      limiter.run(async () => 'b', 'b'),
      limiter.run(async () => 'b', 'b'),
    ];
    await expect(limiter.run(async () => 'b', 'b')).rejects.toBeInstanceOf(QueueFullError);
    await expect(limiter.run(async () => 'a', 'a')).rejects.toBeInstanceOf(QueueFullError);
    const c = limiter.run(async () => 'c', 'c');
    gate.resolve();
    const settled = await Promise.allSettled([...waiting, c]);
    expect(settled.filter((r) => r.status === 'rejected')).toHaveLength(1);
    await expect(c).resolves.toBe('c');
    await running;
  });

  it('refuses a limit below one', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
  });
});

describe('defaultBcryptConcurrency', () => {
  it('leaves one core to the event loop, runs at least one and at most the thread pool size', () => {
    expect(defaultBcryptConcurrency(1)).toBe(1);
    expect(defaultBcryptConcurrency(2)).toBe(1);
    expect(defaultBcryptConcurrency(4)).toBe(3);
    expect(defaultBcryptConcurrency(16)).toBe(4);
  });
});
