import type Router from '@koa/router';
import type { Context } from 'koa';
import type { AdminRefusal } from '../../application/admin/admin-gate';
import type { ListAdminTokensUseCase, RevokeAdminTokenUseCase } from '../../application/admin/admin-tokens';
import type { ListAdminAppsUseCase } from '../../application/admin/list-admin-apps';
import type { ListOidcClientsUseCase } from '../../application/admin/list-oidc-clients';
import type { ExplainAccessError, ExplainAccessOutput, ExplainAccessUseCase } from '../../application/admin/explain-access';
import type { ListAdminSessionsUseCase } from '../../application/admin/list-admin-sessions';
import type { EditAdminUserUseCase } from '../../application/admin/edit-admin-user';
import type { AdminUserView, ListAdminUsersUseCase } from '../../application/admin/list-admin-users';
import type { AdminSessionsToRevoke, RevokeAdminSessionsError, RevokeAdminSessionsUseCase } from '../../application/admin/revoke-admin-sessions';
import type { IndexedSession } from '../../application/ports/session-index';
import type { Result } from '../../domain/result';
import type { ExportAuditTrailUseCase } from '../../application/admin/export-audit-trail';
import type { QueryAuditTrailUseCase } from '../../application/admin/query-audit-trail';
import { adminPeopleRoutes } from './admin-people-routes';
import { answer, fixed, type Answer } from './answer';
import { CROSS_SITE_REQUEST, invalidFields, STORE_UNAVAILABLE, unmapped } from './answers';
import { jsonChange, sessionFacts } from './account-routes';
import type { HttpSettings } from './http-settings';
import { callerOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { adminTokenView } from './admin-token-view';
import { isFromThisSite } from './request-origin';

export interface AdminUseCases {
  readonly listAdminUsers: ListAdminUsersUseCase;
  readonly listAdminSessions: ListAdminSessionsUseCase;
  readonly revokeAdminSessions: RevokeAdminSessionsUseCase;
  readonly explainAccess: ExplainAccessUseCase;
  readonly editAdminUser: EditAdminUserUseCase;
  /** Applications, OIDC clients and tokens (routes in admin-apps-routes.ts). */
  readonly listAdminApps: ListAdminAppsUseCase;
  readonly listOidcClients: ListOidcClientsUseCase;
  readonly listAdminTokens: ListAdminTokensUseCase;
  readonly revokeAdminToken: RevokeAdminTokenUseCase;
  /** The audit trail's use cases (routes in admin-audit-routes.ts). */
  readonly queryAuditTrail: QueryAuditTrailUseCase;
  readonly exportAuditTrail: ExportAuditTrailUseCase;
}

/** The admin routes and their methods (issue 36): they exist only with ADMIN_GROUPS set. */
export const ADMIN_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['/api/admin/users', ['GET', 'HEAD', 'POST']],
  ['/api/admin/users/update', ['POST']],
  ['/api/admin/users/disable', ['POST']],
  ['/api/admin/users/enable', ['POST']],
  ['/api/admin/users/delete', ['POST']],
  ['/api/admin/sessions', ['GET', 'HEAD']],
  ['/api/admin/sessions/revoke', ['POST']],
  ['/api/admin/explain', ['POST']],
  ['/api/admin/apps', ['GET', 'HEAD']],
  ['/api/admin/oidc-clients', ['GET', 'HEAD']],
  ['/api/admin/tokens/revoke', ['POST']],
  // The audit trail's routes (admin-audit-routes.ts).
  ['/api/admin/audit', ['GET', 'HEAD']],
  ['/api/admin/audit/export', ['GET', 'HEAD']],
  ['/api/admin/invitations', ['POST']],
  ['/api/admin/users/totp/remove', ['POST']],
  ['/api/admin/users/passkeys/remove', ['POST']],
];

const ADMIN_REQUIRED = fixed(403, 'admin_required');
const LIVE_SESSION_NOT_FOUND = fixed(404, 'live_session_not_found');
const INVALID_URL = fixed(400, 'invalid_url');
const MAX_NAME = 256;
const MAX_ID_LENGTH = 128;

/**
 * The refusals every admin route shares. A missing step-up is a 401 whose `location` is the login
 * page's step-up for this session; the console sends the browser there.
 */
export function adminRefused(error: AdminRefusal | { readonly code: 'cross_site_request' }, loginUrl: string, what: string): Answer {
  switch (error.code) {
    case 'admin_required':
      return ADMIN_REQUIRED;
    case 'step_up_required': {
      const e = error;
      const location = `${loginUrl}?step_up=${encodeURIComponent(e.reference)}`;
      return answer(401, 'step_up_required', [], {
        fields: { methods: e.methods, maxAge: e.maxAge, reference: e.reference, location },
        headers: [
          [
            'www-authenticate',
            `Portcullis realm="portcullis", error="insufficient_user_authentication", methods="${e.methods.join(' ')}", max_age=${e.maxAge}`,
          ],
        ],
      });
    }
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    default:
      return unmapped(what, error);
  }
}

function userView(u: AdminUserView): Record<string, unknown> {
  return {
    username: u.username,
    name: u.name,
    email: u.email,
    groups: [...u.groups],
    disabled: u.disabled,
    source: u.source,
    totp: u.totp,
    passkeys: u.passkeys,
  };
}

function sessionView(s: IndexedSession): Record<string, unknown> {
  return { id: s.id, username: s.username, ...sessionFacts(s) };
}

function revokeAnswer(result: Result<{ readonly revoked: number }, RevokeAdminSessionsError>, loginUrl: string): Answer {
  if (result.ok) return answer(200, 'sessions_revoked', [result.value.revoked], { fields: { revoked: result.value.revoked } });
  const error = result.error;
  return error.code === 'session_not_found' ? LIVE_SESSION_NOT_FOUND : adminRefused(error, loginUrl, 'admin revoke sessions');
}

function explainAnswer(result: Result<ExplainAccessOutput, ExplainAccessError>, loginUrl: string): Answer {
  if (result.ok) return answer(200, 'decision', [], { fields: { decision: result.value.decision, reason: result.value.reason, app: result.value.app } });
  const error = result.error;
  return error.code === 'invalid_url' ? INVALID_URL : adminRefused(error, loginUrl, 'admin explain');
}

/** `{id}` or `{username}`, exactly one; null otherwise. */
export function readAdminRevokeTarget(body: unknown): AdminSessionsToRevoke | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id, username } = body as Record<string, unknown>;
  if (id !== undefined && username !== undefined) return null;
  if (typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH) return { id };
  if (typeof username === 'string' && username.length > 0 && username.length <= MAX_NAME) return { username };
  return null;
}

export interface ExplainQuestion {
  readonly url: string;
  readonly username: string | null;
  readonly groups: readonly string[];
  readonly address: string;
  readonly method: string;
}

const optionalText = (v: unknown, max: number): v is string | undefined => v === undefined || (typeof v === 'string' && v.length <= max);

/** `{url, username?, groups?, address?, method?}`: the question, or the names of the fields that are wrong. */
export function readExplainQuestion(body: unknown): ExplainQuestion | readonly string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['url'];
  const { url, username, groups, address, method } = body as Record<string, unknown>;
  const bad: string[] = [];
  if (typeof url !== 'string' || url.length === 0 || url.length > 4096) bad.push('url');
  if (!optionalText(username, MAX_NAME)) bad.push('username');
  if (groups !== undefined && !(Array.isArray(groups) && groups.length <= 100 && groups.every((g) => typeof g === 'string' && g.length <= MAX_NAME)))
    bad.push('groups');
  if (!optionalText(address, 64)) bad.push('address');
  if (!(method === undefined || (typeof method === 'string' && /^[A-Z]{1,16}$/.test(method)))) bad.push('method');
  if (bad.length > 0) return bad;
  const name = typeof username === 'string' && username.trim() !== '' ? username.trim() : null;
  return {
    url: url as string,
    username: name,
    groups: name === null ? [] : ((groups as string[] | undefined) ?? []),
    address: typeof address === 'string' && address.trim() !== '' ? address.trim() : '198.51.100.1',
    method: typeof method === 'string' ? method : 'GET',
  };
}

/**
 * `/api/admin/*` (issue 36): only for a full session of a member of ADMIN_GROUPS with a fresh
 * second factor (the use cases ask AdminGate on every request). POSTs take JSON only and are
 * refused on evidence of another site, like the account page's.
 */
export function adminRoutes(router: Router, useCases: AdminUseCases, settings: HttpSettings): void {
  const appOrigin = new URL(settings.appUrl).origin;
  const loginUrl = `${settings.appUrl.replace(/\/+$/, '')}/login`;
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);
  const jsonOnly = jsonChange(appOrigin);

  router.get('/admin/users', async (ctx) => {
    const raw = ctx.query.q;
    if (Array.isArray(raw) || (typeof raw === 'string' && raw.length > MAX_NAME)) return renderAnswer(ctx, invalidFields(['q']));
    const result = await useCases.listAdminUsers.execute({ ...caller(ctx), search: raw ?? '' });
    renderAnswer(
      ctx,
      result.ok
        ? answer(200, 'users', [], {
            fields: { users: result.value.users.map(userView), truncated: [...result.value.truncated], version: result.value.version },
          })
        : adminRefused(result.error, loginUrl, 'admin users'),
    );
  });

  adminPeopleRoutes(router, useCases.editAdminUser, { appOrigin, loginUrl, jsonOnly, caller, refused: adminRefused });

  router.get('/admin/sessions', async (ctx) => {
    const raw = ctx.query.username;
    if (Array.isArray(raw) || (typeof raw === 'string' && raw.length > MAX_NAME)) return renderAnswer(ctx, invalidFields(['username']));
    const username = typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : null;
    const result = await useCases.listAdminSessions.execute({ ...caller(ctx), username });
    if (!result.ok) return renderAnswer(ctx, adminRefused(result.error, loginUrl, 'admin sessions'));
    const tokens = await useCases.listAdminTokens.execute({ ...caller(ctx), username });
    renderAnswer(
      ctx,
      tokens.ok
        ? answer(200, 'sessions', [], { fields: { sessions: result.value.map(sessionView), tokens: tokens.value.map(adminTokenView) } })
        : adminRefused(tokens.error, loginUrl, 'admin tokens'),
    );
  });

  router.post(
    '/admin/sessions/revoke',
    jsonOnly(async (ctx) => revokeAnswer(await useCases.revokeAdminSessions.execute({ ...caller(ctx), fromThisSite: false, target: { id: '' } }), loginUrl)),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const target = readAdminRevokeTarget(ctx.request.body);
      if (fromThisSite && target === null) return renderAnswer(ctx, invalidFields(['id', 'username']));
      const result = await useCases.revokeAdminSessions.execute({ ...caller(ctx), fromThisSite, target: target ?? { id: '' } });
      renderAnswer(ctx, revokeAnswer(result, loginUrl));
    },
  );

  router.post(
    '/admin/explain',
    jsonOnly(async (ctx) =>
      explainAnswer(
        await useCases.explainAccess.execute({ ...caller(ctx), fromThisSite: false, url: '', username: null, groups: [], address: '', method: 'GET' }),
        loginUrl,
      ),
    ),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const question = readExplainQuestion(ctx.request.body);
      if (fromThisSite && Array.isArray(question)) return renderAnswer(ctx, invalidFields(question as readonly string[]));
      const q = Array.isArray(question) ? { url: '', username: null, groups: [], address: '', method: 'GET' } : (question as ExplainQuestion);
      renderAnswer(ctx, explainAnswer(await useCases.explainAccess.execute({ ...caller(ctx), fromThisSite, ...q }), loginUrl));
    },
  );
}
