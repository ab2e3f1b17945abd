import { err, ok, type Result } from '../domain/result';
import { StateStoreUnavailableError } from './ports/state-store-unavailable';
import { UserStoreUnavailableError } from './ports/user-store';
import { PasswordHasherBusyError } from './ports/password-hasher';

/**
 * True for the thrown errors that mean "cannot decide now": a backing store is down or password
 * checks are overloaded (answered as unavailable, never as a wrong password).
 */
export function isStoreUnavailable(e: unknown): boolean {
  return e instanceof UserStoreUnavailableError || e instanceof StateStoreUnavailableError || e instanceof PasswordHasherBusyError;
}

/** The outcome every use case gives when a store it needs cannot answer now. */
export type StoreUnavailable = { readonly code: 'store_unavailable' };

/**
 * Runs `work` and turns an outage it throws into the `store_unavailable` outcome: a use case fails
 * closed (a lock, a replay check or a revocation that cannot be read is never skipped) with an
 * answer the client may retry. Anything else thrown is a bug or worse, and is thrown on unchanged.
 * Generic in the whole result (not its value and error apart) so that an inline `work` keeps the
 * union of everything it returns, each code as its literal.
 */
export async function unavailableAsError<R extends Result<unknown, unknown>>(work: () => Promise<R>): Promise<R | Result<never, StoreUnavailable>> {
  try {
    return await work();
  } catch (e) {
    if (isStoreUnavailable(e)) return err({ code: 'store_unavailable' });
    throw e;
  }
}

/** {@link unavailableAsError} for one store call that answers a plain value (or nothing). */
export function valueOrUnavailable<T>(work: () => Promise<T>): Promise<Result<T, StoreUnavailable>> {
  return unavailableAsError(async () => ok(await work()));
}
