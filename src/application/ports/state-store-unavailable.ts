/**
 * Thrown by a shared-state store (login attempts, revocations, used TOTP steps) whose backing
 * service cannot be reached. Use cases turn it into a `store_unavailable` outcome: logins fail
 * closed instead of skipping a lock or a replay check.
 */
export class StateStoreUnavailableError extends Error {
  constructor(
    readonly store: string,
    options?: { cause?: unknown },
  ) {
    super(`state store ${store} is unavailable`, options);
    this.name = 'StateStoreUnavailableError';
  }
}
