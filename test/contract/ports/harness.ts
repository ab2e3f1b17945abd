import { randomBytes } from 'node:crypto';
import { FixedClock } from '../../support/fakes';

/**
 * What a contract suite hands to an adapter factory. Factories may be async (connect to a server,
 * seed a directory) and register their own teardown with `onCleanup`.
 */
export interface ContractEnv {
  /**
   * A clock the suite moves by hand. It starts at the real time (whole seconds), so adapters that
   * lean on a server's own expiry (Redis `PXAT`) see sensible absolute times.
   */
  readonly clock: FixedClock;
  /** Registers teardown (close a connection, remove a temp dir); run after each test, last registered first. */
  onCleanup(fn: () => unknown): void;
}

export type AdapterFactory<T, E extends ContractEnv = ContractEnv> = (env: E) => T | Promise<T>;

/** Options every suite understands. */
export interface ContractOptions {
  /**
   * Whether the adapter reads time from `env.clock` (in-memory adapters do). Adapters whose expiry
   * runs on a server's real clock set this to false: the few tests that move the clock forward are
   * then not registered for them (nothing is skipped; the remaining tests still run).
   */
  readonly followsClock?: boolean;
}

/**
 * A fresh adapter per test. Shared backends (one Redis for the whole run) stay isolated because the
 * suites build every key and username with {@link unique}.
 */
export function useAdapter<T>(makeAdapter: AdapterFactory<T>): { adapter(): T; env(): ContractEnv } {
  let current: T | undefined;
  let env: ContractEnv | undefined;
  let cleanups: Array<() => unknown> = [];
  beforeEach(async () => {
    cleanups = [];
    env = { clock: new FixedClock(Math.floor(Date.now() / 1000) * 1000), onCleanup: (fn) => cleanups.push(fn) };
    current = await makeAdapter(env);
  });
  afterEach(async () => {
    for (const fn of cleanups.reverse()) await fn();
    current = undefined;
  });
  return {
    adapter: () => {
      if (current === undefined) throw new Error('adapter used outside a test');
      return current;
    },
    env: () => {
      if (env === undefined) throw new Error('env used outside a test');
      return env;
    },
  };
}

const RUN = randomBytes(4).toString('hex');
let counter = 0;

/** A name no other test (or earlier run against the same backend) uses: `base-<run>-<n>`. */
export function unique(base: string): string {
  counter += 1;
  return `${base}-${RUN}-${counter}`;
}
