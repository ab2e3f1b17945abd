import type { Identity } from '../../domain/session';

/**
 * What the OpenID Connect apps (clients) hold for people: grants, with their refresh and access
 * tokens. A gateway without clients has none.
 */
export interface AppGrants {
  /**
   * Ends every grant apps hold for the person `identity` names (their refresh and access tokens
   * stop working; a later login makes new ones). Resolves once that is stored; rejects with the
   * store's unavailable error otherwise.
   */
  endAll(identity: Identity): Promise<void>;
}
