import type { Identity } from '../../domain/session';

/** An app (OpenID Connect client) that may hold tokens for the person. */
export interface AppGrant {
  readonly clientId: string;
  /** The client's configured name (its id when none). */
  readonly name: string;
  /** When the person last logged in to it through the gateway (milliseconds since the epoch). */
  readonly lastLoginAt: number;
}

/**
 * What the OpenID Connect apps (clients) hold for people: grants, with their refresh and access
 * tokens. A gateway without clients has none. Every method rejects with the store's unavailable
 * error when it cannot read or store.
 */
export interface AppGrants {
  /**
   * The apps the person `identity` names logged in to whose tokens may still work (not ended, not
   * older than the longest token life), most recent first.
   */
  list(identity: Identity): Promise<readonly AppGrant[]>;
  /** Ends what app `clientId` holds for the person (its tokens issued until now stop working); false when it holds nothing listed. */
  end(identity: Identity, clientId: string): Promise<boolean>;
  /** Ends what every app holds for the person; resolves once that is stored. A later login makes new grants. */
  endAll(identity: Identity): Promise<void>;
}
