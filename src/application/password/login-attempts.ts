/** A key failures are counted under (an account, a client address block) and how many it may have. */
export interface AttemptLimit {
  readonly key: string;
  /** Failures (reserved attempts included) before the key is locked; a limit below 1 never locks. */
  readonly maxFailures: number;
}

/**
 * The answer to a reservation. When granted, `locksUntil[i]` is the lock end (ms) the attempt has
 * set on `limits[i]` by reaching its limit (0 when it did not): if the guess then fails, that lock
 * stands; if it succeeds, a refund lifts it.
 */
export type AttemptReservation = { readonly granted: true; readonly locksUntil: readonly number[] } | { readonly granted: false; readonly lockedUntil: number };

/**
 * Counts failed logins per key and holds locks. Bounded in size.
 *
 * An attempt is counted as a failure *before* the guess is checked (a reservation), atomically with
 * the lock check, and given back when the guess turns out right or could not be checked. So however
 * many guesses arrive at once, at most `maxFailures` of them are ever checked per window.
 */
export interface LoginAttempts {
  /** Resolves the time (ms) until which `key` is locked, or 0 when it is not locked at `nowMs`. */
  lockedUntil(key: string, nowMs: number): Promise<number>;
  /**
   * In one atomic step: when any of `limits` is locked at `nowMs`, refuses with the latest lock
   * end and counts nothing; otherwise counts one failure against every key. The failure that
   * reaches a key's limit locks it for `lockMs` from `nowMs`. A key's failures are forgotten once
   * `lockMs` passes without a new one (and when its lock ends).
   */
  reserve(limits: readonly AttemptLimit[], nowMs: number, lockMs: number): Promise<AttemptReservation>;
  /**
   * Gives back one failure reserved on each key at `nowMs` (the guess was right, or was never
   * checked), lifting a lock when that brings the key back under its limit. A key whose window
   * has ended meanwhile is left alone.
   */
  refund(limits: readonly AttemptLimit[], nowMs: number): Promise<void>;
  /** Forgets the failures of `key` (after a successful login). */
  reset(key: string): Promise<void>;
  /**
   * Optional, for stores that know every lock without asking anyone (one process's memory): a
   * time (ms) no lock of this store outlasts, so a caller that only reads locks may skip
   * {@link lockedUntil} at or after it. A store shared between processes leaves it out: another
   * replica may set a lock at any moment.
   */
  readonly noLockAfter?: () => number;
}
