import { MAX_PASSKEYS_PER_ACCOUNT, parsePasskeyName, type Passkey } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { PasskeyCredentials } from './passkey-credentials';
import type { UsedOAuthFlows } from '../ports/used-oauth-flows';
import type { Owner, PasskeyOwners } from './passkey-owner';

export interface FinishPasskeyRegistrationInput {
  readonly sessionToken?: string;
  /** The sealed ceremony from the start (the cookie), if any. */
  readonly challengeToken?: string;
  /** The browser's `RegistrationResponseJSON`, unchecked. */
  readonly response: unknown;
  /** The name the person gave it, unchecked. */
  readonly name: unknown;
  readonly fromThisSite: boolean;
  readonly ip: string;
  readonly requestId?: string;
}

/** The passkey as the account page lists it. */
export interface FinishPasskeyRegistrationOutput {
  readonly passkey: Passkey;
}

export type FinishPasskeyRegistrationError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'invalid_name' }
  /** No ceremony, an expired or used one, or one started by another session. */
  | { readonly code: 'challenge_invalid' }
  | { readonly code: 'passkey_invalid' }
  /** Registered already (to this or another account), or the account holds the most it may. */
  | { readonly code: 'passkey_not_added' }
  | { readonly code: 'store_unavailable' };

/** Stores the passkey a registration response proves, for the account whose session started the ceremony. */
export class FinishPasskeyRegistrationUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly used: UsedOAuthFlows,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: FinishPasskeyRegistrationInput): Promise<Result<FinishPasskeyRegistrationOutput, FinishPasskeyRegistrationError>> {
    return this.owners.forOwnerFromThisSite(input, (owner) => this.attempt(owner, input));
  }

  private async attempt(owner: Owner, input: FinishPasskeyRegistrationInput): Promise<Result<FinishPasskeyRegistrationOutput, FinishPasskeyRegistrationError>> {
    const name = parsePasskeyName(input.name);
    if (!name.ok) return err(name.error);
    const now = this.clock.now();
    const challenge = input.challengeToken === undefined ? null : this.sealer.unseal(input.challengeToken);
    // Bound to the session that started it: a ceremony from another session (another person's
    // cookie, or before a logout) never adds a passkey to this account.
    if (
      challenge === null ||
      challenge.purpose !== 'register' ||
      challenge.expiresAt <= now ||
      challenge.sessionId !== owner.session.id ||
      challenge.username !== owner.account.username
    )
      return err({ code: 'challenge_invalid' });
    // Single use, on every replica: claimed before it is checked, so a replayed answer finds it used.
    if (!(await this.used.use(`passkey:${challenge.id}`, challenge.expiresAt))) return err({ code: 'challenge_invalid' });
    const credential = await this.ceremonies.verifyRegistration(input.response, challenge.challenge);
    if (credential === null) return err({ code: 'passkey_invalid' });
    const passkey: Passkey = {
      id: credential.id,
      username: owner.account.username,
      name: name.value,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports,
      createdAt: now,
      lastUsedAt: null,
    };
    if (!(await this.passkeys.add(passkey, MAX_PASSKEYS_PER_ACCOUNT))) return err({ code: 'passkey_not_added' });
    this.audit.record({ event: 'passkey_registered', username: passkey.username, credential: passkey.id.slice(0, 12), requestId: input.requestId });
    return ok({ passkey });
  }
}
