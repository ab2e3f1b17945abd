import type { Account } from '../../domain/account';
import { weakPasswordReason, type WeakPasswordReason } from '../../domain/password-strength';
import { err, ok, type Result } from '../../domain/result';
import type { AccountSource } from '../admin/account-directory';
import type { AccountEditor } from '../ports/account-editor';
import type { AuditLog } from '../ports/audit-log';
import type { PasswordHasher } from '../ports/password-hasher';
import type { UserStore } from '../ports/user-store';
import { PasskeyOwners, type Owner } from '../passkeys/passkey-owner';
import type { CredentialCheck } from '../password/credential-check';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import type { ReissuedSession, SecondFactorSessions } from '../totp/second-factor-sessions';
import type { DirectoryPasswords } from './directory-passwords';
import type { PasswordSources } from './password-sources';

export interface ChangePasswordInput {
  readonly sessionToken?: string;
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput): refused otherwise. */
  readonly fromThisSite: boolean;
  /** The password the account has now, typed again. */
  readonly current: string;
  /** The password it should have. */
  readonly password: string;
  readonly ip: string;
  readonly requestId?: string;
  readonly userAgent?: string;
}

/** Why the directory or the rule refused the new password: the rule's reason, or the directory's policy. */
export type WeakPasswordCause = WeakPasswordReason | 'directory_policy';

/**
 * `read_only_source`: the account's password cannot be changed here (USERS, LDAP without
 * LDAP_PASSWORD_CHANGE, or an account with no password). `users_file_changed`: the users file
 * changed on disk between reading and writing; nothing was written, try again.
 */
export type ChangePasswordError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'read_only_source' }
  | { readonly code: 'weak_password'; readonly reason: WeakPasswordCause }
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'users_file_changed' }
  | { readonly code: 'store_unavailable' };

/** Where a new password is written: the users file (hashed here) or the directory. */
export interface PasswordWriters {
  readonly sources: PasswordSources;
  readonly hasher: PasswordHasher;
  /** The users-file writer; null without a users file. */
  readonly editor: AccountEditor | null;
  /** Null unless LDAP_PASSWORD_CHANGE is on. */
  readonly directory: DirectoryPasswords | null;
}

/** Where `account`'s password can be changed, or null when it cannot be changed here. */
function writableSource(account: Account, source: AccountSource | null, writers: PasswordWriters): 'file' | 'ldap' | null {
  // No password to prove and replace: passkey-only and service accounts.
  if (account.passkeyOnly === true || account.service === true) return null;
  if (source === 'file' && writers.editor !== null) return 'file';
  if (source === 'ldap' && writers.directory !== null) return 'ldap';
  return null;
}

/**
 * Whether the logged-in person may change their password on the account page (the page hides the
 * form otherwise). Shares the rules of {@link ChangePasswordUseCase}.
 */
export class GetPasswordChangeUseCase {
  private readonly owners: PasskeyOwners;

  constructor(
    authenticator: RequestAuthenticator,
    users: UserStore,
    private readonly writers: PasswordWriters,
  ) {
    this.owners = new PasskeyOwners(authenticator, users);
  }

  async execute(input: {
    readonly sessionToken?: string;
    readonly ip: string;
    readonly requestId?: string;
  }): Promise<Result<{ readonly changeable: boolean }, { readonly code: 'not_logged_in' } | { readonly code: 'store_unavailable' }>> {
    return this.owners.forOwner(input, async ({ account }) =>
      ok({ changeable: writableSource(account, await this.writers.sources.sourceOf(account.username), this.writers) !== null }),
    );
  }
}

/**
 * Self-service password change (issue 36): the logged-in person types their current password and
 * a new one. Only a full cookie session of a local or directory account (not Basic, not a token,
 * not a pending session), only from the gateway's own pages. The new password must pass the
 * documented rule (domain/password-strength) before anything is checked, so a weak choice costs no
 * guess. The current password goes through the one {@link CredentialCheck}: counted under the
 * account's lock before it is verified, exactly like a login (a stolen cookie cannot be used to
 * guess it faster, and a locked account changes nothing). The new password is then written where
 * the account lives: hashed here into the users file, or through the directory's own password
 * modify operation. Every session of the account ends (the credential changed); the caller's is
 * re-issued for the new credential, like a TOTP change does (ADR 0031).
 */
export class ChangePasswordUseCase {
  private readonly owners: PasskeyOwners;

  constructor(
    authenticator: RequestAuthenticator,
    /** The user stores with self-enrolled TOTP secrets laid over them: what sessions are checked against. */
    private readonly users: UserStore,
    private readonly credentials: CredentialCheck,
    private readonly writers: PasswordWriters,
    private readonly sessions: SecondFactorSessions,
    private readonly audit: AuditLog,
  ) {
    this.owners = new PasskeyOwners(authenticator, users);
  }

  async execute(input: ChangePasswordInput): Promise<Result<ReissuedSession, ChangePasswordError>> {
    return this.owners.forOwnerFromThisSite(input, (owner) => this.change(owner, input));
  }

  private async change(owner: Owner, input: ChangePasswordInput): Promise<Result<ReissuedSession, ChangePasswordError>> {
    const { account, session } = owner;
    const source = writableSource(account, await this.writers.sources.sourceOf(account.username), this.writers);
    if (source === null) return err({ code: 'read_only_source' });
    const weak = weakPasswordReason(input.password, { username: account.username, current: input.current });
    if (weak !== null) return err({ code: 'weak_password', reason: weak });
    // The file as it is before the check: a hand edit made meanwhile is not overwritten.
    const basedOn = source === 'file' ? await (this.writers.editor as AccountEditor).version() : '';
    const proven = await this.credentials.password({ login: account.username, password: input.current, ip: input.ip, requestId: input.requestId });
    if (!proven.ok) return err(proven.error);
    if (proven.value.account.username !== account.username) return err({ code: 'invalid_credentials' });

    const written = source === 'file' ? await this.writeFile(account, input.password, basedOn) : await this.writeDirectory(account, input);
    if (!written.ok) return written;
    // The account as sessions will now be checked against: the new credential's fingerprint.
    const now = (await this.users.currentAccount(account.username)) ?? { ...account, credentialVersion: written.value };
    const reissued = await this.sessions.reissue(session, now, session.totp, 'password', input, ['password']);
    this.audit.record({ event: 'password_changed', username: account.username, source, ip: input.ip, requestId: input.requestId });
    return ok(reissued);
  }

  /** Hashes and writes the new password into the users file, then has the file read again; the new hash. */
  private async writeFile(account: Account, password: string, basedOn: string): Promise<Result<string, ChangePasswordError>> {
    const passwordHash = await this.writers.hasher.hash(password);
    const edited = await (this.writers.editor as AccountEditor).edit({ kind: 'set_password', username: account.username, passwordHash }, basedOn);
    if (!edited.ok) {
      switch (edited.error.code) {
        case 'users_file_changed':
          return err({ code: 'users_file_changed' });
        // Gone from the file since the session was checked, or a form that cannot hold it: nothing to change here.
        case 'user_not_found':
        case 'user_exists':
        case 'unsupported_format':
          return err({ code: 'read_only_source' });
        // Cannot be written now (permissions, a full disk): unavailable, the old password stands.
        case 'users_file_unwritable':
          return err({ code: 'store_unavailable' });
      }
    }
    await this.writers.sources.reloadFile();
    return ok(passwordHash);
  }

  private async writeDirectory(account: Account, input: ChangePasswordInput): Promise<Result<string, ChangePasswordError>> {
    const changed = await (this.writers.directory as DirectoryPasswords).change(account, input.current, input.password);
    switch (changed) {
      case 'changed':
        return ok('');
      case 'invalid_credentials':
        return err({ code: 'invalid_credentials' });
      case 'refused':
        return err({ code: 'weak_password', reason: 'directory_policy' });
    }
  }
}
