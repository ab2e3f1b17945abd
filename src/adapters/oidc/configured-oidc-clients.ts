import type { OidcClients } from '../../application/oidc/oidc-clients';
import type { OidcClient } from '../../domain/oidc-client';

/** The clients of the configuration (`OIDC_CLIENTS_<ID>_…`), validated by loadConfig. */
export class ConfiguredOidcClients implements OidcClients {
  private readonly byId: ReadonlyMap<string, OidcClient>;

  constructor(private readonly clients: readonly OidcClient[]) {
    this.byId = new Map(clients.map((c) => [c.clientId, c]));
  }

  all(): readonly OidcClient[] {
    return this.clients;
  }

  get(clientId: string): OidcClient | null {
    return this.byId.get(clientId) ?? null;
  }
}
