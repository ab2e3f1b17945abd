import { weakPasswordReason, type WeakPasswordReason } from '../../domain/password-strength';
import { err, ok, type Result } from '../../domain/result';
import type { AccountEditor } from '../ports/account-editor';
import type { AuditLog } from '../ports/audit-log';
import type { PasswordHasher } from '../ports/password-hasher';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';
import type { UserStore } from '../ports/user-store';
import { liveSessionsOf } from '../account/list-account-sessions';
import { unavailableAsError } from '../store-unavailable';
import type { PasswordLinks } from './password-links';

export interface SetPasswordWithLinkInput {
  /** The link's code, as the page POSTed it (it read it from the URL fragment), unchecked. */
  readonly code: unknown;
  /** The new password, unchecked. */
  readonly password: unknown;
  /** Whether the request provably comes from the gateway's own pages. */
  readonly fromThisSite: boolean;
  readonly ip: string;
  readonly requestId?: string;
}

export interface SetPasswordWithLinkOutput {
  /** Whose password it now is: the person logs in with this name. */
  readonly username: string;
  /** How many sessions of the account ended. */
  readonly ended: number;
}

/**
 * `weak_password`: checked before the link is spent (the person may try another). `invalid_link`:
 * unknown, used, expired, or its account is gone: one code for all, the audit line says which.
 */
export type SetPasswordWithLinkError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'weak_password'; readonly reason: WeakPasswordReason }
  | { readonly code: 'invalid_link' }
  | { readonly code: 'store_unavailable' };

const CODE = /^[A-Za-z0-9_-]{32,128}$/;

/** Where the new password goes and what it ends: the writer, the hasher, and the person's sessions. */
export interface PasswordWrite {
  readonly hasher: PasswordHasher;
  /** The users file's writer; null without USERS_FILE (no password link is made then). */
  readonly editor: AccountEditor | null;
  readonly index: SessionIndex;
  readonly revoked: RevokedSessions;
}

/**
 * Redeems a set-password link (issue 36): an invitation or a password reset. The password's
 * strength is checked first; then the link is taken from the store (spent, whatever follows: of
 * two concurrent tries one gets it), the password hashed (as `portcullis user add` would) and
 * written to the users file, and every session of the account ended, as after a TOTP change.
 */
export class SetPasswordWithLinkUseCase {
  constructor(
    /** The configured stores as they are: is the account still there? */
    private readonly users: UserStore,
    private readonly links: PasswordLinks,
    private readonly write: PasswordWrite,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: SetPasswordWithLinkInput): Promise<Result<SetPasswordWithLinkOutput, SetPasswordWithLinkError>> {
    if (!input.fromThisSite) return err({ code: 'cross_site_request' });
    return unavailableAsError(() => this.attempt(input));
  }

  private async attempt(input: SetPasswordWithLinkInput): Promise<Result<SetPasswordWithLinkOutput, SetPasswordWithLinkError>> {
    const refuse = (reason: string): Result<never, SetPasswordWithLinkError> => {
      this.audit.record({ event: 'invitation_refused', kind: 'password', reason, ip: input.ip, requestId: input.requestId });
      return err({ code: 'invalid_link' });
    };
    if (typeof input.code !== 'string' || !CODE.test(input.code)) return refuse('malformed');
    // The one rule of domain/password-strength; before the link is spent, so it knows no username.
    const weak = typeof input.password === 'string' ? weakPasswordReason(input.password) : 'too_short';
    if (weak !== null) return err({ code: 'weak_password', reason: weak });
    const username = await this.links.take(input.code);
    if (username === null) return refuse('unknown_used_or_expired');
    const account = await this.users.currentAccount(username);
    if (account === null) return refuse('account_gone');
    if (this.write.editor === null) return refuse('no_users_file');
    const hash = await this.write.hasher.hash(input.password as string);
    const written = await this.write.editor.edit({ kind: 'set_password', username: account.username, passwordHash: hash });
    if (!written.ok) return refuse(written.error.code);
    const live = await liveSessionsOf(account.username, this.write.index, this.write.revoked);
    for (const s of live) await this.write.revoked.revoke(s.id, s.expiresAt);
    this.audit.record({
      event: 'invitation_redeemed',
      kind: 'password',
      username: account.username,
      ended: live.length,
      ip: input.ip,
      requestId: input.requestId,
    });
    return ok({ username: account.username, ended: live.length });
  }
}
