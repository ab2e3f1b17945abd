import * as client from 'openid-client';
import { authorize, type ReplicaBrowser } from './oidc-replicas';

/** The whole code flow of a logged-in replica browser, the code redeemed as the relying party does: the tokens. */
export async function codeFlowAt(
  browser: ReplicaBrowser,
  rp: client.Configuration,
): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
  const { callback, verifier, state } = await authorize(browser, rp);
  return client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier, expectedState: state });
}
