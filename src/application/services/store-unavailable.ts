import { StateStoreUnavailableError } from '../ports/state-store-unavailable';
import { UserStoreUnavailableError } from '../ports/user-store';
import { PasswordHasherBusyError } from '../ports/password-hasher';

/**
 * True for the thrown errors that mean "cannot decide now": a backing store is down or password
 * checks are overloaded (answered as unavailable, never as a wrong password).
 */
export function isStoreUnavailable(e: unknown): boolean {
  return e instanceof UserStoreUnavailableError || e instanceof StateStoreUnavailableError || e instanceof PasswordHasherBusyError;
}
