import type { Result } from '../../domain/result';

/**
 * One change to a local account (issue 36). Only the fields given change; the rest of the entry,
 * and the rest of the users file, stay as they were written.
 */
export type AccountChange =
  /** No password: the account is written passkey-only until an invitation sets one. */
  | { kind: 'create'; username: string; name?: string; email?: string; groups?: readonly string[] }
  | { kind: 'update'; username: string; name?: string; email?: string; groups?: readonly string[] }
  | { kind: 'disable' | 'enable' | 'delete'; username: string }
  /** Writes the hash and drops `passkey_only`. */
  | { kind: 'set_password'; username: string; passwordHash: string };

export type AccountEditError =
  /** The file changed on disk since the version the caller read (or during the write): nothing was written. */
  | { code: 'users_file_changed' }
  | { code: 'user_exists' }
  | { code: 'user_not_found' }
  /** The file's form cannot hold `field` (the line form has no name, e-mail, groups or disabled mark). */
  | { code: 'unsupported_format'; field: string }
  /** The file could not be read or written, or the edit would leave a file that does not load. */
  | { code: 'users_file_unwritable'; reason: string };

/** Writes changes to the accounts of the users file, keeping everything else as it was written. */
export interface AccountEditor {
  /** A digest of the users file as on disk now (what the console read). */
  version(): Promise<string>;
  /** Applies one change; with expectedVersion, refuses users_file_changed when the file changed since. */
  edit(change: AccountChange, expectedVersion?: string): Promise<Result<{ readonly version: string }, AccountEditError>>;
}
