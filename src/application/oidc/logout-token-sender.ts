import type { LogoutTokenClaims } from '../../domain/backchannel-logout';

/** Why a delivery attempt failed, for the audit: never the token. */
export type LogoutSendFailure = 'unreachable' | 'timeout' | 'refused' | 'signing_failed';

/**
 * Signs a logout token with the provider's key and POSTs it (form field `logout_token`) to an
 * app's back-channel logout URI; delivered when the app answers 200 or 204.
 */
export interface LogoutTokenSender {
  send(
    uri: string,
    claims: LogoutTokenClaims,
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: LogoutSendFailure; readonly status?: number }>;
}
