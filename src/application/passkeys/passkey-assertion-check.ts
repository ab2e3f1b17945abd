import { counterMayFollow, type Passkey } from '../../domain/passkey';
import type { PasskeyChallenge } from '../../domain/passkey-challenge';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { PasskeyCredentials } from './passkey-credentials';
import type { UsedOAuthFlows } from '../ports/used-oauth-flows';
import type { GuessTicket, LoginGuard } from '../password/login-guard';

/** One answer to a passkey ceremony, to be checked. */
export interface PasskeyAssertion {
  /** The browser's `AuthenticationResponseJSON`, unchecked. */
  readonly response: unknown;
  /** The ceremony it answers, unsealed from its cookie (purpose, binding and expiry checked by the caller). */
  readonly challenge: Pick<PasskeyChallenge, 'id' | 'challenge' | 'expiresAt'>;
  /**
   * The account the passkey must belong to (a second factor, a re-authentication), which is also
   * the lock it counts under; null for a passkey login, where the passkey names its account.
   */
  readonly owner: string | null;
  /** Whether the authenticator must have verified the person (a passkey login or a re-authentication: the passkey is all the proof). */
  readonly userVerification: boolean;
  readonly ip: string;
  readonly requestId?: string;
}

/** `challenge_invalid`: the ceremony was used already. `passkey_invalid`: any other refusal, alike. */
export type PasskeyAssertionError =
  { readonly code: 'challenge_invalid' } | { readonly code: 'passkey_invalid' } | { readonly code: 'account_locked'; readonly retryAfter: number };

/**
 * The one place an answer to a passkey ceremony is checked, for a passkey login, a passkey
 * second factor and a re-authentication alike (the passkey counterpart of CredentialCheck).
 *
 * Like a password, an assertion is a guess under the {@link LoginGuard}: counted before it is
 * checked, per account (the owner asked for, else the passkey's; an unknown passkey under its id)
 * and per address; a failure is audited (`method: passkey`) and may lock. The ceremony is claimed
 * in the durable store before the signature is checked, so an answer is used once on any replica.
 * A counter that does not grow is a cloned authenticator: refused and audited.
 */
export class PasskeyAssertionCheck {
  constructor(
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly used: UsedOAuthFlows,
    private readonly guard: LoginGuard,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Checks `assertion`; once it holds, `accept` decides on the passkey (the account still there,
   * its credential unchanged...): a value settles the guess as a success, null as neither success
   * nor failure (answered `passkey_invalid`). Throws what a store throws (the guess refunded).
   */
  async check<T>(assertion: PasskeyAssertion, accept: (passkey: Passkey) => Promise<T | null>): Promise<Result<T, PasskeyAssertionError>> {
    const credentialId = this.ceremonies.credentialIdOf(assertion.response);
    if (credentialId === null) return err({ code: 'passkey_invalid' });
    const passkey = await this.passkeys.find(credentialId);
    const lockName = assertion.owner ?? passkey?.username ?? `passkey:${credentialId.slice(0, 64)}`;
    const reservation = await this.guard.reserve(lockName, assertion.ip);
    if (reservation.kind === 'locked') return err({ code: 'account_locked', retryAfter: reservation.retryAfter });
    const { ticket } = reservation;
    try {
      const verified = await this.verify(assertion, ticket, lockName, passkey);
      if (!verified.ok) return verified;
      const accepted = await accept(verified.value);
      if (accepted === null) {
        await this.guard.refund(ticket);
        return err({ code: 'passkey_invalid' });
      }
      await this.guard.succeed(ticket);
      return ok(accepted);
    } catch (e) {
      await this.guard.refund(ticket);
      throw e;
    }
  }

  private async verify(
    assertion: PasskeyAssertion,
    ticket: GuessTicket,
    lockName: string,
    passkey: Passkey | null,
  ): Promise<Result<Passkey, PasskeyAssertionError>> {
    const { challenge } = assertion;
    // Single use on every replica, claimed before the signature is checked.
    if (!(await this.used.use(`passkey:${challenge.id}`, challenge.expiresAt)))
      return this.failed(ticket, lockName, 'challenge_replayed', assertion, 'challenge_invalid');
    if (passkey === null) return this.failed(ticket, lockName, 'unknown_passkey', assertion);
    // A second factor or a re-authentication must be one of the named account's own passkeys.
    if (assertion.owner !== null && passkey.username !== assertion.owner) return this.failed(ticket, lockName, 'foreign_passkey', assertion);
    const asserted = await this.ceremonies.verifyAuthentication(assertion.response, challenge.challenge, passkey, assertion.userVerification);
    if (asserted === null) return this.failed(ticket, lockName, 'invalid_assertion', assertion);
    if (!counterMayFollow(passkey.counter, asserted.counter)) {
      this.audit.record({
        event: 'passkey_counter_regressed',
        username: passkey.username,
        credential: passkey.id.slice(0, 12),
        stored: passkey.counter,
        presented: asserted.counter,
        ip: assertion.ip,
        requestId: assertion.requestId,
      });
      return this.failed(ticket, lockName, 'counter_regressed', assertion);
    }
    if (!(await this.passkeys.recordUse(passkey.id, passkey.counter, asserted.counter, this.clock.now())))
      return this.failed(ticket, lockName, 'counter_regressed', assertion);
    return ok(passkey);
  }

  private failed(
    ticket: GuessTicket,
    login: string,
    reason: string,
    assertion: PasskeyAssertion,
    code: 'challenge_invalid' | 'passkey_invalid' = 'passkey_invalid',
  ): Result<never, PasskeyAssertionError> {
    this.audit.record({ event: 'login_failed', login, method: 'passkey', ip: assertion.ip, reason, requestId: assertion.requestId });
    this.guard.fail(ticket, assertion.requestId);
    return err({ code });
  }
}
