import { hasTotp, type Account } from '../../domain/account';
import { isPending, type Awaitable } from '../ports/awaitable';
import type { EnrolledTotpSecrets } from './enrolled-totp-secrets';
import type { UserStore } from '../ports/user-store';

/**
 * The configured user stores as everything else sees them: an account without a TOTP secret of
 * its own (USERS, users file, LDAP attribute) but with one its owner set up on the account page
 * carries that secret. Every check that reads `totpSecret` (the login's TOTP step, HTTP Basic's
 * refusal, the credential fingerprint sessions are held to, the OIDC login) then treats a
 * self-enrolled account exactly as an administrator's TOTP account, with no code path of its own
 * to forget. An administrator's secret stays authoritative: such an account is handed out as is.
 *
 * The secrets are read from memory ({@link EnrolledTotpSecrets.secretOf}), so an account that was
 * answered at once still is. One derived object per store account and secret: the caches keyed by
 * account object (the Basic answer, the session identity) keep working, and a new or removed
 * secret is a new object.
 */
export class EnrolledTotpUserStore implements UserStore {
  private readonly derived = new WeakMap<Account, Account>();
  // The store's own object behind each derived one: stores recognise the accounts they handed out.
  private readonly origin = new WeakMap<Account, Account>();

  constructor(
    private readonly store: UserStore,
    private readonly enrolled: EnrolledTotpSecrets,
  ) {}

  findAccount(login: string): Awaitable<Account | null> {
    const account = this.store.findAccount(login);
    return isPending(account) ? account.then((a) => this.withEnrolment(a)) : this.withEnrolment(account);
  }

  currentAccount(username: string): Awaitable<Account | null> {
    const account = this.store.currentAccount(username);
    return isPending(account) ? account.then((a) => this.withEnrolment(a)) : this.withEnrolment(account);
  }

  verifyPassword(account: Account, password: string, requester?: string): Promise<boolean> {
    return this.store.verifyPassword(this.origin.get(account) ?? account, password, requester);
  }

  verifyDecoy(login: string, password: string, requester?: string): Promise<false> {
    return this.store.verifyDecoy(login, password, requester);
  }

  private withEnrolment(account: Account | null): Account | null {
    // The administrator's TOTP (or none set up) wins; secretOf throws when it cannot tell: fail closed.
    if (account === null || hasTotp(account)) return account;
    const secret = this.enrolled.secretOf(account.username);
    if (secret === null) return account;
    let derived = this.derived.get(account);
    if (derived === undefined || derived.totpSecret !== secret) {
      derived = Object.freeze({ ...account, totpSecret: secret });
      this.derived.set(account, derived);
      this.origin.set(derived, account);
    }
    return derived;
  }
}
