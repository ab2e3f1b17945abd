import { PASSKEY_CHALLENGE_LIFETIME_MS } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { PasskeyCredentials } from './passkey-credentials';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';

export interface StartPasskeyLoginInput {
  /** `login`: sign in with a passkey alone; `second_factor`: a passkey instead of the TOTP code of a pending login. */
  readonly purpose: 'login' | 'second_factor';
  /** The pending session's cookie (second factor only). */
  readonly sessionToken?: string;
}

export interface StartPasskeyLoginOutput {
  /** `PublicKeyCredentialRequestOptionsJSON` for the browser. */
  readonly options: Record<string, unknown>;
  readonly challengeToken: string;
  readonly expiresAt: number;
}

export type StartPasskeyLoginError = { readonly code: 'not_pending' } | { readonly code: 'store_unavailable' };

/**
 * Starts a passkey login. A login names no account (the passkey will: discoverable credentials,
 * and the browser's autofill); a second factor is bound to the pending session and its account,
 * and allows only that account's passkeys.
 */
export class StartPasskeyLoginUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: StartPasskeyLoginInput): Promise<Result<StartPasskeyLoginOutput, StartPasskeyLoginError>> {
    return unavailableAsError(async () => {
      const challenge = this.ids.next() + this.ids.next();
      const expiresAt = this.clock.now() + PASSKEY_CHALLENGE_LIFETIME_MS;
      if (input.purpose === 'login') {
        const options = await this.ceremonies.authenticationOptions({ challenge, allow: [], userVerification: true });
        const challengeToken = this.sealer.seal({ id: this.ids.next(), purpose: 'login', challenge, username: null, sessionId: null, expiresAt });
        return ok({ options, challengeToken, expiresAt });
      }
      const pending = await this.authenticator.session(input.sessionToken);
      if (pending === null || !pending.totpPending) return err({ code: 'not_pending' });
      const owned = await this.passkeys.list(pending.username);
      if (owned.length === 0) return err({ code: 'not_pending' });
      const options = await this.ceremonies.authenticationOptions({
        challenge,
        allow: owned.map((p) => ({ id: p.id, transports: p.transports })),
        // The password was the first factor: the passkey proves possession; verifying the person is not required.
        userVerification: false,
      });
      const challengeToken = this.sealer.seal({
        id: this.ids.next(),
        purpose: 'second_factor',
        challenge,
        username: pending.username,
        sessionId: pending.id,
        expiresAt: Math.min(expiresAt, pending.expiresAt),
      });
      return ok({ options, challengeToken, expiresAt: Math.min(expiresAt, pending.expiresAt) });
    });
  }
}
