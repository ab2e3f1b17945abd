import type { OidcClient } from '../../domain/oidc-client';

/** The relying parties the administrator configured; fixed for the life of the process. */
export interface OidcClients {
  /** Every configured client, in a stable order. */
  all(): readonly OidcClient[];
  /** The client with exactly this id, or null. */
  get(clientId: string): OidcClient | null;
}
