import { isOAuthProviderId, isOAuthProviderKind, type OAuthFlow } from '../../domain/oauth-flow';
import { safeRedirectTarget } from '../../domain/redirect-target';
import { err, ok, type Result } from '../../domain/result';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { OAuthFlowSealer } from './oauth-flow-sealer';
import { OAuthProviderError } from '../ports/oauth-provider';
import type { OAuthProviders } from '../ports/oauth-providers';
import type { Pkce } from './pkce';
import type { GatewaySettings, OAuthSettings } from '../settings';

/** A flow the browser already holds: the id its cookie is named after and the sealed token. */
export interface HeldOAuthFlow {
  readonly id: string;
  readonly token: string;
}

export interface StartOAuthInput {
  /** The provider asked for, as it came in (checked here). */
  readonly provider: string;
  /** Where the person wants to land after login; kept only when it is safe. */
  readonly redirectUri?: string;
  /** The flows this browser already holds. */
  readonly heldFlows: readonly HeldOAuthFlow[];
}

export interface StartOAuthOutput {
  /** The provider's authorization URL to send the person to. */
  readonly url: string;
  /** The new flow, to be bound to the browser. */
  readonly flow: { readonly id: string; readonly token: string; readonly expiresAt: number; readonly lifetimeMs: number };
  /** The safe redirect target kept for after login, or null. */
  readonly redirectTarget: string | null;
  /** Ids of held flows the browser should forget: expired, unreadable, or beyond the cap (oldest first). */
  readonly discard: readonly string[];
}

export type StartOAuthError =
  /** No configured provider has this id (nor could any: a malformed id is unknown too). */
  | { readonly code: 'unknown_provider' }
  /** A built-in kind (github, google, generic) that is not configured. */
  | { readonly code: 'provider_not_configured' }
  /** The provider's metadata (OIDC discovery) cannot be read. */
  | { readonly code: 'provider_unavailable' };

/**
 * Starts a login at an OAuth provider: a fresh random state and PKCE verifier per flow, sealed
 * for the browser that asked, so every tab's login carries its own secrets.
 */
export class StartOAuthUseCase {
  constructor(
    private readonly providers: OAuthProviders,
    private readonly sealer: OAuthFlowSealer,
    private readonly pkce: Pkce,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly settings: GatewaySettings,
    private readonly oauth: OAuthSettings,
  ) {}

  async execute(input: StartOAuthInput): Promise<Result<StartOAuthOutput, StartOAuthError>> {
    const provider = isOAuthProviderId(input.provider) ? this.providers.get(input.provider) : null;
    if (provider === null) return err({ code: isOAuthProviderKind(input.provider) ? 'provider_not_configured' : 'unknown_provider' });

    const now = this.clock.now();
    const discard: string[] = [];
    const live: OAuthFlow[] = [];
    for (const held of input.heldFlows) {
      const flow = this.sealer.unseal(held.token);
      if (flow === null || flow.id !== held.id || flow.expiresAt <= now) discard.push(held.id);
      else live.push(flow);
    }
    // Make room for the new flow: the oldest go first.
    live.sort((a, b) => a.createdAt - b.createdAt);
    const excess = live.length - (this.oauth.maxLiveFlows - 1);
    for (let i = 0; i < excess; i += 1) discard.push(live[i].id);

    const verifier = this.pkce.verifier();
    const flow: OAuthFlow = {
      id: this.ids.next(),
      provider: provider.id,
      state: this.ids.next(),
      codeVerifier: verifier,
      redirectTarget: safeRedirectTarget(input.redirectUri, this.settings.protectedDomain),
      createdAt: now,
      expiresAt: now + this.oauth.flowLifetimeMs,
    };
    let url: string;
    try {
      url = await provider.authorizationUrl({
        state: flow.state,
        codeChallenge: this.pkce.challenge(verifier),
        redirectUri: callbackUrl(this.oauth.appUrl, provider.id),
      });
    } catch (e) {
      if (e instanceof OAuthProviderError) return err({ code: 'provider_unavailable' });
      throw e;
    }
    return ok({
      url,
      flow: { id: flow.id, token: this.sealer.seal(flow), expiresAt: flow.expiresAt, lifetimeMs: this.oauth.flowLifetimeMs },
      redirectTarget: flow.redirectTarget,
      discard,
    });
  }
}

/** The redirect URI registered at the provider for this gateway. */
export function callbackUrl(appUrl: string, provider: string): string {
  return `${appUrl}/api/oauth/callback/${provider}`;
}
