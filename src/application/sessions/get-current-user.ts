import type { ProvenMethods } from '../../domain/login-methods';
import type { Identity } from '../../domain/session';
import type { PendingSecondFactors, SecondFactor } from './pending-second-factors';
import type { RequestAuthenticator, RequestCredentials } from './request-authenticator';
import type { RenewedSession } from './session-issuer';

export type GetCurrentUserInput = RequestCredentials;

/** Who the caller is, as the UI shows it; never an error: anything unproven is "logged out". */
export type GetCurrentUserOutput =
  /**
   * `proven`: for a session (issue 33), what it proved and when; absent for HTTP Basic. `renewed`:
   * the session this request renewed (issue 33), whose cookie the answer sets.
   */
  | { readonly state: 'logged_in'; readonly identity: Identity; readonly proven?: ProvenMethods; readonly renewed?: RenewedSession }
  /** `secondFactors`: what the pending step accepts (absent: not told, the page offers the code as before). */
  | { readonly state: 'totp_pending'; readonly identity: Identity; readonly secondFactors?: readonly SecondFactor[] }
  | { readonly state: 'logged_out' };

/** Tells the UI who is logged in (session cookie or HTTP Basic), or that a TOTP code is still owed. */
export class GetCurrentUserUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly secondFactors: PendingSecondFactors | null = null,
  ) {}

  async execute(input: GetCurrentUserInput): Promise<GetCurrentUserOutput> {
    const auth = await this.authenticator.authenticate(input);
    switch (auth.kind) {
      case 'session':
        return auth.renewed === undefined
          ? { state: 'logged_in', identity: auth.identity, proven: auth.session.proven }
          : { state: 'logged_in', identity: auth.identity, proven: auth.session.proven, renewed: auth.renewed };
      case 'basic':
        return { state: 'logged_in', identity: auth.identity };
      case 'pending': {
        // Only for a pending login (minutes long, rare): never on a logged-in request.
        const secondFactors = await this.secondFactors?.of(auth.session.username).catch(() => undefined);
        return { state: 'totp_pending', identity: auth.session, ...(secondFactors === undefined ? {} : { secondFactors }) };
      }
      default:
        return { state: 'logged_out' };
    }
  }
}
