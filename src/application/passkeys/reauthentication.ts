import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { CredentialCheck } from '../password/credential-check';
import type { PasskeyAssertionCheck } from './passkey-assertion-check';
import type { Owner } from './passkey-owner';

/** What a request offers to prove, again, that the person behind the session is there: all unchecked. */
export interface ReauthenticationProof {
  /** The account's password (accounts with one). */
  readonly password?: unknown;
  /** A passkey-only account's answer to a `reauthenticate` ceremony, with the ceremony's sealed cookie. */
  readonly passkey?: { readonly response: unknown; readonly challengeToken?: string };
}

/**
 * `reauthentication_required`: no proof of the kind the account has (`method` says which to ask
 * for). `invalid_credentials`: a wrong password. `passkey_invalid`, `challenge_invalid`: the
 * passkey's answer was refused, or its ceremony expired, was used, or belongs to another session.
 */
export type ReauthenticationError =
  | { readonly code: 'reauthentication_required'; readonly method: 'password' | 'passkey' }
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'passkey_invalid' }
  | { readonly code: 'challenge_invalid' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

/**
 * Proof, beyond the session cookie, that the account's owner is at the keyboard: asked before a
 * change that would outlive the session (a new passkey is a permanent two-factor login; removing
 * one or turning the passkey second step off weakens the account). A copied cookie must not be
 * enough for that (issue 29, items 2 and 10). The proof is what the account logs in with: its
 * password, checked by the one {@link CredentialCheck}, or for a passkey-only account one of its
 * own passkeys, checked by the one {@link PasskeyAssertionCheck}; either way counted like a login
 * (a wrong one counts toward the account's lock, and a locked account cannot prove anything).
 */
export class Reauthentication {
  constructor(
    private readonly credentials: CredentialCheck,
    private readonly assertions: PasskeyAssertionCheck,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  /** Checks `proof` for `owner`'s account; throws what a store throws (StateStoreUnavailableError). */
  async prove(
    owner: Owner,
    proof: ReauthenticationProof,
    request: { readonly ip: string; readonly requestId?: string },
  ): Promise<Result<void, ReauthenticationError>> {
    const { account } = owner;
    const method = account.passkeyOnly === true ? 'passkey' : 'password';
    const proven = method === 'passkey' ? await this.byPasskey(owner, proof, request) : await this.byPassword(owner, proof, request);
    if (!proven.ok) return proven;
    this.audit.record({ event: 'reauthenticated', username: account.username, method, ip: request.ip, requestId: request.requestId });
    return ok(undefined);
  }

  private async byPassword(
    owner: Owner,
    proof: ReauthenticationProof,
    request: { readonly ip: string; readonly requestId?: string },
  ): Promise<Result<void, ReauthenticationError>> {
    if (typeof proof.password !== 'string' || proof.password === '') return err({ code: 'reauthentication_required', method: 'password' });
    const username = owner.account.username;
    const checked = await this.credentials.password({ login: username, password: proof.password, ip: request.ip, requestId: request.requestId });
    if (!checked.ok) return checked;
    // The account's own name was typed for it, so this holds; kept as the rule it is.
    return checked.value.account.username === username ? ok(undefined) : err({ code: 'invalid_credentials' });
  }

  private async byPasskey(
    owner: Owner,
    proof: ReauthenticationProof,
    request: { readonly ip: string; readonly requestId?: string },
  ): Promise<Result<void, ReauthenticationError>> {
    if (proof.passkey === undefined) return err({ code: 'reauthentication_required', method: 'passkey' });
    return this.passkey(owner, proof.passkey, request);
  }

  /**
   * Checks the answer to a `reauthenticate` ceremony made in `owner`'s session with one of the
   * account's own passkeys, the person verified; counted like a login. Also what a step-up to a
   * passkey proves (issue 33). Throws what a store throws.
   */
  async passkey(
    owner: Owner,
    passkey: NonNullable<ReauthenticationProof['passkey']>,
    request: { readonly ip: string; readonly requestId?: string },
  ): Promise<Result<void, Extract<ReauthenticationError, { code: 'passkey_invalid' | 'challenge_invalid' | 'account_locked' }>>> {
    const token = passkey.challengeToken;
    const challenge = token === undefined ? null : this.sealer.unseal(token);
    // Bound to this session and account: a ceremony started elsewhere proves nothing here.
    if (
      challenge === null ||
      challenge.purpose !== 'reauthenticate' ||
      challenge.expiresAt <= this.clock.now() ||
      challenge.sessionId !== owner.session.id ||
      challenge.username !== owner.account.username
    )
      return err({ code: 'challenge_invalid' });
    const checked = await this.assertions.check(
      { response: passkey.response, challenge, owner: owner.account.username, userVerification: true, ip: request.ip, requestId: request.requestId },
      () => Promise.resolve(true),
    );
    return checked.ok ? ok(undefined) : checked;
  }
}
