import { StateStoreUnavailableError } from '../ports/state-store-unavailable';
import { UserStoreUnavailableError } from '../ports/user-store';

/** True for the thrown errors that mean "a backing store is down" (answered as unavailable, never as a wrong password). */
export function isStoreUnavailable(e: unknown): boolean {
  return e instanceof UserStoreUnavailableError || e instanceof StateStoreUnavailableError;
}
