import type { SessionMethod } from '../../domain/login-methods';
import { err, ok, type Result } from '../../domain/result';
import type { CredentialCheck } from '../password/credential-check';
import type { Owner, PasskeyOwners } from '../passkeys/passkey-owner';
import type { Reauthentication, ReauthenticationProof } from '../passkeys/reauthentication';
import type { Clock } from '../ports/clock';
import type { IssuedSession, IssueRequest, SessionIssuer } from '../sessions/session-issuer';
import type { StoreUnavailable } from '../store-unavailable';
import type { StepUpReferenceError, StepUpSessions } from './step-up-sessions';

/** One proof offered for a step-up, unchecked. */
export type StepUpProof =
  | { readonly method: 'password'; readonly password: string }
  | { readonly method: 'totp'; readonly code: string }
  | { readonly method: 'passkey'; readonly passkey: NonNullable<ReauthenticationProof['passkey']> };

export interface CompleteStepUpInput extends IssueRequest {
  readonly sessionToken?: string;
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput.fromThisSite). */
  readonly fromThisSite: boolean;
  readonly reference: string;
  readonly proof: StepUpProof;
}

export interface CompleteStepUpOutput extends IssuedSession {
  /** Where to go back to (checked when the reference was made); null: the account page. */
  readonly returnTo: string | null;
}

/**
 * `step_up_method`: the proof is of a method the step-up does not count, or one the account does
 * not hold. The others are the login's own refusals, counted toward the lock alike.
 */
export type CompleteStepUpError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'not_logged_in' }
  | StepUpReferenceError
  | { readonly code: 'step_up_method' }
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'invalid_code' }
  | { readonly code: 'totp_replayed' }
  | { readonly code: 'passkey_invalid' }
  | { readonly code: 'challenge_invalid' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | StoreUnavailable;

/**
 * Proves again what a per-path requirement asks (issue 33) and hands back the same session with
 * the proof's time: a password through the one CredentialCheck, a TOTP code through it too (the
 * step claimed, so a code opens one step-up), a passkey through the one passkey check of a
 * re-authentication. Each is counted like a login (a wrong one toward the lock). The method is
 * the one the proof is of, and only a method the step-up names counts: a fresh TOTP code never
 * meets a requirement for a passkey.
 */
export class CompleteStepUpUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly stepUps: StepUpSessions,
    private readonly credentials: CredentialCheck,
    private readonly sessions: SessionIssuer,
    private readonly clock: Clock,
    /** Checks a passkey's answer; null with PASSKEYS off. */
    private readonly reauthentication: Reauthentication | null,
  ) {}

  execute(input: CompleteStepUpInput): Promise<Result<CompleteStepUpOutput, CompleteStepUpError>> {
    return this.owners.forOwnerFromThisSite(input, async (owner) => {
      const opened = this.stepUps.open(input.reference, owner.session);
      if (!opened.ok) return err(opened.error);
      const method = input.proof.method;
      if (!(await this.stepUps.available(opened.value, owner.account)).includes(method)) return err({ code: 'step_up_method' });
      const proven = await this.prove(owner, input.proof, input);
      if (!proven.ok) return proven;
      const issued = this.sessions.stepUp(owner.session, owner.account, [method], input);
      return ok({ ...issued, returnTo: opened.value.returnTo });
    });
  }

  private async prove(owner: Owner, proof: StepUpProof, input: CompleteStepUpInput): Promise<Result<SessionMethod, CompleteStepUpError>> {
    const request = { ip: input.ip, requestId: input.requestId };
    const { account, session } = owner;
    switch (proof.method) {
      case 'password': {
        const checked = await this.credentials.password({ login: account.username, password: proof.password, ...request });
        if (!checked.ok) return checked;
        // The account's own name was typed for it, and its credential is the session's (else the session had ended).
        return checked.value.account.username === account.username && checked.value.credential === session.credential
          ? ok('password')
          : err({ code: 'invalid_credentials' });
      }
      case 'totp': {
        const checked = await this.credentials.totpCode({
          username: account.username,
          credential: session.credential,
          code: proof.code,
          at: this.clock.now(),
          ...request,
        });
        if (checked.ok) return ok('totp');
        // The secret or the password changed since the session began: nothing to check the code against.
        const error = checked.error;
        return error.code === 'not_pending' ? err({ code: 'step_up_method' }) : err(error);
      }
      case 'passkey': {
        if (this.reauthentication === null) return err({ code: 'step_up_method' });
        const checked = await this.reauthentication.passkey(owner, proof.passkey, request);
        return checked.ok ? ok('passkey') : checked;
      }
    }
  }
}
