import { MAX_PASSKEYS_PER_ACCOUNT, parsePasskeyName, type Passkey } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import { identityOf, type Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { PasskeyCredentials } from './passkey-credentials';
import type { UsedOAuthFlows } from '../ports/used-oauth-flows';
import type { UserStore } from '../ports/user-store';
import type { SessionIssuer } from '../sessions/session-issuer';
import { unavailableAsError } from '../store-unavailable';

export interface FinishPasskeyEnrolmentInput {
  /** The sealed ceremony from the start (the cookie), if any. */
  readonly challengeToken?: string;
  /** The browser's `RegistrationResponseJSON`, unchecked. */
  readonly response: unknown;
  /** The name the person gave the passkey, unchecked. */
  readonly name: unknown;
  readonly fromThisSite: boolean;
  readonly ip: string;
  readonly requestId?: string;
  /** The User-Agent header, for the account page's session list. */
  readonly userAgent?: string;
}

export interface FinishPasskeyEnrolmentOutput {
  readonly passkey: Passkey;
  /** The person is logged in: a full session, as after a passkey login. */
  readonly session: Session;
  readonly token: string;
}

export type FinishPasskeyEnrolmentError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'invalid_name' }
  /** No ceremony, an expired or used one, or one of another purpose. */
  | { readonly code: 'challenge_invalid' }
  | { readonly code: 'passkey_invalid' }
  /** Registered already, the account holds the most it may, or it is no longer passkey-only. */
  | { readonly code: 'passkey_not_added' }
  | { readonly code: 'store_unavailable' };

/** The enrolment ceremony's parts: the registration check, the sealed challenge, and its single use. */
export interface PasskeyEnrolmentCeremony {
  readonly ceremonies: PasskeyCeremonies;
  readonly sealer: PasskeyChallengeSealer;
  /** Where a ceremony is claimed, on every replica, before its answer is checked. */
  readonly used: UsedOAuthFlows;
}

/**
 * Stores the passkey an enrolment ceremony's registration response proves and logs the person in
 * (issue 16). The ceremony is claimed before the response is checked, so an answer works once.
 * The session counts as two factors, like a passkey login's: the passkey was just made by the
 * person holding the link, and is what they will sign in with.
 */
export class FinishPasskeyEnrolmentUseCase {
  constructor(
    private readonly users: UserStore,
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremony: PasskeyEnrolmentCeremony,
    private readonly fingerprints: CredentialFingerprints,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly sessions: SessionIssuer,
  ) {}

  async execute(input: FinishPasskeyEnrolmentInput): Promise<Result<FinishPasskeyEnrolmentOutput, FinishPasskeyEnrolmentError>> {
    if (!input.fromThisSite) return err({ code: 'cross_site_request' });
    return unavailableAsError(() => this.attempt(input));
  }

  private async attempt(input: FinishPasskeyEnrolmentInput): Promise<Result<FinishPasskeyEnrolmentOutput, FinishPasskeyEnrolmentError>> {
    const name = parsePasskeyName(input.name);
    if (!name.ok) return err(name.error);
    const now = this.clock.now();
    const challenge = input.challengeToken === undefined ? null : this.ceremony.sealer.unseal(input.challengeToken);
    if (challenge === null || challenge.purpose !== 'enrol' || challenge.expiresAt <= now || challenge.username === null)
      return err({ code: 'challenge_invalid' });
    // Single use, on every replica: claimed before it is checked, so a replayed answer finds it used.
    if (!(await this.ceremony.used.use(`passkey:${challenge.id}`, challenge.expiresAt))) return err({ code: 'challenge_invalid' });
    const credential = await this.ceremony.ceremonies.verifyRegistration(input.response, challenge.challenge);
    if (credential === null) return err({ code: 'passkey_invalid' });
    const account = await this.users.currentAccount(challenge.username);
    if (account === null || account.passkeyOnly !== true) return err({ code: 'passkey_not_added' });
    const passkey: Passkey = {
      id: credential.id,
      username: account.username,
      name: name.value,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports,
      createdAt: now,
      lastUsedAt: null,
    };
    if (!(await this.passkeys.add(passkey, MAX_PASSKEYS_PER_ACCOUNT))) return err({ code: 'passkey_not_added' });
    this.audit.record({ event: 'passkey_registered', username: passkey.username, credential: passkey.id.slice(0, 12), requestId: input.requestId });
    const issued = await this.sessions.full(
      { ...identityOf(account, 'username', true), credential: this.fingerprints.of(account) },
      { method: 'passkey', audited: 'passkey_enrolment', proves: ['passkey'] },
      input,
    );
    return ok({ passkey, ...issued });
  }
}
