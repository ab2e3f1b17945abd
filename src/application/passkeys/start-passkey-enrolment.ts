import { MAX_PASSKEYS_PER_ACCOUNT, PASSKEY_CHALLENGE_LIFETIME_MS } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { PasskeyCredentials } from './passkey-credentials';
import type { PasskeyEnrolmentLinks } from './passkey-enrolment-links';
import type { UserStore } from '../ports/user-store';
import { unavailableAsError } from '../store-unavailable';

export interface StartPasskeyEnrolmentInput {
  /** The link's code, as the enrolment page POSTed it (it read it from the URL fragment). */
  readonly code: unknown;
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput.fromThisSite). */
  readonly fromThisSite: boolean;
  readonly ip: string;
  readonly requestId?: string;
}

export interface StartPasskeyEnrolmentOutput {
  /** `PublicKeyCredentialCreationOptionsJSON` for the browser. */
  readonly options: Record<string, unknown>;
  /** The sealed ceremony (a cookie value) and when it ends. */
  readonly challengeToken: string;
  readonly expiresAt: number;
  /** Whom the page greets. */
  readonly username: string;
}

/**
 * `invalid_link`: unknown, used, expired, or its account is gone, disabled or no longer
 * passkey-only. One code for all of them: the browser learns nothing about which, the audit line does.
 */
export type StartPasskeyEnrolmentError =
  { readonly code: 'cross_site_request' } | { readonly code: 'invalid_link' } | { readonly code: 'too_many_passkeys' } | { readonly code: 'store_unavailable' };

const CODE = /^[A-Za-z0-9_-]{32,128}$/;

/**
 * Redeems an enrolment link (issue 16): the link is taken from the store first, so it is spent
 * whatever follows (a replay finds nothing, on any replica), and a passkey registration for its
 * account begins. The ceremony (sealed, in a cookie, 5 minutes) stands in for the link from here:
 * the page may retry the browser's prompt with the same options, but the link itself is gone.
 */
export class StartPasskeyEnrolmentUseCase {
  constructor(
    private readonly users: UserStore,
    private readonly links: PasskeyEnrolmentLinks,
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: StartPasskeyEnrolmentInput): Promise<Result<StartPasskeyEnrolmentOutput, StartPasskeyEnrolmentError>> {
    if (!input.fromThisSite) return err({ code: 'cross_site_request' });
    return unavailableAsError(() => this.attempt(input));
  }

  private async attempt(input: StartPasskeyEnrolmentInput): Promise<Result<StartPasskeyEnrolmentOutput, StartPasskeyEnrolmentError>> {
    const refuse = (reason: string): Result<never, StartPasskeyEnrolmentError> => {
      this.audit.record({ event: 'passkey_enrolment_refused', reason, ip: input.ip, requestId: input.requestId });
      return err({ code: 'invalid_link' });
    };
    if (typeof input.code !== 'string' || !CODE.test(input.code)) return refuse('malformed');
    const username = await this.links.take(input.code);
    if (username === null) return refuse('unknown_used_or_expired');
    const account = await this.users.currentAccount(username);
    // An account given a password since the link was made logs in with it and adds passkeys from its account page.
    if (account === null || account.passkeyOnly !== true) return refuse('account_changed');
    const existing = await this.passkeys.list(account.username);
    if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) return err({ code: 'too_many_passkeys' });
    const challenge = this.ids.next() + this.ids.next();
    const expiresAt = this.clock.now() + PASSKEY_CHALLENGE_LIFETIME_MS;
    const options = await this.ceremonies.registrationOptions({
      username: account.username,
      displayName: account.name !== '' ? account.name : account.username,
      challenge,
      exclude: existing.map((p) => ({ id: p.id, transports: p.transports })),
    });
    const challengeToken = this.sealer.seal({ id: this.ids.next(), purpose: 'enrol', challenge, username: account.username, sessionId: null, expiresAt });
    this.audit.record({ event: 'passkey_enrolment_started', username: account.username, ip: input.ip, requestId: input.requestId });
    return ok({ options, challengeToken, expiresAt, username: account.username });
  }
}
