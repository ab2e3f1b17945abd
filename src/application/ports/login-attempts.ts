/** Counts failed logins per key (an account, a client address) and holds locks. Bounded in size. */
export interface LoginAttempts {
  /** Resolves the time (ms) until which `key` is locked, or 0 when it is not locked at `nowMs`. */
  lockedUntil(key: string, nowMs: number): Promise<number>;
  /**
   * Records a failure for `key`. When this failure reaches `maxFailures`, the key is locked for `lockMs`.
   * A key's failures are forgotten once `lockMs` passes without a new failure for it (reaching the
   * limit starts a fresh count). Resolves the lock end (ms), or 0 when not locked.
   */
  recordFailure(key: string, nowMs: number, maxFailures: number, lockMs: number): Promise<number>;
  /** Forgets the failures of `key` (after a successful login). */
  reset(key: string): Promise<void>;
}
