import { addressBlock } from './ip-address';

/** How many failures lock what, and for how long. Pure policy, fed by configuration. */
export interface LockPolicy {
  /** Failures of one account before it is locked; 0 disables locking. */
  readonly maxAccountFailures: number;
  /** Failures from one client address before it is locked; 0 disables. */
  readonly maxAddressFailures: number;
  /** Lock length in milliseconds. */
  readonly lockMs: number;
}

export function lockPolicy(maxRetries: number, timeoutSeconds: number): LockPolicy {
  const enabled = maxRetries > 0 && timeoutSeconds > 0;
  return {
    maxAccountFailures: enabled ? maxRetries : 0,
    maxAddressFailures: enabled ? maxRetries * 10 : 0,
    lockMs: enabled ? timeoutSeconds * 1000 : 0,
  };
}

/**
 * Keys under which failures are counted. Account names are case-folded so `Alice` and `alice`
 * share a lock; addresses count per block (an IPv6 /64), or one client would count afresh from
 * each of its countless addresses.
 */
export const accountKey = (login: string): string => `account:${login.trim().toLowerCase()}`;
export const addressKey = (ip: string): string => `address:${addressBlock(ip)}`;

/** Whole seconds left on a lock, rounded up so a client never retries a moment too early. */
export const secondsLeft = (lockedUntil: number, now: number): number => Math.max(1, Math.ceil((lockedUntil - now) / 1000));
