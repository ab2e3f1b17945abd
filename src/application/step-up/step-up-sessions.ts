import { hasTotp, type Account } from '../../domain/account';
import type { SessionMethod } from '../../domain/login-methods';
import { err, ok, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import type { StepUpRequest } from '../../domain/step-up';
import type { Clock } from '../ports/clock';
import type { PasskeyCredentials } from '../passkeys/passkey-credentials';
import type { StepUpReferences } from './step-up-references';

/** `invalid_step_up`: the reference is unreadable, expired, or made for another session or account. */
export type StepUpReferenceError = { readonly code: 'invalid_step_up' };

/**
 * What both step-up use cases share (issue 33): opening the reference against the session that
 * brings it, and which of its methods the account can prove at all.
 */
export class StepUpSessions {
  constructor(
    private readonly references: StepUpReferences,
    private readonly clock: Clock,
    /** The accounts' passkeys; null with PASSKEYS off (then a passkey cannot be asked). */
    private readonly passkeys: PasskeyCredentials | null,
  ) {}

  /** The step-up `reference` names, if it is current and was made for `session`. */
  open(reference: string, session: Session): Result<StepUpRequest, StepUpReferenceError> {
    const request = this.references.unseal(reference);
    // Bound to one session of one account: a link from someone else's step-up proves nothing here.
    if (request === null || request.expiresAt <= this.clock.now() || request.sessionId !== session.id || request.username !== session.username)
      return err({ code: 'invalid_step_up' });
    return ok(request);
  }

  /** The methods of `request` that `account` holds (a password, a TOTP secret, a passkey), in the request's order. Throws what a store throws. */
  async available(request: StepUpRequest, account: Account): Promise<SessionMethod[]> {
    const out: SessionMethod[] = [];
    for (const method of request.methods) {
      if (method === 'password' && account.passkeyOnly !== true) out.push(method);
      else if (method === 'totp' && hasTotp(account)) out.push(method);
      else if (method === 'passkey' && this.passkeys !== null && (await this.passkeys.list(account.username)).length > 0) out.push(method);
    }
    return out;
  }
}
