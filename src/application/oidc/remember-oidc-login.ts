import type { RequestAuthenticator } from '../sessions/request-authenticator';
import type { OidcSessionLogin, OidcSessionLogins } from './oidc-session-logins';

export interface RememberOidcLoginInput extends OidcSessionLogin {
  /** The gateway session cookie of the browser the provider just gave a code to. */
  readonly sessionToken: string | undefined;
}

/**
 * Notes, when the provider gives an app a code, which gateway session the login came from: its end
 * (logout, "sign out everywhere", `portcullis sessions revoke`, a password change...) is then told
 * to the app. A code given without a live gateway session notes nothing (the login check refuses that anyway).
 */
export class RememberOidcLoginUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly logins: OidcSessionLogins,
  ) {}

  async execute(input: RememberOidcLoginInput): Promise<boolean> {
    const session = await this.authenticator.session(input.sessionToken);
    if (session === null) return false;
    const { clientId, subject, sid, grantId } = input;
    await this.logins.add(session.id, { clientId, subject, sid, grantId }, session.expiresAt);
    return true;
  }
}
