import type { OAuthProvider } from '../../application/ports/oauth-provider';
import type { OAuthProviders } from '../../application/ports/oauth-providers';
import { OAUTH_PROVIDER_KINDS } from '../../domain/oauth-flow';

/** The providers built from the configuration, fixed for the gateway's lifetime. */
export class ConfiguredOAuthProviders implements OAuthProviders {
  private readonly byId = new Map<string, OAuthProvider>();
  private readonly order: readonly string[];

  constructor(providers: readonly OAuthProvider[]) {
    for (const p of providers) this.byId.set(p.id, p);
    // Built-in kinds first (the order the UI always had), then the configured generic providers as given.
    const builtIn: readonly string[] = OAUTH_PROVIDER_KINDS;
    this.order = [...OAUTH_PROVIDER_KINDS.filter((k) => this.byId.has(k)), ...providers.map((p) => p.id).filter((id) => !builtIn.includes(id))];
  }

  get(id: string): OAuthProvider | null {
    return this.byId.get(id) ?? null;
  }

  ids(): readonly string[] {
    return this.order;
  }
}
