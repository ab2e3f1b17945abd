import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { PasskeyEnrolmentLinks } from './passkey-enrolment-links';
import type { UserStore } from '../ports/user-store';
import { unavailableAsError } from '../store-unavailable';

export interface IssuePasskeyEnrolmentLinkInput {
  /** The account, by username or e-mail as the administrator typed it. */
  readonly login: string;
}

export interface IssuePasskeyEnrolmentLinkOutput {
  /** The account's username (what the link was made for). */
  readonly username: string;
  /** The link's code: it goes into the URL fragment (`/enrol#<code>`) and nowhere else. */
  readonly code: string;
  readonly expiresAt: number;
}

/**
 * `unknown_account`: no such account in the user store (or it is disabled).
 * `not_passkey_only`: the account has a password: it adds passkeys from its account page, after
 * logging in (a link would let its holder skip the password and any second factor).
 */
export type IssuePasskeyEnrolmentLinkError =
  { readonly code: 'unknown_account' } | { readonly code: 'not_passkey_only' } | { readonly code: 'store_unavailable' };

/**
 * Makes a single-use link for the first (or a replacement) passkey of a passkey-only account
 * (issue 16; `portcullis passkeys enrol <user>`). The link is the credential until it is used: a
 * long random code (288 bits), short-lived, kept only as a keyed hash.
 */
export class IssuePasskeyEnrolmentLinkUseCase {
  constructor(
    private readonly users: UserStore,
    private readonly links: PasskeyEnrolmentLinks,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    /** PASSKEY_ENROL_LINK_LIFETIME. */
    private readonly lifetimeMs: number,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: IssuePasskeyEnrolmentLinkInput): Promise<Result<IssuePasskeyEnrolmentLinkOutput, IssuePasskeyEnrolmentLinkError>> {
    return unavailableAsError(async () => {
      const account = await this.users.findAccount(input.login);
      if (account === null) return err({ code: 'unknown_account' });
      if (account.passkeyOnly !== true) return err({ code: 'not_passkey_only' });
      const code = this.ids.next() + this.ids.next();
      const expiresAt = this.clock.now() + this.lifetimeMs;
      await this.links.put(code, account.username, expiresAt);
      this.audit.record({ event: 'passkey_enrolment_link_issued', username: account.username, expiresAt: new Date(expiresAt).toISOString() });
      return ok({ username: account.username, code, expiresAt });
    });
  }
}
