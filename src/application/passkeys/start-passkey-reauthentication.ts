import { PASSKEY_CHALLENGE_LIFETIME_MS } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { PasskeyCredentials } from './passkey-credentials';
import type { PasskeyOwners } from './passkey-owner';

export interface StartPasskeyReauthenticationInput {
  readonly sessionToken?: string;
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput.fromThisSite). */
  readonly fromThisSite: boolean;
  readonly ip: string;
  readonly requestId?: string;
}

export interface StartPasskeyReauthenticationOutput {
  /** `PublicKeyCredentialRequestOptionsJSON` for the browser: the account's own passkeys only. */
  readonly options: Record<string, unknown>;
  readonly challengeToken: string;
  readonly expiresAt: number;
}

/** `no_passkey`: the account holds none (an account with a password proves itself with it instead). */
export type StartPasskeyReauthenticationError =
  { readonly code: 'cross_site_request' } | { readonly code: 'not_logged_in' } | { readonly code: 'no_passkey' } | { readonly code: 'store_unavailable' };

/**
 * Starts the ceremony with which a passkey-only account proves, again, that its owner is there
 * before a passkey change (see Reauthentication): bound to the session and the account, and
 * answerable only by one of the account's own passkeys, with the person verified.
 */
export class StartPasskeyReauthenticationUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: StartPasskeyReauthenticationInput): Promise<Result<StartPasskeyReauthenticationOutput, StartPasskeyReauthenticationError>> {
    return this.owners.forOwnerFromThisSite(input, async ({ account, session }) => {
      const owned = await this.passkeys.list(account.username);
      if (owned.length === 0) return err({ code: 'no_passkey' });
      const challenge = this.ids.next() + this.ids.next();
      const expiresAt = Math.min(this.clock.now() + PASSKEY_CHALLENGE_LIFETIME_MS, session.expiresAt);
      const options = await this.ceremonies.authenticationOptions({
        challenge,
        allow: owned.map((p) => ({ id: p.id, transports: p.transports })),
        userVerification: true,
      });
      const challengeToken = this.sealer.seal({
        id: this.ids.next(),
        purpose: 'reauthenticate',
        challenge,
        username: account.username,
        sessionId: session.id,
        expiresAt,
      });
      return ok({ options, challengeToken, expiresAt });
    });
  }
}
