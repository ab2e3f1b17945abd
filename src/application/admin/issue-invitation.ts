import { err, ok, type Result } from '../../domain/result';
import type { PasskeyEnrolmentLinks } from '../passkeys/passkey-enrolment-links';
import type { PasswordLinks } from '../invitations/password-links';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import { unavailableAsError } from '../store-unavailable';
import type { AccountDirectory } from './account-directory';
import { type AdminGate, type AdminRefusal, type AdminRequest, admitChange } from './admin-gate';

/** `password`: choose a password (a new person, or a reset); `passkey`: register a passkey (a passkey-only person). */
export type InvitationKind = 'password' | 'passkey';

/** How long an invitation lives unless the administrator says: three days. */
export const DEFAULT_INVITATION_HOURS = 72;
/** The longest an invitation may live: a week. A link is a credential until it is used. */
export const MAX_INVITATION_HOURS = 168;

export interface IssueInvitationInput extends AdminRequest {
  /** Whether the request provably comes from the gateway's own pages: refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  /** The body's fields, unchecked: read only once the caller is known to be an administrator. */
  readonly username: unknown;
  /** `password` or `passkey`. */
  readonly kind: unknown;
  /** Whole hours, 1 to {@link MAX_INVITATION_HOURS}; absent: {@link DEFAULT_INVITATION_HOURS}. */
  readonly hours: unknown;
}

interface InvitationRequest {
  readonly username: string;
  readonly kind: InvitationKind;
  readonly hours: number;
}

/** The request's fields, or the names of those that are wrong. */
export function readInvitationRequest(input: Pick<IssueInvitationInput, 'username' | 'kind' | 'hours'>): InvitationRequest | readonly string[] {
  const { username, kind, hours } = input;
  const bad: string[] = [];
  if (typeof username !== 'string' || username.trim() === '' || username.length > 256) bad.push('username');
  if (kind !== 'password' && kind !== 'passkey') bad.push('kind');
  if (hours !== undefined && !(typeof hours === 'number' && Number.isInteger(hours) && hours >= 1 && hours <= MAX_INVITATION_HOURS)) bad.push('hours');
  if (bad.length > 0) return bad;
  return { username: (username as string).trim(), kind: kind as InvitationKind, hours: (hours as number | undefined) ?? DEFAULT_INVITATION_HOURS };
}

export interface IssueInvitationOutput {
  /** The account's username as the store spells it. */
  readonly username: string;
  readonly kind: InvitationKind;
  /** The link's code: it goes into the URL fragment and nowhere else (never logged, never stored as is). */
  readonly code: string;
  readonly expiresAt: number;
}

/**
 * `user_not_found`: no such person (or disabled). `read_only_source`: a password cannot be written
 * where the person is kept (the USERS variable, LDAP). `not_passkey_only`: a passkey link is for a
 * person without a password (one with a password adds passkeys after logging in). `passkeys_off`.
 */
export type IssueInvitationError =
  | AdminRefusal
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'invalid_fields'; readonly fields: readonly string[] }
  | { readonly code: 'user_not_found' }
  | { readonly code: 'read_only_source' }
  | { readonly code: 'not_passkey_only' }
  | { readonly code: 'passkeys_off' };

/**
 * `POST /api/admin/invitations` (issue 36): a single-use link, bound to one username, that lets its
 * holder choose that account's password or register its passkey; for an existing person it is a
 * password reset. The groups are the account's own (set when the person was created): the link
 * carries none. Made like the first-passkey link (`portcullis passkeys enrol`): 288 random bits,
 * stored only as a keyed hash, spent atomically when redeemed.
 */
export class IssueInvitationUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly directory: AccountDirectory,
    private readonly passwordLinks: PasswordLinks,
    /** Null with PASSKEYS off. */
    private readonly passkeyLinks: PasskeyEnrolmentLinks | null,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: IssueInvitationInput): Promise<Result<IssueInvitationOutput, IssueInvitationError>> {
    const admitted = await admitChange(this.gate, this.audit, input);
    if (!admitted.ok) return admitted;
    const admin = admitted.value.identity.username;
    const request = readInvitationRequest(input);
    if (Array.isArray(request)) return err({ code: 'invalid_fields', fields: request });
    const { kind, hours } = request as InvitationRequest;
    return unavailableAsError(async () => {
      const wanted = (request as InvitationRequest).username.toLowerCase();
      const listed = (await this.directory.list()).find((l) => l.account.username.toLowerCase() === wanted);
      if (listed === undefined) return err({ code: 'user_not_found' as const });
      const { account, source } = listed;
      const links = kind === 'password' ? this.passwordLinks : this.passkeyLinks;
      if (links === null) return err({ code: 'passkeys_off' as const });
      if (kind === 'password' && source !== 'file') return err({ code: 'read_only_source' as const });
      if (kind === 'passkey' && account.passkeyOnly !== true) return err({ code: 'not_passkey_only' as const });
      const code = this.ids.next() + this.ids.next();
      const expiresAt = this.clock.now() + hours * 3_600_000;
      await links.put(code, account.username, expiresAt);
      this.audit.record({
        event: 'invitation_issued',
        username: account.username,
        kind: kind,
        admin,
        expiresAt: new Date(expiresAt).toISOString(),
        requestId: input.requestId,
      });
      return ok({ username: account.username, kind: kind, code, expiresAt });
    });
  }
}
