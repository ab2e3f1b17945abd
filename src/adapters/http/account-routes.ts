import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { IndexedSession } from '../../application/ports/session-index';
import type { ListAccountSessionsError, ListAccountSessionsOutput, ListAccountSessionsUseCase } from '../../application/account/list-account-sessions';
import type {
  RevokeAccountSessionsError,
  RevokeAccountSessionsOutput,
  RevokeAccountSessionsUseCase,
  SessionsToRevoke,
} from '../../application/account/revoke-account-sessions';
import type { SignOutOfAppError, SignOutOfAppUseCase } from '../../application/account/sign-out-of-app';
import type { Result } from '../../domain/result';
import { answer, type Answer } from './answer';
import { CROSS_SITE_REQUEST, invalidFields, SESSION_REQUIRED, STORE_UNAVAILABLE, unmapped, UNSUPPORTED_MEDIA_TYPE } from './answers';
import { clearCookie, SESSION_COOKIE, type CookieSettings } from './cookies';
import type { HttpSettings } from './http-settings';
import { JSON_TYPES, jsonBody } from './json-body';
import { callerOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';
import { describeUserAgent } from './user-agent';

export interface AccountUseCases {
  readonly listAccountSessions: ListAccountSessionsUseCase;
  readonly revokeAccountSessions: RevokeAccountSessionsUseCase;
  readonly signOutOfApp: SignOutOfAppUseCase;
}

/** The account routes and their methods, for the 404/405 fallback. */
export const ACCOUNT_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/api/account', ['GET', 'HEAD']],
  ['/api/account/sessions/revoke', ['POST']],
  ['/api/account/apps/revoke', ['POST']],
];

/** Session ids are random tokens; anything longer is not one of ours. */
const MAX_ID_LENGTH = 128;

const iso = (ms: number): string => new Date(ms).toISOString();

/** What a listed session says on the account page and in the admin console (never its cookie or secrets). */
export function sessionFacts(s: IndexedSession): Record<string, unknown> {
  const { browser, platform } = describeUserAgent(s.userAgent);
  return {
    method: s.method,
    browser,
    platform,
    address: s.address,
    startedAt: iso(s.startedAt),
    lastSeenAt: iso(s.lastSeenAt),
    expiresAt: iso(s.expiresAt),
  };
}

function sessionView(s: IndexedSession, currentId: string): Record<string, unknown> {
  return { id: s.id, current: s.id === currentId, ...sessionFacts(s) };
}

/** `GET /api/account`: who you are, how you logged in, your live sessions. */
export function accountAnswer(result: Result<ListAccountSessionsOutput, ListAccountSessionsError>, adminGroups: readonly string[] = []): Answer {
  if (result.ok) {
    const { identity, current, sessions, apps } = result.value;
    const listed = sessions.some((s) => s.id === current.id);
    return answer(200, 'ok', [], {
      fields: {
        user: {
          username: identity.username,
          name: identity.name,
          email: identity.email,
          groups: [...identity.groups],
          provider: identity.provider,
          oauth: identity.oauth,
          totp: identity.totp,
          // Issue 36: whether the person is in ADMIN_GROUPS (the page then links the console; the console checks again).
          admin: identity.groups.some((g) => adminGroups.includes(g)),
        },
        currentSession: current.id,
        apps: apps.map((a) => ({ id: a.clientId, name: a.name, lastLoginAt: iso(a.lastLoginAt) })),
        sessions: [
          ...sessions.map((s) => sessionView(s, current.id)),
          // A session made before the index existed is still this one: shown, without device details.
          ...(listed
            ? []
            : [
                sessionView(
                  {
                    id: current.id,
                    username: current.username,
                    method: current.oauth ? current.provider : current.totp ? 'totp' : 'password',
                    userAgent: '',
                    address: '',
                    startedAt: current.issuedAt,
                    expiresAt: current.expiresAt,
                    lastSeenAt: current.issuedAt,
                  },
                  current.id,
                ),
              ]),
        ],
      },
    });
  }
  const error = result.error;
  switch (error.code) {
    case 'session_required':
      return SESSION_REQUIRED;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('account', error);
  }
}

/** `POST /api/account/sessions/revoke`: the caller's own cookie is cleared when it was among the ended sessions. */
export function revokeSessionsAnswer(result: Result<RevokeAccountSessionsOutput, RevokeAccountSessionsError>, cookies: CookieSettings): Answer {
  if (result.ok) {
    const { revoked, endedCurrent } = result.value;
    return answer(200, 'sessions_revoked', [revoked], {
      fields: { revoked, endedCurrent },
      cookies: endedCurrent ? [clearCookie(SESSION_COOKIE, cookies)] : [],
    });
  }
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    case 'session_required':
      return SESSION_REQUIRED;
    case 'session_not_found':
      return answer(404, 'session_not_found', []);
    // Cookies stay: a sign-out that may not have reached every replica is not reported as done.
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('revoke sessions', error);
  }
}

/** `POST /api/account/apps/revoke`. */
export function signOutOfAppAnswer(result: Result<Record<string, never>, SignOutOfAppError>): Answer {
  if (result.ok) return answer(200, 'app_signed_out', []);
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    case 'session_required':
      return SESSION_REQUIRED;
    case 'app_not_found':
      return answer(404, 'app_not_found', []);
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('sign out of app', error);
  }
}

/** `{ "id": "<client id>" }`: the app's id, or null. */
export function readAppId(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id } = body as Record<string, unknown>;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : null;
}

/** `{ "id": "<session id>" }` or `{ "scope": "others" | "all" }`, exactly one of them; null when neither fits. */
export function readRevokeTarget(body: unknown): SessionsToRevoke | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id, scope } = body as Record<string, unknown>;
  if (id !== undefined && scope !== undefined) return null;
  if (typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH) return { scope: 'one', id };
  if (scope === 'others' || scope === 'all') return { scope };
  return null;
}

/**
 * The body parser of a JSON-only change of the account page. A request that is not JSON is refused
 * as cross-site first (a form from another site lands here: `crossSite` answers it, through the use
 * case, so it is audited like any other refusal), else as the wrong type.
 */
export function jsonChange(appOrigin: string): (crossSite: (ctx: Context) => Promise<Answer>) => (ctx: Context, next: Next) => Promise<void> {
  const body = jsonBody({ types: JSON_TYPES, limit: '4kb' });
  return (crossSite) => async (ctx, next) => {
    if (ctx.is(JSON_TYPES)) return body(ctx, next);
    renderAnswer(ctx, isFromThisSite(ctx.req.headers, appOrigin) ? UNSUPPORTED_MEDIA_TYPE : await crossSite(ctx));
  };
}

/**
 * `/api/account` and `/api/account/sessions/revoke` (issue 16). Both only for a fully logged-in
 * cookie session, both about the caller's own account only (no input names an account). The POST
 * is refused on evidence of another site (see isFromThisSite), like `/api/logout`, and only takes
 * JSON (a cross-site form cannot send it without a preflight).
 */
export function accountRoutes(router: Router, useCases: AccountUseCases, settings: HttpSettings): void {
  const appOrigin = new URL(settings.appUrl).origin;
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);

  router.get('/account', async (ctx) => {
    renderAnswer(ctx, accountAnswer(await useCases.listAccountSessions.execute(caller(ctx)), settings.adminGroups));
  });

  const jsonOnly = jsonChange(appOrigin);

  router.post(
    '/account/sessions/revoke',
    jsonOnly(async (ctx) =>
      revokeSessionsAnswer(
        await useCases.revokeAccountSessions.execute({ ...caller(ctx), fromThisSite: false, target: { scope: 'others' } }),
        settings.cookies,
      ),
    ),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const target = readRevokeTarget(ctx.request.body);
      if (fromThisSite && target === null) return renderAnswer(ctx, invalidFields(['id', 'scope']));
      const result = await useCases.revokeAccountSessions.execute({ ...caller(ctx), fromThisSite, target: target ?? { scope: 'others' } });
      renderAnswer(ctx, revokeSessionsAnswer(result, settings.cookies));
    },
  );

  // Ends what one OpenID Connect app holds for the caller; refused cross-site and JSON only, as above.
  router.post(
    '/account/apps/revoke',
    jsonOnly(async (ctx) => signOutOfAppAnswer(await useCases.signOutOfApp.execute({ ...caller(ctx), fromThisSite: false, clientId: '' }))),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const clientId = readAppId(ctx.request.body);
      if (fromThisSite && clientId === null) return renderAnswer(ctx, invalidFields(['id']));
      renderAnswer(ctx, signOutOfAppAnswer(await useCases.signOutOfApp.execute({ ...caller(ctx), fromThisSite, clientId: clientId ?? '' })));
    },
  );
}
