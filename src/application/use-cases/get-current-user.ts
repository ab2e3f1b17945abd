import type { Identity } from '../../domain/session';
import type { RequestAuthenticator, RequestCredentials } from '../services/request-authenticator';

export type GetCurrentUserInput = RequestCredentials;

/** Who the caller is, as the UI shows it; never an error: anything unproven is "logged out". */
export type GetCurrentUserOutput =
  | { readonly state: 'logged_in'; readonly identity: Identity }
  | { readonly state: 'totp_pending'; readonly identity: Identity }
  | { readonly state: 'logged_out' };

/** Tells the UI who is logged in (session cookie or HTTP Basic), or that a TOTP code is still owed. */
export class GetCurrentUserUseCase {
  constructor(private readonly authenticator: RequestAuthenticator) {}

  async execute(input: GetCurrentUserInput): Promise<GetCurrentUserOutput> {
    const auth = await this.authenticator.authenticate(input);
    switch (auth.kind) {
      case 'session':
      case 'basic':
        return { state: 'logged_in', identity: auth.identity };
      case 'pending':
        return { state: 'totp_pending', identity: auth.session };
      default:
        return { state: 'logged_out' };
    }
  }
}
