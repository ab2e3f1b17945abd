import type { Clock } from '../application/ports/clock';
import type { SessionIndex } from '../application/ports/session-index';
import { HmacTokenSecrets } from '../adapters/crypto/hmac-token-secrets';
import { TOKEN_RECORD_GRACE_MS } from '../domain/access-token';
import type { AuditLog } from '../application/ports/audit-log';
import type { RevokedSessions } from '../application/ports/revoked-sessions';
import type { UserStore } from '../application/ports/user-store';
import type { LoginGuard } from '../application/password/login-guard';
import type { AccessTokens } from '../application/tokens/access-tokens';
import type { TokenSecrets } from '../application/tokens/token-secrets';
import { TokenAuthenticator } from '../application/tokens/token-authenticator';
import { lazyModule } from '../adapters/system/lazy-module';
import type { JwtHolder } from './holders';
import { optionalModules } from './optional-modules';
import { KeyedHashVerifiedCredentials } from '../adapters/crypto/keyed-hash-verified-credentials';
import { LogoutNotifyingRevokedSessions } from '../application/oidc/logout-notifying-revoked-sessions';
import { GetCurrentUserUseCase } from '../application/sessions/get-current-user';
import { LastSeenRecorder } from '../application/sessions/last-seen-recorder';
import { LogoutUseCase } from '../application/sessions/logout';
import { PendingSecondFactors } from '../application/sessions/pending-second-factors';
import type { RequestAuthenticator } from '../application/sessions/request-authenticator';
import { SessionIssuer } from '../application/sessions/session-issuer';
import type { VerifiedCredentials } from '../application/sessions/verified-credentials';
import type { TypedContainer } from './binding';
import type { GatewaySettings } from '../application/settings';
import { lastUseGranularityMs } from '../domain/session-lifetime';
import type { Config } from '../config/load';
import { makeRequestAuthenticator } from './request-authenticator';
import type { Resources } from './resources';
import { bindStore } from './state';
import { TOKENS } from './tokens';

/** How often at most the noted "last seen" times are written, in one batch each time (more often for a short idle timeout). */
const LAST_SEEN_FLUSH_MS = 15_000;

/**
 * Sessions: the one issuer, the one request authenticator (cookie, Basic), the revocations and
 * the session index (durable records: PostgreSQL whenever it is configured, Redis or not), the
 * last-seen recorder, logout and the current user.
 */
export function bindSessions(c: TypedContainer, config: Pick<Config, 'secret' | 'tokens' | 'jwtIssuers' | 'oidc'>): void {
  bindStore(c, TOKENS.RevokedSessionsStore, 'records', (s) => s.revokedSessions());
  // With OpenID Connect clients, every session that ends tells the apps it logged in to (issue 35).
  c.bind(
    TOKENS.RevokedSessions,
    (store: RevokedSessions, audit: AuditLog): RevokedSessions =>
      config.oidc.clients.length === 0 ? store : new LogoutNotifyingRevokedSessions(store, c.get(TOKENS.EndOidcSessionLoginsUseCase), audit),
    [TOKENS.RevokedSessionsStore, TOKENS.AuditLog],
  );
  bindStore(c, TOKENS.SessionIndex, 'records', (s) => s.sessionIndex());
  c.bind(TOKENS.VerifiedCredentials, (): VerifiedCredentials => new KeyedHashVerifiedCredentials(config.secret));
  c.bind(
    TOKENS.LastSeenRecorder,
    (index: SessionIndex, clock: Clock, resources: Resources, settings: GatewaySettings) => {
      // Issue 33: notes as fresh as the idle timeout needs, written at least as often (ADR 0042).
      const idleTimeoutMs = settings.idleTimeoutMs ?? 0;
      const granularityMs = lastUseGranularityMs(idleTimeoutMs);
      const recorder = new LastSeenRecorder(index, clock, undefined, { idleTimeoutMs, granularityMs });
      let timer: NodeJS.Timeout | null = null;
      resources.onStart(() => {
        timer = setInterval(() => void recorder.flush(), Math.min(LAST_SEEN_FLUSH_MS, granularityMs));
        // The flush must never keep a process alive that has nothing else to do.
        timer.unref();
      });
      resources.add(async () => {
        if (timer !== null) clearInterval(timer);
        await recorder.flush();
      });
      return recorder;
    },
    [TOKENS.SessionIndex, TOKENS.Clock, TOKENS.Resources, TOKENS.Settings],
  );
  c.bind(TOKENS.RequestAuthenticator, (): RequestAuthenticator =>
    makeRequestAuthenticator({
      sealer: c.get(TOKENS.SessionSealer),
      revoked: c.get(TOKENS.RevokedSessions),
      users: c.get(TOKENS.UserStore),
      verified: c.get(TOKENS.VerifiedCredentials),
      guard: c.get(TOKENS.LoginGuard),
      credentials: c.get(TOKENS.CredentialCheck),
      clock: c.get(TOKENS.Clock),
      settings: c.get(TOKENS.Settings),
      audit: c.get(TOKENS.AuditLog),
      fingerprints: c.get(TOKENS.CredentialFingerprints),
      providers: c.get(TOKENS.OAuthProviders),
      oauth: c.get(TOKENS.OAuthSettings),
      activity: c.get(TOKENS.LastSeenRecorder),
      renewal: c.get(TOKENS.SessionIssuer),
      // TOKENS=false: a presented token never passes (answered 401 invalid_token).
      tokens: config.tokens ? c.get(TOKENS.TokenAuthenticator) : null,
      jwts: c.get(TOKENS.Jwts).authenticator,
    }),
  );
  bindTokenAuthentication(c, config);
  bindJwtAuthentication(c, config);
  c.bindClass(TOKENS.SessionIssuer, SessionIssuer, [
    TOKENS.IdGenerator,
    TOKENS.Clock,
    TOKENS.Settings,
    TOKENS.SessionIndex,
    TOKENS.AuditLog,
    TOKENS.SessionSealer,
  ]);
  c.bindClass(TOKENS.LogoutUseCase, LogoutUseCase, [TOKENS.RequestAuthenticator, TOKENS.RevokedSessions, TOKENS.AuditLog]);
  c.bindClass(TOKENS.PendingSecondFactors, PendingSecondFactors, [TOKENS.UserStore, TOKENS.PasskeyCredentialsIfOn]);
  c.bindClass(TOKENS.GetCurrentUserUseCase, GetCurrentUserUseCase, [TOKENS.RequestAuthenticator, TOKENS.PendingSecondFactors]);
}

/** How often the noted "last used" times of access tokens are written, in one batch each time. */
const TOKEN_USE_FLUSH_MS = 15_000;
/** How often forgotten token records are pruned. */
const TOKEN_PRUNE_MS = 3600_000;

/** Access tokens on requests (issue 32): the store, the secrets' keyed hash, and the one token check. */
function bindTokenAuthentication(c: TypedContainer, config: Pick<Config, 'secret'>): void {
  // Durable records, like the revocations that end them: PostgreSQL whenever it is configured.
  bindStore(c, TOKENS.AccessTokens, 'records', (s) => s.accessTokens());
  c.bind(TOKENS.TokenSecrets, (): TokenSecrets => new HmacTokenSecrets(config.secret));
  c.bind(
    TOKENS.TokenAuthenticator,
    (
      ...[tokens, secrets, revoked, users, guard, clock, audit, resources]: [
        AccessTokens,
        TokenSecrets,
        RevokedSessions,
        UserStore,
        LoginGuard,
        Clock,
        AuditLog,
        Resources,
      ]
    ) => {
      const authenticator = new TokenAuthenticator({ tokens, secrets, revoked, users, guard, clock, audit });
      let timer: NodeJS.Timeout | null = null;
      let pruning: NodeJS.Timeout | null = null;
      resources.onStart(() => {
        timer = setInterval(() => void authenticator.flush().catch(() => undefined), TOKEN_USE_FLUSH_MS);
        timer.unref();
        // Records of tokens revoked or expired a grace period ago leave the account page and the store.
        pruning = setInterval(() => void tokens.prune(clock.now() - TOKEN_RECORD_GRACE_MS).catch(() => undefined), TOKEN_PRUNE_MS);
        pruning.unref();
      });
      resources.add(async () => {
        if (timer !== null) clearInterval(timer);
        if (pruning !== null) clearInterval(pruning);
        await authenticator.flush().catch(() => undefined);
      });
      return authenticator;
    },
    [TOKENS.AccessTokens, TOKENS.TokenSecrets, TOKENS.RevokedSessions, TOKENS.UserStore, TOKENS.LoginGuard, TOKENS.Clock, TOKENS.AuditLog, TOKENS.Resources],
  );
}

/** The JWT verifier and authenticator, loaded only for a gateway with an issuer (ADR 0015). */
const jwtModules = lazyModule(() => ({
  ...(require('../adapters/jwt/jose-jwt-verifier') as typeof import('../adapters/jwt/jose-jwt-verifier')),
  ...(require('../application/tokens/jwt-authenticator') as typeof import('../application/tokens/jwt-authenticator')),
}));

/**
 * Workload JWTs (issue 32): jose and the verifier only when an issuer is configured (ADR 0015).
 * The issuers' keys are fetched in the background at start, so the first token does not wait.
 */
function bindJwtAuthentication(c: TypedContainer, config: Pick<Config, 'jwtIssuers'>): void {
  c.bind(
    TOKENS.Jwts,
    (clock: Clock, audit: AuditLog, resources: Resources): JwtHolder => {
      if (config.jwtIssuers.length === 0) return { authenticator: null };
      const { JoseJwtVerifier, JwtAuthenticator } = jwtModules();
      const verifier = new JoseJwtVerifier(optionalModules.jose(), config.jwtIssuers);
      resources.onStart(() => verifier.warm());
      return { authenticator: new JwtAuthenticator({ verifier, clock, audit }) };
    },
    [TOKENS.Clock, TOKENS.AuditLog, TOKENS.Resources],
  );
}
