import { err, ok, type Result } from '../../domain/result';
import { MAX_PASSKEYS_PER_ACCOUNT, PASSKEY_CHALLENGE_LIFETIME_MS } from '../../domain/passkey';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { PasskeyCeremonies } from './passkey-ceremonies';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { PasskeyCredentials } from './passkey-credentials';
import type { PasskeyOwners } from './passkey-owner';
import type { Reauthentication, ReauthenticationError, ReauthenticationProof } from './reauthentication';

export interface StartPasskeyRegistrationInput {
  readonly sessionToken?: string;
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput.fromThisSite). */
  readonly fromThisSite: boolean;
  /** The password (or a passkey-only account's passkey) asked again: a session alone adds no passkey. */
  readonly proof: ReauthenticationProof;
  readonly ip: string;
  readonly requestId?: string;
}

export interface StartPasskeyRegistrationOutput {
  /** `PublicKeyCredentialCreationOptionsJSON` for the browser. */
  readonly options: Record<string, unknown>;
  /** The sealed ceremony (a cookie value) and when it ends. */
  readonly challengeToken: string;
  readonly expiresAt: number;
}

export type StartPasskeyRegistrationError =
  { readonly code: 'cross_site_request' } | { readonly code: 'not_logged_in' } | { readonly code: 'too_many_passkeys' } | ReauthenticationError;

/**
 * Starts adding a passkey to the logged-in person's account: options bound to that account and
 * session, once the person proved again who they are (issue 29: a new passkey is a permanent
 * two-factor login that would outlive "sign out everywhere" and a password change, so a copied
 * session cookie must not be enough to add one). The finish is bound to this session's ceremony.
 */
export class StartPasskeyRegistrationUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly reauthentication: Reauthentication,
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: StartPasskeyRegistrationInput): Promise<Result<StartPasskeyRegistrationOutput, StartPasskeyRegistrationError>> {
    return this.owners.forOwnerFromThisSite(input, async (owner) => {
      const { account, session } = owner;
      const existing = await this.passkeys.list(account.username);
      if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) return err({ code: 'too_many_passkeys' });
      const proven = await this.reauthentication.prove(owner, input.proof, input);
      if (!proven.ok) return proven;
      const challenge = this.ids.next() + this.ids.next();
      const expiresAt = this.clock.now() + PASSKEY_CHALLENGE_LIFETIME_MS;
      const options = await this.ceremonies.registrationOptions({
        username: account.username,
        displayName: account.name !== '' ? account.name : account.username,
        challenge,
        exclude: existing.map((p) => ({ id: p.id, transports: p.transports })),
      });
      const challengeToken = this.sealer.seal({
        id: this.ids.next(),
        purpose: 'register',
        challenge,
        username: account.username,
        sessionId: session.id,
        expiresAt,
      });
      return ok({ options, challengeToken, expiresAt });
    });
  }
}
