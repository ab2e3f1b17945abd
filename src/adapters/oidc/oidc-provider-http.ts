import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { Clock } from '../../application/ports/clock';
import { acrValuesOf, type AuthenticationAsk } from '../../domain/authentication-ask';
import { AUTHENTICATION_CONTEXTS } from '../../domain/login-methods';
import { addressBlock } from '../../domain/ip-address';
import { PasswordHasherBusyError } from '../../application/ports/password-hasher';
import type { OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import type { AuthorizeOidcLoginError, AuthorizeOidcLoginUseCase } from '../../application/oidc/authorize-oidc-login';
import type { FindOidcAccountUseCase } from '../../application/oidc/find-oidc-account';
import type { LogoutUseCase } from '../../application/sessions/logout';
import type { RememberOidcLoginUseCase } from '../../application/oidc/remember-oidc-login';
import type { TakeFrontchannelLogoutsUseCase } from '../../application/oidc/frontchannel-logouts';
import { isPublicClient, OIDC_SCOPES, type OidcClient, type OidcScope } from '../../domain/oidc-client';
import type { Logger } from '../system/logger';
import type { ClientAddressResolver } from '../http/client-address';
import { clearCookie, readCookie, SESSION_COOKIE, type CookieSettings } from '../http/cookies';
import { clientAddressOf } from '../http/request-facts';
import { artifactsProviderAdapter } from './artifacts-provider-adapter';
import type { OidcProviderInstance, OidcProviderModule, ProviderClient, ProviderContext, ProviderGrant, ProviderInteraction } from './oidc-provider-module';
import { errorPage, frontchannelLogoutPage, frontchannelPageHeaders, logoutPage, loggedOutPage, PAGE_SECURITY_HEADERS } from './oidc-pages';

/** Where the provider's endpoints live; discovery alone stays where the specification puts it. */
export const OIDC_PREFIX = '/oidc';
export const DISCOVERY_PATH = '/.well-known/openid-configuration';
const INTERACTION = /^\/oidc\/interaction\/([A-Za-z0-9_-]{1,64})$/;
const AUTHORIZATION = `${OIDC_PREFIX}/auth`;
/**
 * The longest authorization request (its whole URL): the longest address the login page returns
 * to (see redirect-target), and what bounds the interaction a logged-in person's request stores.
 */
const MAX_AUTHORIZATION_URL = 4096;
/** Where an interaction keeps the instant it was first shown (milliseconds), among its submissions. */
const STARTED_AT = 'portcullis_started_at';
/**
 * `max_age=0` as the gateway carries it past the library, which would turn it into `prompt=login`
 * (a whole new login): here it asks for a proof made after the request, which a step-up brings.
 */
const PROOF_AFTER_REQUEST = 'portcullis_max_age_zero';

/**
 * The scopes and the claims each releases (`groups` only with the `groups` scope). `openid` brings
 * how and when the person proved who they are (issue 33): `auth_time`, `amr` and `acr` are in every
 * ID token, not only when `max_age` or `acr_values` asked for them.
 */
const CLAIMS: Record<Exclude<OidcScope, 'offline_access'>, string[]> = {
  openid: ['sub', 'auth_time', 'amr', 'acr'],
  email: ['email', 'email_verified'],
  profile: ['name', 'preferred_username'],
  groups: ['groups'],
};

export interface OidcUseCases {
  readonly authorizeOidcLogin: AuthorizeOidcLoginUseCase;
  readonly findOidcAccount: FindOidcAccountUseCase;
  readonly logout: LogoutUseCase;
  readonly rememberOidcLogin: RememberOidcLoginUseCase;
  /** Front-channel logout pages of a session that just ended (issue 35); absent: none are shown. */
  readonly takeFrontchannelLogouts?: TakeFrontchannelLogoutsUseCase;
}

export interface OidcProviderSettings {
  /** APP_URL exactly: the issuer, and the origin every endpoint is published under. */
  readonly issuer: string;
  readonly clients: readonly OidcClient[];
  /** Private JWKs; the first RS256 key signs. */
  readonly signingKeys: readonly Record<string, unknown>[];
  /** Keys that sign the provider's cookies (derived from SECRET). */
  readonly cookieKeys: readonly string[];
  readonly ttl: {
    readonly accessTokenSeconds: number;
    readonly refreshTokenSeconds: number;
    readonly sessionSeconds: number;
  };
  readonly artifacts: OidcArtifacts;
  readonly clock: Clock;
  readonly cookies: CookieSettings;
  readonly clientAddress: ClientAddressResolver;
  readonly logger: Logger;
  /** What checks a secret against a client's CLIENT_SECRET_HASH; without it a hashed client never authenticates. */
  readonly hashedSecrets?: ClientSecretHashes;
  /**
   * The secret registered with the library for a client configured with a hash: it must be
   * unguessable, and is never accepted (the hash alone decides). Default: 32 random bytes.
   */
  readonly placeholderSecret?: (clientId: string) => string;
}

/** Checks a presented client secret against a configured hash (HashedClientSecrets). */
export interface ClientSecretHashes {
  /** True only when `presented` matches `hash`; rejects only with PasswordHasherBusyError when overloaded. */
  verify(presented: string, hash: string, requester?: string): Promise<boolean>;
}

/** The provider as the gateway's Koa app sees it: one middleware in front of the UI. */
export interface OidcHttp {
  readonly middleware: Koa.Middleware;
}

/**
 * The requested scopes a grant may hold: those of the client's SCOPES. The provider already refuses
 * a request for another; a grant never relies on that alone.
 */
function allowedScope(client: OidcClient | undefined, requested: unknown): string {
  const asked = typeof requested === 'string' ? requested.split(' ') : ['openid'];
  return asked.filter((s) => client?.scopes.some((allowed) => allowed === s) === true).join(' ');
}

/** How the provider's own messages name a model ("AuthorizationCode": "authorization code"). */
const kindLabel = (kind: string): string => kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

const isOidcPath = (path: string): boolean => path === DISCOVERY_PATH || path === OIDC_PREFIX || path.startsWith(`${OIDC_PREFIX}/`);

const randomPlaceholder = (): string => randomBytes(32).toString('base64url');

/**
 * The client's registration as oidc-provider reads it. A client configured with a hash is
 * registered with `placeholder` as its secret (the library requires one): the comparison is
 * replaced for it (requireRegisteredAuthMethod), so the placeholder is never accepted.
 */
function clientMetadata(client: OidcClient, placeholder: (clientId: string) => string): Record<string, unknown> {
  const secret = client.secretHash !== undefined ? placeholder(client.clientId) : client.secret;
  return {
    client_id: client.clientId,
    ...(secret === null ? {} : { client_secret: secret }),
    client_name: client.name,
    redirect_uris: [...client.redirectUris],
    post_logout_redirect_uris: [...client.postLogoutRedirectUris],
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: isPublicClient(client) ? 'none' : client.tokenEndpointAuthMethod,
    // What the client may be granted (OIDC_CLIENTS_<ID>_SCOPES): the provider refuses any other with invalid_scope.
    scope: client.scopes.join(' '),
    // auth_time in every ID token, not only when max_age or prompt=login asked for it: an app can always tell how old the login is.
    require_auth_time: true,
    ...(client.backchannelLogout === undefined
      ? {}
      : { backchannel_logout_uri: client.backchannelLogout.uri, backchannel_logout_session_required: client.backchannelLogout.sessionRequired }),
  };
}

/** What the provider's pieces share: the library, the use cases, the settings and the configured clients by id. */
interface OidcWiring {
  readonly module: OidcProviderModule;
  readonly useCases: OidcUseCases;
  readonly settings: OidcProviderSettings;
  readonly byId: ReadonlyMap<string, OidcClient>;
}

const requestIdOf = (ctx: Koa.Context): string | undefined =>
  (ctx.state as { requestId?: string }).requestId ?? (ctx.req.headers['x-request-id'] as string | undefined);
const sessionTokenOf = (req: IncomingMessage): string | undefined => readCookie(req.headers.cookie, SESSION_COOKIE);
const ipOf = (req: IncomingMessage, settings: OidcProviderSettings): string => clientAddressOf(req, settings.clientAddress);

/** A grant to the client for a person (configured clients are first-party: no consent screen). */
const fullGrant = (provider: OidcProviderInstance, accountId: string, clientId: string): ProviderGrant => new provider.Grant({ accountId, clientId });

/**
 * The library's interaction policy with one more login check. The provider's own session is only a
 * cache of the gateway's: a gateway logout, an expired or revoked session, a TOTP code still owed
 * or another person now logged in sends the person through the login step again (and
 * `prompt=none` answers login_required).
 */
function interactionPolicy({ module, useCases, settings }: OidcWiring): ReturnType<OidcProviderModule['interactionPolicy']['base']> {
  const { Check } = module.interactionPolicy;
  const policy = module.interactionPolicy.base();
  policy.get('login')?.checks.add(
    new Check('gateway_session', 'the gateway session ended, belongs to someone else or does not meet the acr asked', 'login_required', async (ctx) => {
      const clientId = ctx.oidc.client?.clientId;
      const session = ctx.oidc.session;
      const accountId = session?.accountId;
      if (clientId === undefined || session === undefined || accountId === undefined) return Check.REQUEST_PROMPT;
      const result = await useCases.authorizeOidcLogin.execute({
        clientId,
        sessionToken: sessionTokenOf(ctx.req),
        ip: ipOf(ctx.req, settings),
        requestId: requestIdOf(ctx),
        recordRefusal: false,
        // max_age is the library's next check, on the login time set here.
        ask: { acr: acrValuesOf(ctx.oidc.params?.acr_values), provenSince: null },
      });
      if (!result.ok || result.value.subject !== accountId) return Check.REQUEST_PROMPT;
      // max_age=0: no proof made before this request will do, until the interaction has its answer.
      if (ctx.oidc.params?.[PROOF_AFTER_REQUEST] !== undefined && (ctx.oidc as { result?: { login?: unknown } }).result?.login === undefined)
        return Check.REQUEST_PROMPT;
      // The provider's session is a cache of the gateway's: a step-up since (through forward auth,
      // or another application) moves auth_time and adds to amr and acr in the next ID token.
      const { authTime, amr, acr } = result.value;
      if (session.loginTs !== authTime) session.loginTs = authTime;
      if (session.acr !== acr) session.acr = acr;
      if (session.amr?.join(' ') !== amr.join(' ')) session.amr = amr.length === 0 ? undefined : [...amr];
      return Check.NO_NEED_TO_PROMPT;
    }),
    // First: the checks after it (max_age among them) read the login time it brings up to date.
    0,
  );
  return policy;
}

/** Every route of the provider under {@link OIDC_PREFIX}. */
const PROVIDER_ROUTES = {
  authorization: AUTHORIZATION,
  token: `${OIDC_PREFIX}/token`,
  userinfo: `${OIDC_PREFIX}/me`,
  jwks: `${OIDC_PREFIX}/jwks`,
  revocation: `${OIDC_PREFIX}/token/revocation`,
  introspection: `${OIDC_PREFIX}/token/introspection`,
  end_session: `${OIDC_PREFIX}/session/end`,
  // Unused features keep their routes under the prefix too, off the login UI's paths.
  registration: `${OIDC_PREFIX}/reg`,
  pushed_authorization_request: `${OIDC_PREFIX}/request`,
  code_verification: `${OIDC_PREFIX}/device`,
  device_authorization: `${OIDC_PREFIX}/device/auth`,
  backchannel_authentication: `${OIDC_PREFIX}/backchannel`,
  challenge: `${OIDC_PREFIX}/challenge`,
  credential: `${OIDC_PREFIX}/credential`,
};

/** The library's token lifetimes: the configured ones, and short fixed ones for the rest. */
function providerTtl(settings: OidcProviderSettings): Record<string, number> {
  return {
    AccessToken: settings.ttl.accessTokenSeconds,
    AuthorizationCode: 60,
    IdToken: settings.ttl.accessTokenSeconds,
    RefreshToken: settings.ttl.refreshTokenSeconds,
    Grant: settings.ttl.refreshTokenSeconds,
    Session: settings.ttl.sessionSeconds,
    Interaction: 10 * 60,
    ClientCredentials: 10 * 60,
    DeviceCode: 10 * 60,
    BackchannelAuthenticationRequest: 10 * 60,
    PreAuthorizedCode: 10 * 60,
  };
}

/** The provider's features: userinfo, revocation and introspection of a client's own tokens, RP-initiated logout with the gateway's pages. */
function providerFeatures({ settings, byId }: OidcWiring): Record<string, unknown> {
  return {
    devInteractions: { enabled: false },
    // Discovery advertises it and clients register for it; the tokens themselves go through the gateway's durable queue (see backchannelThroughQueue).
    backchannelLogout: { enabled: true },
    userinfo: { enabled: true },
    revocation: {
      enabled: true,
      // A client revokes its own tokens only.
      allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) => token.clientId === client.clientId,
    },
    introspection: {
      enabled: true,
      // A client learns about its own tokens only, never another client's.
      allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) => token.clientId === client.clientId,
    },
    rpInitiatedLogout: {
      enabled: true,
      logoutSource: async (ctx: ProviderContext, form: string) => {
        const client = ctx.oidc.client === undefined ? undefined : byId.get(ctx.oidc.client.clientId);
        ctx.set(PAGE_SECURITY_HEADERS);
        ctx.type = 'html';
        ctx.body = logoutPage(form, client?.name ?? null);
      },
      postLogoutSuccessSource: async (ctx: ProviderContext) => {
        ctx.set(PAGE_SECURITY_HEADERS);
        ctx.type = 'html';
        ctx.body = loggedOutPage(settings.issuer);
      },
    },
  };
}

/** The account a token or an authorization names, with its claims; undefined when the person may no longer use the client. */
function accountFinder({ useCases }: OidcWiring) {
  return async function findAccount(ctx: ProviderContext, sub: string, token?: { clientId?: unknown; iat?: unknown; iiat?: unknown }) {
    // The token's client (refresh, userinfo, introspection), else the request's (a code redeemed, an ID token issued).
    const clientId = typeof token?.clientId === 'string' ? token.clientId : ctx.oidc?.client?.clientId;
    // When the token (a refresh token: the first of its rotations) was issued: ended grants refuse it.
    const issued = token?.iiat ?? token?.iat;
    const issuedAt = typeof issued === 'number' ? issued : undefined;
    const found = await useCases.findOidcAccount.execute({ subject: sub, clientId, issuedAt });
    if (!found.ok) return undefined;
    const { identity } = found.value;
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          email: identity.email,
          // Addresses come from the administrator (USERS, the users file, the directory) or from a provider that verified them (the OAuth login refuses unverified ones).
          email_verified: true,
          name: identity.name === '' ? identity.username : identity.name,
          preferred_username: identity.username,
          groups: [...identity.groups],
        };
      },
    };
  };
}

/** The existing grant of the session's person for the client, or a new one: configured clients are first-party, no consent screen. */
function existingGrantLoader({ byId }: OidcWiring, provider: () => OidcProviderInstance) {
  return async function loadExistingGrant(
    ctx: ProviderContext & {
      oidc: { result?: { consent?: { grantId?: string } }; session: { accountId?: string; grantIdFor(id: string): string | undefined } };
    },
  ) {
    const accountId = ctx.oidc.session.accountId;
    const clientId = ctx.oidc.client?.clientId;
    if (accountId === undefined || clientId === undefined) return undefined;
    const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(clientId);
    const existing = grantId === undefined ? undefined : ((await provider().Grant.find(grantId)) as (ProviderGrant & { accountId?: string }) | undefined);
    const grant = existing !== undefined && existing.accountId === accountId ? existing : fullGrant(provider(), accountId, clientId);
    grant.addOIDCScope(allowedScope(byId.get(clientId), ctx.oidc.params?.scope));
    await grant.save();
    return grant;
  };
}

/** oidc-provider's configuration; `provider` is the instance built from it (grants are looked up in it once it exists). */
function providerConfiguration(wiring: OidcWiring, provider: () => OidcProviderInstance): Record<string, unknown> {
  const { module, settings, byId } = wiring;
  return {
    adapter: artifactsProviderAdapter(settings.artifacts, settings.clock, (kind) => new module.errors.InvalidGrant(`${kindLabel(kind)} already consumed`)),
    clients: settings.clients.map((client) => clientMetadata(client, settings.placeholderSecret ?? randomPlaceholder)),
    jwks: { keys: settings.signingKeys.map((k) => ({ ...k })) },
    cookies: {
      keys: [...settings.cookieKeys],
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    scopes: [...OIDC_SCOPES],
    claims: CLAIMS,
    // Discovery's acr_values_supported: one factor, two factors, phishing-resistant (a passkey).
    acrValues: [...AUTHENTICATION_CONTEXTS],
    // Relying parties that read the ID token only (many do) still get e-mail, name and groups.
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    // What a configured client can be registered for; the library's default list also names JWT methods no client here can use.
    // In the library's order, basic first: some relying parties (mod_auth_openidc) take the first method discovery lists.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    // The redirect URI is always sent and compared exactly, even for a client with only one.
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: (_ctx: unknown, client: { clientAuthMethod: string }) => client.clientAuthMethod === 'none' },
    interactions: {
      policy: interactionPolicy(wiring),
      url: (_ctx: unknown, interaction: { uid: string }) => `${OIDC_PREFIX}/interaction/${interaction.uid}`,
    },
    routes: { ...PROVIDER_ROUTES },
    // Kept with the authorization's parameters, so the interaction sees it (see maxAgeZeroAsProofAfterRequest).
    extraParams: [PROOF_AFTER_REQUEST],
    features: providerFeatures(wiring),
    // Front-channel logout is the gateway's own (the library has none): discovery says so.
    discovery: {
      claim_types_supported: ['normal'],
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    },
    // Only configured clients, and they share origins with their redirect URIs (single-page apps).
    clientBasedCORS: (_ctx: unknown, origin: string, client: { clientId: string }) => {
      const known = byId.get(client.clientId);
      return known !== undefined && known.redirectUris.some((uri) => new URL(uri).origin === origin);
    },
    findAccount: accountFinder(wiring),
    // Configured clients are first-party: the grant covers what the client asked for, no consent screen.
    loadExistingGrant: existingGrantLoader(wiring, provider),
    rotateRefreshToken: true,
    ttl: providerTtl(settings),
    async renderError(ctx: ProviderContext, out: { error?: unknown; error_description?: unknown }) {
      ctx.set(PAGE_SECURITY_HEADERS);
      ctx.type = 'html';
      ctx.body = errorPage(String(out.error ?? 'server_error'), typeof out.error_description === 'string' ? out.error_description : '');
    },
  };
}

/**
 * RP-initiated logout: once the person confirmed ("Yes, sign me out") and the provider ended its
 * session, the gateway session ends too, through the logout use case (durable revocation). The
 * confirmation form carries the provider's xsrf token bound to its session cookie, so a
 * cross-site page cannot submit it: it is a request from this site.
 */
function endGatewaySessionOnLogout({ useCases, settings }: OidcWiring, provider: OidcProviderInstance): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== 'end_session_confirm' || ctx.status !== 303 || ctx.oidc.params?.logout === undefined) return;
    const ended = await useCases.logout.execute({
      sessionToken: sessionTokenOf(ctx.req),
      fromThisSite: true,
      ip: ipOf(ctx.req, settings),
      requestId: requestIdOf(ctx),
    });
    if (ended.ok) {
      ctx.append('Set-Cookie', clearCookie(SESSION_COOKIE, settings.cookies));
      const id = ended.value.sessionId;
      const pages = id === undefined ? [] : ((await useCases.takeFrontchannelLogouts?.execute(id)) ?? []);
      if (pages.length === 0) return;
      // Front-channel logout: the apps' logout pages in hidden frames, then where the provider was sending the browser.
      const next = ctx.response.get('Location') || `${settings.issuer}/login`;
      ctx.remove('Location');
      ctx.status = 200;
      ctx.set(frontchannelPageHeaders(pages));
      ctx.type = 'html';
      ctx.body = frontchannelLogoutPage(pages, next);
      return;
    }
    ctx.remove('Location');
    ctx.status = 503;
    ctx.set(PAGE_SECURITY_HEADERS);
    ctx.type = 'html';
    ctx.body = errorPage('temporarily_unavailable', 'Your session could not be ended right now. Try again in a moment.');
  });
}

/**
 * Back-channel logout goes through the gateway's durable queue, for every way a session ends
 * (issue 35): the library's own inline delivery (RP-initiated logout only, not retried) is turned
 * off, and every ID token carries `sid`, so an app can match the logout token to its session.
 */
function backchannelThroughQueue(provider: OidcProviderInstance): void {
  const prototype = provider.Client.prototype;
  prototype.backchannelLogout = async () => undefined;
  prototype.includeSid = () => true;
}

/**
 * When the provider gives an app a code, notes which gateway session the login came from (and the
 * app's `sid` and grant): when that session ends, however it ends, the app is told and its tokens
 * end. A failure to note it is logged; the login itself has already succeeded.
 */
function rememberSessionOfCode({ useCases, settings }: OidcWiring, provider: OidcProviderInstance): void {
  provider.use(async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    if (route !== 'authorization' && route !== 'resume') return;
    const code = ctx.oidc.entities?.AuthorizationCode as { accountId?: unknown; clientId?: unknown; sid?: unknown; grantId?: unknown } | undefined;
    if (code === undefined || typeof code.accountId !== 'string' || typeof code.clientId !== 'string') return;
    try {
      await useCases.rememberOidcLogin.execute({
        sessionToken: sessionTokenOf(ctx.req),
        clientId: code.clientId,
        subject: code.accountId,
        sid: typeof code.sid === 'string' ? code.sid : null,
        grantId: typeof code.grantId === 'string' ? code.grantId : null,
      });
    } catch (e) {
      settings.logger.warn('the session of an OpenID Connect login could not be noted; its logout will not reach the app', {
        client: code.clientId,
        error: e instanceof Error ? e.name : 'unknown',
      });
    }
  });
}

function page(ctx: Koa.Context, status: number, html: string): void {
  ctx.status = status;
  ctx.set(PAGE_SECURITY_HEADERS);
  ctx.type = 'html';
  ctx.body = html;
}

/**
 * What the relying party asks of the login's age: `prompt=login` (`freshLogin`: a new login, every
 * step of it, after this instant) or `max_age` seconds (`provenSince`: a proof after this instant,
 * which a step-up brings), else nothing. Measured from the authorization's start, kept in the
 * interaction (so every replica, and every later visit, agrees): the person proves it after that
 * instant, and `auth_time` is that proof's. A visit time would move on with every visit.
 */
async function loginAgeAsked(details: ProviderInteraction, clock: Clock): Promise<{ freshLogin?: number; provenSince?: number }> {
  const prompts = typeof details.params.prompt === 'string' ? details.params.prompt.split(' ') : [];
  const maxAge = details.params[PROOF_AFTER_REQUEST] !== undefined ? 0 : details.params.max_age === undefined ? NaN : Number(details.params.max_age);
  const loginPrompt = prompts.includes('login');
  if (!loginPrompt && !Number.isFinite(maxAge)) return {};
  const stored = details.result?.[STARTED_AT];
  const started = typeof stored === 'number' ? stored : clock.now();
  if (stored !== started) {
    details.result = { ...details.result, [STARTED_AT]: started };
    await details.persist();
  }
  return loginPrompt ? { freshLogin: started } : { provenSince: started - maxAge * 1000 };
}

/** What the authorization asks of the login: its `acr_values` and the `max_age` instant (see loginAgeAsked); undefined: nothing. */
function askOf(details: ProviderInteraction, provenSince: number | undefined): AuthenticationAsk | undefined {
  const acr = acrValuesOf(details.params.acr_values);
  return acr === null && provenSince === undefined ? undefined : { acr, provenSince: provenSince ?? null };
}

/** `amr` for the provider's login, left out for a session that records no proof. */
const amrClaim = (amr: readonly string[]): { amr?: string[] } => (amr.length === 0 ? {} : { amr: [...amr] });

/** Where a person goes whose gateway login does not open the client: the login page (again), the client with access_denied, or an error page. */
async function refusedInteraction(
  ctx: Koa.Context,
  provider: OidcProviderInstance,
  error: AuthorizeOidcLoginError,
  back: string,
  issuer: string,
): Promise<void> {
  const { req, res } = ctx;
  switch (error.code) {
    case 'login_required':
      // The gateway's own login page, every method and TOTP included, then back here.
      return ctx.redirect(`/login?redirect_uri=${back}`);
    case 'fresh_login_required':
      // The same page, shown although a session is live: the relying party wants the person to log in again now.
      return ctx.redirect(`/login?redirect_uri=${back}&prompt=login`);
    case 'step_up_required':
      // The step-up forward auth sends a session to: the login page asks only what is missing, then comes back here.
      return ctx.redirect(`${issuer}/login?step_up=${encodeURIComponent(error.reference ?? '')}`);
    case 'unmet_authentication_requirements': {
      // The acr asked cannot be met by this account (OpenID Connect's unmet_authentication_requirements): the relying party hears so.
      const to = await provider.interactionResult(
        req,
        res,
        { error: 'unmet_authentication_requirements', error_description: 'the authentication context asked for cannot be met by this account' },
        { mergeWithLastSubmission: false },
      );
      ctx.status = 303;
      return ctx.redirect(to);
    }
    case 'access_denied': {
      const to = await provider.interactionResult(
        req,
        res,
        { error: 'access_denied', error_description: 'this account may not use this application' },
        { mergeWithLastSubmission: false },
      );
      ctx.status = 303;
      return ctx.redirect(to);
    }
    case 'unknown_client':
      return page(ctx, 400, errorPage('invalid_client', 'This application is not configured here.'));
    case 'store_unavailable':
      return page(ctx, 503, errorPage('temporarily_unavailable', 'The login service is unavailable right now. Try again in a moment.'));
    default: {
      const never: never = error;
      return never;
    }
  }
}

/** The interaction page: the gateway login decides, and the provider is told who logged in (or why not). */
async function interaction(wiring: OidcWiring, provider: OidcProviderInstance, ctx: Koa.Context, uid: string): Promise<void> {
  const { useCases, settings, byId } = wiring;
  const { req, res } = ctx;
  let details;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    details = null;
  }
  if (details === null || details.uid !== uid)
    return page(
      ctx,
      400,
      errorPage('invalid_request', 'This login request expired or belongs to another browser. Go back to the application and start again.'),
    );
  const clientId = String(details.params.client_id ?? '');
  let age: { freshLogin?: number; provenSince?: number };
  try {
    age = await loginAgeAsked(details, settings.clock);
  } catch {
    // The interaction could not be saved (the store is down): never fall back to accepting the old login.
    return page(ctx, 503, errorPage('temporarily_unavailable', 'The login service is unavailable right now. Try again in a moment.'));
  }
  const result = await useCases.authorizeOidcLogin.execute({
    clientId,
    sessionToken: sessionTokenOf(req),
    ip: ipOf(req, settings),
    requestId: requestIdOf(ctx),
    loggedInSince: age.freshLogin,
    ask: askOf(details, age.provenSince),
    stepUpReturnTo: `${settings.issuer}${OIDC_PREFIX}/interaction/${uid}`,
  });
  const back = encodeURIComponent(`${settings.issuer}${OIDC_PREFIX}/interaction/${uid}`);
  if (!result.ok) return refusedInteraction(ctx, provider, result.error, back, settings.issuer);
  const grant = fullGrant(provider, result.value.subject, clientId);
  grant.addOIDCScope(allowedScope(byId.get(clientId), details.params.scope));
  const grantId = await grant.save();
  let to: string;
  try {
    to = await provider.interactionResult(
      req,
      res,
      {
        // auth_time is the gateway session's latest proof, not this redirect's: an app asking max_age sees how old it really is.
        login: { accountId: result.value.subject, ts: result.value.authTime, acr: result.value.acr, ...amrClaim(result.value.amr) },
        consent: { grantId },
      },
      { mergeWithLastSubmission: false },
    );
  } catch {
    // The interaction expired (or its cookie went) between the two reads: start again from the app.
    return page(ctx, 400, errorPage('invalid_request', 'This login request expired. Go back to the application and start again.'));
  }
  ctx.status = 303;
  ctx.redirect(to);
}

/**
 * An authorization request stores an interaction for ten minutes (its parameters included); one
 * without a gateway login is nobody's, so it stores nothing: the browser goes to the login page
 * first and comes back with the same request, which the provider then starts. A POSTed request
 * is turned into the same GET (303), every request is at most {@link MAX_AUTHORIZATION_URL}.
 * `prompt=login` and `max_age` (and {@link PROOF_AFTER_REQUEST}) are dropped from the request the
 * login page returns to: the login in between is as fresh as they ask, and kept they would ask for
 * another. Unknown clients, unregistered redirect URIs and `prompt=none` go to the provider, which
 * answers them without storing. True when answered here.
 */
async function authorizationWithoutLogin({ useCases, settings, byId }: OidcWiring, ctx: Koa.Context): Promise<boolean> {
  if (ctx.method === 'POST' && ctx.is('application/x-www-form-urlencoded') !== false) {
    const body = await readFormBody(ctx.req, MAX_AUTHORIZATION_URL);
    if (body === null) {
      page(ctx, 400, errorPage('invalid_request', 'This login request is too long.'));
      return true;
    }
    ctx.status = 303;
    ctx.redirect(`${settings.issuer}${AUTHORIZATION}?${body}`);
    return true;
  }
  if (ctx.method !== 'GET') return false;
  if (`${settings.issuer}${ctx.url}`.length > MAX_AUTHORIZATION_URL) {
    page(ctx, 400, errorPage('invalid_request', 'This login request is too long.'));
    return true;
  }
  const params = new URLSearchParams(ctx.querystring);
  const client = byId.get(params.get('client_id') ?? '');
  const prompts = (params.get('prompt') ?? '').split(' ').filter((p) => p !== '');
  if (client === undefined || !client.redirectUris.includes(params.get('redirect_uri') ?? '') || prompts.includes('none')) return false;
  const login = await useCases.authorizeOidcLogin.execute({
    clientId: client.clientId,
    sessionToken: sessionTokenOf(ctx.req),
    ip: ipOf(ctx.req, settings),
    requestId: requestIdOf(ctx),
    dryRun: true,
  });
  if (login.ok || login.error.code !== 'login_required') return false;
  const rest = prompts.filter((p) => p !== 'login');
  if (rest.length === 0) params.delete('prompt');
  else params.set('prompt', rest.join(' '));
  params.delete('max_age');
  params.delete(PROOF_AFTER_REQUEST);
  ctx.status = 303;
  ctx.redirect(`/login?redirect_uri=${encodeURIComponent(`${settings.issuer}${AUTHORIZATION}?${params.toString()}`)}`);
  return true;
}

/**
 * `max_age=0` of a person with a gateway session: the library would turn it into `prompt=login`, a
 * whole new login. Asked of a live session it asks for a proof made after the request (OpenID
 * Connect: the provider must actively re-authenticate), so it becomes {@link PROOF_AFTER_REQUEST},
 * which the login check and the interaction read as `max_age` 0: the step-up, as for any `max_age`.
 * With `prompt=login` as well, the whole login stays. The parameter sent by a client itself only
 * ever asks for more.
 */
function maxAgeZeroAsProofAfterRequest(ctx: Koa.Context): void {
  if (ctx.method !== 'GET') return;
  const params = new URLSearchParams(ctx.querystring);
  if (params.get('max_age') !== '0' || (params.get('prompt') ?? '').split(' ').includes('login')) return;
  params.delete('max_age');
  params.set(PROOF_AFTER_REQUEST, '1');
  ctx.querystring = params.toString();
}

/**
 * panva's oidc-provider mounted in the gateway: issuer = APP_URL, discovery at
 * `/.well-known/openid-configuration`, everything else under `/oidc`. The login step is the
 * gateway's own (its session, its login page with every method, TOTP included); what the library
 * stores goes through the {@link OidcArtifacts} port.
 */
export function createOidcHttp(module: OidcProviderModule, useCases: OidcUseCases, settings: OidcProviderSettings): OidcHttp {
  const issuer = new URL(settings.issuer);
  const wiring: OidcWiring = { module, useCases, settings, byId: new Map(settings.clients.map((c) => [c.clientId, c])) };
  const provider: OidcProviderInstance = new module.Provider(
    settings.issuer,
    providerConfiguration(wiring, () => provider),
  );
  // The scheme and host are pinned to APP_URL below; the provider reads them from these headers.
  provider.proxy = true;
  requireRegisteredAuthMethod(wiring, provider);
  provider.on('server_error', (_ctx: unknown, e: unknown) => settings.logger.error('oidc provider failed', { error: e instanceof Error ? e.name : 'unknown' }));
  endGatewaySessionOnLogout(wiring, provider);
  backchannelThroughQueue(provider);
  rememberSessionOfCode(wiring, provider);
  const callback = provider.callback();

  return {
    async middleware(ctx, next) {
      if (!isOidcPath(ctx.path)) return next();
      const headers = ctx.req.headers;
      // Every URL the provider publishes or redirects to is built from these: pinned to APP_URL,
      // never taken from the request (a forged Host must not rewrite discovery or redirects).
      headers.host = issuer.host;
      headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
      headers['x-forwarded-for'] = ipOf(ctx.req, settings);
      delete headers['x-forwarded-host'];
      delete headers.forwarded;
      if (ctx.path === AUTHORIZATION) {
        if (await authorizationWithoutLogin(wiring, ctx)) return;
        maxAgeZeroAsProofAfterRequest(ctx);
      }
      const m = INTERACTION.exec(ctx.path);
      if (m !== null) {
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return page(ctx, 405, errorPage('invalid_request', 'Method not allowed.'));
        return interaction(wiring, provider, ctx, m[1]);
      }
      ctx.respond = false;
      await callback(ctx.req, ctx.res);
    },
  };
}

/** The request's body as text, or null when it is longer than `limit` bytes. */
async function readFormBody(req: IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req) {
    received += (chunk as Buffer).length;
    if (received > limit) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * oidc-provider takes a client's secret in the Authorization header (client_secret_basic) or the
 * form (client_secret_post) whichever the client is registered for. The registered method is the
 * only one: a secret sent the other way is a wrong secret (invalid_client), checked where the
 * library compares it, before any code is consumed or token issued. The library refuses a request
 * that uses both ways at once, so a Basic header present means the secret came in it.
 *
 * A client configured with CLIENT_SECRET_HASH is checked against its hash only (the library's
 * comparison with the registered placeholder is never made), in the hasher's bounded line, fair
 * per address block; a full line answers temporarily_unavailable (503), not invalid_client.
 */
function requireRegisteredAuthMethod({ module, settings, byId }: OidcWiring, provider: OidcProviderInstance): void {
  const prototype = provider.Client.prototype;
  const compare = prototype.compareClientSecret;
  prototype.compareClientSecret = function compareRegisteredWay(this: ProviderClient, actual: string) {
    const ctx = module.Provider.ctx;
    const viaHeader = ctx?.headers.authorization !== undefined;
    if (viaHeader !== (this.clientAuthMethod === 'client_secret_basic')) return false;
    const hash = byId.get(this.clientId)?.secretHash;
    if (hash === undefined) return compare.call(this, actual);
    return verifyHashedSecret(module, settings, hash, actual, ctx === undefined ? undefined : addressBlock(ipOf(ctx.req, settings)));
  };
}

async function verifyHashedSecret(
  module: OidcProviderModule,
  settings: OidcProviderSettings,
  hash: string,
  actual: string,
  requester: string | undefined,
): Promise<boolean> {
  if (settings.hashedSecrets === undefined || typeof actual !== 'string') return false;
  try {
    return await settings.hashedSecrets.verify(actual, hash, requester);
  } catch (e) {
    if (!(e instanceof PasswordHasherBusyError)) return false;
    const busy = new module.errors.TemporarilyUnavailable('too many secrets are being checked right now; try again in a moment');
    Object.assign(busy, { status: 503, statusCode: 503 });
    throw busy;
  }
}
