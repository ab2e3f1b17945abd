import { hasTotp, type Account } from '../../domain/account';
import { addressBlock } from '../../domain/ip-address';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { TotpVerifier } from '../ports/totp-verifier';
import type { PasskeySecondFactor } from '../passkeys/passkey-second-factor';
import type { UsedTotpSteps } from '../ports/used-totp-steps';
import type { UserStore } from '../ports/user-store';
import type { GuessTicket, LoginGuard } from './login-guard';
import { unavailableAsError } from '../store-unavailable';

/** A password offered for a name, by a client at `ip`. */
export interface PasswordGuess {
  /** Username or e-mail, as typed (surrounding spaces are ignored). */
  readonly login: string;
  readonly password: string;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

/** A TOTP code offered for the account of a pending session, by a client at `ip`. */
export interface TotpGuess {
  /** The username the pending session was made for. */
  readonly username: string;
  /** The credential fingerprint the pending session carries (see {@link CredentialProof.credential}). */
  readonly credential?: string;
  readonly code: string;
  readonly ip: string;
  /** When the code is checked (epoch ms): the caller's clock reading, so the code and what it opens share one instant. */
  readonly at: number;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

/** A credential proven right: the account, as the store returned it, and its credential fingerprint. */
export interface CredentialProof {
  readonly account: Account;
  /** {@link CredentialFingerprints.of} the account: what a session made from this proof carries. */
  readonly credential: string;
}

export type PasswordCheckError =
  { readonly code: 'invalid_credentials' } | { readonly code: 'account_locked'; readonly retryAfter: number } | { readonly code: 'store_unavailable' };

export type BasicPasswordError =
  | {
      readonly code: 'invalid_credentials';
      /** The lock name this failure locked (the account's username, or the name typed), else null. */
      readonly locked: string | null;
    }
  /** The password was right, but the account has a second factor that HTTP Basic cannot carry. */
  | { readonly code: 'second_factor_required' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

export type TotpCheckError =
  /** No account behind the pending session any more, or its password or second factor changed since. */
  | { readonly code: 'not_pending' }
  | { readonly code: 'invalid_code' }
  | { readonly code: 'totp_replayed' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

/** How one way of offering a password differs from the others; everything else is shared. */
interface PasswordChannel {
  /** The `method` of its audit events. */
  readonly method: 'password' | 'basic';
  /**
   * The password must be the whole proof (HTTP Basic): an account with a second factor is refused
   * even for its right password. The login form instead leads such an account to its TOTP step.
   */
  readonly passwordAlone: boolean;
  /**
   * Failures are audited under the lock name (the account's own username once it is found)
   * rather than as typed. HTTP Basic has always recorded the lock name and the login form what
   * was typed (an operator sees which e-mail or spelling was tried); kept as each was.
   */
  readonly auditsLockName: boolean;
}

const LOGIN_FORM: PasswordChannel = { method: 'password', passwordAlone: false, auditsLockName: false };
const HTTP_BASIC: PasswordChannel = { method: 'basic', passwordAlone: true, auditsLockName: true };

/** What one checked password came to, before it is told to the caller. */
type Verdict =
  | { readonly kind: 'right' }
  | { readonly kind: 'refused' }
  | { readonly kind: 'wrong'; readonly locked: string | null }
  | { readonly kind: 'locked'; readonly retryAfter: number };

/** A verdict told to one caller: a right password comes with that caller's proof. */
type PasswordOutcome = Exclude<Verdict, { readonly kind: 'right' }> | { readonly kind: 'right'; readonly proof: CredentialProof };

/** A TOTP step stays claimable for as long as its code could still be accepted (±1 step of drift). */
const TOTP_CLAIM_MS = 3 * 30_000;

/**
 * The one place a password or a TOTP code is checked against an account, for the login form, HTTP
 * Basic and the TOTP step alike: find the account, choose the lock name, reserve the guess under
 * the {@link LoginGuard}, verify (a decoy for an unknown name), audit a failure, settle the
 * reservation, and fingerprint the proven credential.
 *
 * Failures are audited here. A success is audited by the caller once it has acted on it (a
 * password that leads to a TOTP step is not a login yet; a TOTP login is done once the pending
 * session is revoked). A backing store or the hasher that cannot decide now answers
 * `store_unavailable`, never a wrong credential; other thrown errors pass through.
 */
export class CredentialCheck {
  // Checks of the same Basic header under way, by share key and credential version (see basicPassword).
  private readonly inFlight = new Map<string, Promise<Verdict>>();

  constructor(
    private readonly users: UserStore,
    private readonly guard: LoginGuard,
    private readonly totp: TotpVerifier,
    private readonly usedSteps: UsedTotpSteps,
    private readonly audit: AuditLog,
    private readonly fingerprints: CredentialFingerprints,
    /** Whether an account owes a passkey after its password (issue 16); null with PASSKEYS off. */
    private readonly passkeySecondFactor: PasskeySecondFactor | null = null,
  ) {}

  /**
   * A password typed into the login form. An account with a second factor passes (its caller
   * opens the TOTP step) and clears its failures: the password was right.
   */
  async password(guess: PasswordGuess): Promise<Result<CredentialProof, PasswordCheckError>> {
    // The user store, the lock state or the hasher cannot decide: fail closed, never as a wrong password.
    return unavailableAsError(async () => {
      const outcome = await this.checkPassword(guess, LOGIN_FORM, '');
      switch (outcome.kind) {
        case 'locked':
          return err({ code: 'account_locked', retryAfter: outcome.retryAfter });
        case 'right':
          return ok(outcome.proof);
        case 'wrong':
        // Not given by this channel; closed like a wrong password should that ever change.
        case 'refused':
          return err({ code: 'invalid_credentials' });
      }
    });
  }

  /**
   * A password from an HTTP Basic header, which must be the whole proof: an account with a second
   * factor is refused (`second_factor_required`) without counting or clearing a failure.
   *
   * `shareKey` names the header (empty: no sharing). Identical headers checked at the same time
   * share one reservation, one verification and one verdict, so a client that keeps its
   * connections busy spends one guess and one bcrypt on its password, not one per connection
   * (with bcrypt limited to cores - 1, one each stalled seconds when a cache entry expired).
   */
  async basicPassword(guess: PasswordGuess, shareKey: string): Promise<Result<CredentialProof, BasicPasswordError>> {
    return unavailableAsError(async () => {
      const outcome = await this.checkPassword(guess, HTTP_BASIC, shareKey);
      switch (outcome.kind) {
        case 'locked':
          return err({ code: 'account_locked', retryAfter: outcome.retryAfter });
        case 'wrong':
          return err({ code: 'invalid_credentials', locked: outcome.locked });
        case 'refused':
          return err({ code: 'second_factor_required' });
        case 'right':
          return ok(outcome.proof);
      }
    });
  }

  /**
   * A TOTP code for the account of a pending session. The account must still exist with a second
   * factor and the credential the pending session was made with, or the code is not checked
   * (`not_pending`, nothing counted). A valid code is claimed for its account, so it opens one
   * login only (`totp_replayed` after that, counted as a failure).
   */
  async totpCode(guess: TotpGuess): Promise<Result<CredentialProof, TotpCheckError>> {
    // The user store, the lock state or the used-step record cannot decide: fail closed.
    return unavailableAsError(() => this.checkTotp(guess));
  }

  private async checkPassword(guess: PasswordGuess, channel: PasswordChannel, shareKey: string): Promise<PasswordOutcome> {
    const login = guess.login.trim();
    const account = await this.users.findAccount(login);
    // One lock per account, whichever of its names was typed; unknown names lock under what was typed.
    const lockName = account?.username ?? login;
    const verdict = await this.shared(shareKey, account, () => this.verifyPassword(guess, channel, login, lockName, account));
    if (verdict.kind !== 'right') return verdict;
    // Only a found account can be proven right: an unknown name meets the decoy, which never passes.
    // Under a shared verdict each caller still gets the account it found itself (same credential version).
    if (account === null) throw new Error('a password was proven right for no account');
    return { kind: 'right', proof: this.proof(account) };
  }

  /** The verdict of the same check under way (same share key and credential version), or a new one. */
  private shared(shareKey: string, account: Account | null, verify: () => Promise<Verdict>): Promise<Verdict> {
    if (shareKey === '') return verify();
    // The account's credential version is part of the id: a password changed meanwhile is checked afresh.
    const id = `${shareKey} ${account === null ? '' : account.credentialVersion}`;
    let verdict = this.inFlight.get(id);
    if (verdict === undefined) {
      verdict = verify().finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, verdict);
    }
    return verdict;
  }

  /** One guess under the lock: reserved, verified, settled. */
  private async verifyPassword(guess: PasswordGuess, channel: PasswordChannel, login: string, lockName: string, account: Account | null): Promise<Verdict> {
    // The guess counts as a failure before it is checked, so simultaneous guesses cannot outrun the lock.
    const reservation = await this.guard.reserve(lockName, guess.ip);
    if (reservation.kind === 'locked') return { kind: 'locked', retryAfter: reservation.retryAfter };
    const { ticket } = reservation;
    let valid: boolean;
    try {
      // An unknown name costs what a wrong password costs in the store that would have checked it.
      // The hasher's waiting line is shared fairly per address block: one block cannot fill it.
      const requester = addressBlock(guess.ip);
      valid =
        account === null ? await this.users.verifyDecoy(login, guess.password, requester) : await this.users.verifyPassword(account, guess.password, requester);
    } catch (e) {
      // Unchecked, or the answer never reaches the client: the guess taught nothing and is given back.
      await this.guard.refund(ticket);
      throw e;
    }
    if (account === null || !valid) {
      const locked = this.failed(ticket, channel.auditsLockName ? lockName : login, channel.method, 'invalid_credentials', guess);
      return { kind: 'wrong', locked: locked ? lockName : null };
    }
    let owesPasskey = false;
    if (channel.passwordAlone && !hasTotp(account) && this.passkeySecondFactor !== null) {
      // Read on a verification only (a bcrypt already), never on a cached Basic header's hit.
      try {
        owesPasskey = await this.passkeySecondFactor.owed(account.username);
      } catch (e) {
        await this.guard.refund(ticket);
        throw e;
      }
    }
    if (channel.passwordAlone && (hasTotp(account) || owesPasskey)) {
      // A second-factor account's right password is refused like a wrong one, so it neither counts nor clears.
      await this.guard.refund(ticket);
      return { kind: 'refused' };
    }
    await this.guard.succeed(ticket);
    return { kind: 'right' };
  }

  private async checkTotp(guess: TotpGuess): Promise<Result<CredentialProof, TotpCheckError>> {
    // The code counts as a failure before it is checked, so simultaneous codes cannot outrun the lock.
    const reservation = await this.guard.reserve(guess.username, guess.ip);
    if (reservation.kind === 'locked') return err({ code: 'account_locked', retryAfter: reservation.retryAfter });
    const { ticket } = reservation;

    let account: Account | null;
    let credential = '';
    let step: number | null = null;
    try {
      account = await this.users.findAccount(guess.username);
      // The password (or TOTP secret) changed since the password step: that step no longer counts.
      if (account !== null) credential = this.fingerprints.of(account);
      if (account !== null && hasTotp(account) && guess.credential === credential)
        step = await this.totp.verify(account.totpSecret as string, guess.code, guess.at);
    } catch (e) {
      // Unchecked: the code taught nothing and is given back.
      await this.guard.refund(ticket);
      throw e;
    }
    if (account === null || !hasTotp(account) || guess.credential !== credential) {
      await this.guard.refund(ticket);
      return err({ code: 'not_pending' });
    }
    if (step === null) return this.totpFailed(ticket, account.username, 'invalid_code', guess);
    // A claim that throws keeps the reservation: the code was checked and found valid.
    if (!(await this.usedSteps.claim(account.username, step, guess.at + TOTP_CLAIM_MS))) {
      return this.totpFailed(ticket, account.username, 'totp_replayed', guess);
    }
    await this.guard.succeed(ticket);
    return ok({ account, credential });
  }

  private totpFailed(ticket: GuessTicket, username: string, code: 'invalid_code' | 'totp_replayed', guess: TotpGuess): Result<never, TotpCheckError> {
    this.failed(ticket, username, 'totp', code, guess);
    return err({ code });
  }

  /**
   * The one failure path of every channel: audited, then the reservation stands as the failure.
   * True when this failure locked the account.
   */
  private failed(
    ticket: GuessTicket,
    login: string,
    method: 'password' | 'basic' | 'totp',
    reason: string,
    guess: { readonly ip: string; readonly requestId?: string },
  ): boolean {
    this.audit.record({ event: 'login_failed', login, method, ip: guess.ip, reason, requestId: guess.requestId });
    return this.guard.fail(ticket, guess.requestId);
  }

  private proof(account: Account): CredentialProof {
    return { account, credential: this.fingerprints.of(account) };
  }
}
