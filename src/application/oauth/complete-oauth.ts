import { parseDisplayName, parseGroupName, parseUsername } from '../../domain/identity-name';
import { checkIssuer, isOAuthProviderId, isOAuthProviderKind, sameSecret, type IssuerExpectation, type OAuthFlow } from '../../domain/oauth-flow';
import { isWhitelisted } from '../../domain/oauth-whitelist';
import { safeRedirectTarget } from '../../domain/redirect-target';
import { err, ok, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { OAuthFlowSealer } from './oauth-flow-sealer';
import { OAuthProviderError, type OAuthIdentity } from '../ports/oauth-provider';
import type { OAuthProviders } from '../ports/oauth-providers';
import type { SessionIssuer } from '../sessions/session-issuer';
import type { UpstreamSessions } from './upstream-sessions';
import type { UsedOAuthFlows } from '../ports/used-oauth-flows';
import { valueOrUnavailable } from '../store-unavailable';
import type { GatewaySettings, OAuthSettings } from '../settings';
import { callbackUrl, type HeldOAuthFlow } from './start-oauth';

export interface CompleteOAuthInput {
  readonly provider: string;
  /** `code` from the callback query, if any. */
  readonly code?: string;
  /** `state` from the callback query, if any. */
  readonly state?: string;
  /** `iss` from the callback query (RFC 9207), if any. */
  readonly iss?: string;
  /** `error` from the callback query: the provider (or the person) declined. */
  readonly providerError?: string;
  /** The flows this browser holds. */
  readonly heldFlows: readonly HeldOAuthFlow[];
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
  /** The browser's User-Agent, kept in the session index for the account page. */
  readonly userAgent?: string;
}

export interface CompleteOAuthOutput {
  readonly session: Session;
  /** The session sealed for the client (the cookie value). */
  readonly token: string;
  /** Where to send the person now (the target kept when the flow started), or null. */
  readonly redirectTarget: string | null;
  /** The finished flow; the browser should forget it. */
  readonly flowId: string;
}

/** `flowId` names the flow the callback matched (now used up), so the browser can forget it; null when none matched. */
type WithFlow<C extends string> = { readonly code: C; readonly flowId: string };

export type CompleteOAuthError =
  | { readonly code: 'unknown_provider' }
  | { readonly code: 'provider_not_configured' }
  /** No `code` or no `state` in the callback. */
  | { readonly code: 'invalid_callback' }
  /** This browser holds no flow for this provider at all (another browser's callback, or cookies lost). */
  | { readonly code: 'oauth_flow_missing' }
  /** The browser holds flows, but none with this state. */
  | { readonly code: 'oauth_state_mismatch' }
  | WithFlow<'oauth_flow_expired'>
  /** The flow's callback was already handled once. */
  | WithFlow<'oauth_flow_replayed'>
  /** The callback's `iss` names another issuer than the one the login was sent to (a mix-up, RFC 9207). */
  | WithFlow<'oauth_issuer_mismatch'>
  /** The issuer promised `iss` in its responses and this callback has none. */
  | WithFlow<'oauth_issuer_missing'>
  /** The provider sent the person back with an error (e.g. they declined). */
  | WithFlow<'provider_denied'>
  /** The provider refused to exchange the code. */
  | WithFlow<'provider_refused'>
  | WithFlow<'provider_unavailable'>
  | WithFlow<'provider_invalid_response'>
  /** The provider vouches for no (verified) e-mail address. */
  | WithFlow<'email_missing'>
  /**
   * The provider's e-mail (the session's username) holds an invisible, control or white-space
   * character, or one a header cannot carry: refused before any decision, since rules would judge
   * one name and the upstream could receive another.
   */
  | WithFlow<'identity_invalid'>
  | (WithFlow<'not_whitelisted'> & { readonly email: string })
  /** The shared record of used flows cannot be reached; the flow is not spent and may be retried. */
  | { readonly code: 'store_unavailable' };

const MAX_PARAM_LENGTH = 4096;

/**
 * Finishes a login at an OAuth provider: the callback's state must match a live, unused flow of
 * this browser, the code is exchanged with that flow's PKCE verifier, and the identity must
 * carry an e-mail that `OAUTH_WHITELIST` admits. Then a session is issued.
 */
export class CompleteOAuthUseCase {
  constructor(
    private readonly providers: OAuthProviders,
    private readonly sealer: OAuthFlowSealer,
    private readonly used: UsedOAuthFlows,
    private readonly clock: Clock,
    private readonly settings: GatewaySettings,
    private readonly oauth: OAuthSettings,
    private readonly audit: AuditLog,
    /** The one session issuer, and where sessions from an OpenID Connect provider are noted for its back-channel logout (null: nowhere). */
    private readonly sessions: { readonly issuer: SessionIssuer; readonly upstream: UpstreamSessions | null },
  ) {}

  async execute(input: CompleteOAuthInput): Promise<Result<CompleteOAuthOutput, CompleteOAuthError>> {
    const provider = isOAuthProviderId(input.provider) ? this.providers.get(input.provider) : null;
    if (provider === null) return err({ code: isOAuthProviderKind(input.provider) ? 'provider_not_configured' : 'unknown_provider' });
    const method = `oauth:${provider.id}`;
    const fail = <E extends CompleteOAuthError>(e: E, login = ''): Result<never, E> => {
      this.audit.record({ event: 'login_failed', login, method, ip: input.ip, reason: e.code, requestId: input.requestId });
      return err(e);
    };

    const state = bounded(input.state);
    const flows = this.readFlows(input.heldFlows, provider.id);
    if (state === undefined) {
      // A provider error without state cannot be tied to a flow; treat it like any bad callback.
      return fail({ code: 'invalid_callback' });
    }
    if (flows.length === 0) return fail({ code: 'oauth_flow_missing' });
    const flow = flows.find((f) => sameSecret(f.state, state));
    if (flow === undefined) return fail({ code: 'oauth_state_mismatch' });

    // From here on the flow is spent, whatever the outcome: a callback is never tried twice.
    const firstUse = await valueOrUnavailable(() => this.used.use(flow.id, flow.expiresAt));
    // Without the replay check a callback is never accepted (fail closed).
    if (!firstUse.ok) return fail(firstUse.error);
    if (!firstUse.value) return fail({ code: 'oauth_flow_replayed', flowId: flow.id });
    const now = this.clock.now();
    if (flow.expiresAt <= now) return fail({ code: 'oauth_flow_expired', flowId: flow.id });
    // RFC 9207: checked before anything else of the response is believed (its error too), and
    // above all before the code goes to a token endpoint.
    let expected: IssuerExpectation;
    try {
      expected = await provider.issuer();
    } catch (e) {
      if (e instanceof OAuthProviderError) return fail({ code: 'provider_unavailable', flowId: flow.id });
      throw e;
    }
    const issuer = checkIssuer(expected, input.iss === undefined ? undefined : input.iss.slice(0, MAX_PARAM_LENGTH));
    if (issuer === 'mismatch') return fail({ code: 'oauth_issuer_mismatch', flowId: flow.id });
    if (issuer === 'missing') return fail({ code: 'oauth_issuer_missing', flowId: flow.id });
    if (input.providerError !== undefined) return fail({ code: 'provider_denied', flowId: flow.id });
    const code = bounded(input.code);
    if (code === undefined) return fail({ code: 'invalid_callback' });

    let identity: OAuthIdentity;
    try {
      identity = await provider.identify({ code, codeVerifier: flow.codeVerifier, redirectUri: callbackUrl(this.oauth.appUrl, provider.id) });
    } catch (e) {
      if (!(e instanceof OAuthProviderError)) throw e;
      switch (e.reason) {
        case 'refused':
          return fail({ code: 'provider_refused', flowId: flow.id });
        case 'unreachable':
          return fail({ code: 'provider_unavailable', flowId: flow.id });
        case 'invalid_response':
          return fail({ code: 'provider_invalid_response', flowId: flow.id });
      }
    }

    const email = identity.email.trim().toLowerCase();
    if (email === '') return fail({ code: 'email_missing', flowId: flow.id }, identity.username);
    if (!parseUsername(email).ok) return fail({ code: 'identity_invalid', flowId: flow.id });
    if (!this.admits(provider.id, email, identity)) return fail({ code: 'not_whitelisted', flowId: flow.id, email }, email);

    const claims = {
      // The verified e-mail, not the provider's login name: a GitHub user called `admin` must
      // never arrive upstream as the same Remote-User as a local account `admin`.
      username: email,
      // A display name or group the upstream could not receive as it is, is left out rather than
      // refusing the person: leaving a group out never lets more through.
      name: [identity.name.trim(), identity.username.trim()].find((n) => parseDisplayName(n).ok) ?? email,
      email,
      groups: identity.groups.filter((g) => parseGroupName(g).ok),
      provider: provider.id,
      oauth: true,
      totp: false,
    };
    // Indexed before it is handed out: "sign out everywhere" must be able to find every session.
    const issued = await valueOrUnavailable(async () => {
      const made = await this.sessions.issuer.full(claims, { method: provider.id, audited: method, proves: ['oauth'] }, input);
      // Noted before it is handed out, like the index: a provider's logout must find every session it made.
      if (identity.upstream !== undefined && this.sessions.upstream !== null)
        await this.sessions.upstream.remember(provider.id, identity.upstream, made.session);
      return made;
    });
    if (!issued.ok) return fail(issued.error);
    // Checked again: the protected domain may have changed since the flow began (a restart with new APP_URL).
    const redirectTarget = safeRedirectTarget(flow.redirectTarget, this.settings.protectedDomain);
    return ok({ ...issued.value, redirectTarget, flowId: flow.id });
  }

  /**
   * The provider's own whitelist (or `OAUTH_WHITELIST`), then what the provider demands beyond it:
   * a Workspace domain Google vouches for (`hd`, never the e-mail's domain alone: a personal
   * account may carry any address it has verified) or membership of one of its groups.
   */
  private admits(providerId: string, email: string, identity: OAuthIdentity): boolean {
    const policy = this.oauth.policies?.[providerId];
    if (!isWhitelisted(policy?.whitelist ?? this.oauth.whitelist, email)) return false;
    const domains = policy?.hostedDomains ?? [];
    if (domains.length > 0 && !domains.includes((identity.hostedDomain ?? '').trim().toLowerCase())) return false;
    const groups = policy?.requiredGroups ?? [];
    // Lower case on both sides: GitHub organisation names are case-insensitive.
    if (groups.length > 0 && !identity.groups.some((g) => groups.includes(g.toLowerCase()))) return false;
    return true;
  }

  /** The live-or-expired flows of this provider the browser holds; unreadable and mislabelled ones are ignored. */
  private readFlows(held: readonly HeldOAuthFlow[], provider: string): OAuthFlow[] {
    const flows: OAuthFlow[] = [];
    for (const h of held) {
      const flow = this.sealer.unseal(h.token);
      if (flow !== null && flow.id === h.id && flow.provider === provider) flows.push(flow);
    }
    return flows;
  }
}

function bounded(value: string | undefined): string | undefined {
  return value === undefined || value === '' || value.length > MAX_PARAM_LENGTH ? undefined : value;
}
