import type { OAuthProvider } from './oauth-provider';

/** The OAuth providers this gateway is configured with. */
export interface OAuthProviders {
  /** The provider with this id, or null when it is not configured (or not a provider id at all). */
  get(id: string): OAuthProvider | null;
  /** Ids of the configured providers, in the order github, google, generic, then the others as configured. */
  ids(): readonly string[];
}
