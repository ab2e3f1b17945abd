import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { CredentialFingerprints } from '../application/ports/credential-fingerprints';
import type { OAuthProviders } from '../application/ports/oauth-providers';
import type { RevokedSessions } from '../application/ports/revoked-sessions';
import type { SessionSealer } from '../application/ports/session-sealer';
import type { UserStore } from '../application/ports/user-store';
import type { VerifiedCredentials } from '../application/sessions/verified-credentials';
import type { CredentialCheck } from '../application/password/credential-check';
import type { SessionActivity } from '../application/sessions/last-seen-recorder';
import type { SessionRenewal } from '../application/sessions/session-issuer';
import type { LoginGuard } from '../application/password/login-guard';
import type { TokenAuthenticator } from '../application/tokens/token-authenticator';
import type { JwtAuthenticator } from '../application/tokens/jwt-authenticator';
import { RequestAuthenticator } from '../application/sessions/request-authenticator';
import type { GatewaySettings, OAuthSettings } from '../application/settings';

/** What a RequestAuthenticator is made of, by name: a swapped pair of ports of one type cannot compile into the wrong place. */
export interface RequestAuthenticatorParts {
  readonly sealer: SessionSealer;
  readonly revoked: RevokedSessions;
  readonly users: UserStore;
  readonly verified: VerifiedCredentials;
  readonly guard: LoginGuard;
  readonly credentials: CredentialCheck;
  readonly clock: Clock;
  readonly settings: GatewaySettings;
  readonly audit: AuditLog;
  readonly fingerprints: CredentialFingerprints;
  readonly providers: OAuthProviders;
  /** The global whitelist, and the providers' own (`OAUTH_PROVIDERS_<ID>_WHITELIST`), which replace it for them. */
  readonly oauth: Pick<OAuthSettings, 'whitelist' | 'policies'>;
  /** Told of every full session a request uses ("last seen"); none by default. */
  readonly activity?: SessionActivity;
  /** Renews sessions in use (SESSION_MAX_LIFETIME, issue 33): the session issuer; none by default. */
  readonly renewal?: SessionRenewal;
  /** Access tokens (issue 32); none by default (TOKENS=false). */
  readonly tokens?: TokenAuthenticator | null;
  /** Workload JWTs (issue 32); none by default (no JWT_ISSUERS_<ID>_ISSUER). */
  readonly jwts?: JwtAuthenticator | null;
}

/**
 * The one way to build the RequestAuthenticator: the container and the tests' core both call it,
 * so they cannot drift apart (they did: two constructor calls of twelve positional arguments). The
 * authenticator itself takes its collaborators in three named groups: sessions, accounts, Basic.
 */
export function makeRequestAuthenticator(p: RequestAuthenticatorParts): RequestAuthenticator {
  const whitelists = new Map(
    Object.entries(p.oauth.policies ?? {}).flatMap(([id, policy]) => (policy.whitelist === undefined ? [] : [[id, policy.whitelist] as const])),
  );
  return new RequestAuthenticator(
    {
      sealer: p.sealer,
      revoked: p.revoked,
      clock: p.clock,
      oauth: { providers: p.providers, whitelist: p.oauth.whitelist, whitelists },
      activity: p.activity,
      renewal: p.renewal,
    },
    { users: p.users, fingerprints: p.fingerprints },
    { verified: p.verified, guard: p.guard, credentials: p.credentials },
    p.settings,
    p.audit,
    p.tokens ?? null,
    p.jwts ?? null,
  );
}
