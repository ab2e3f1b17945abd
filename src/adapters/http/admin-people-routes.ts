import type Router from '@koa/router';
import type { Context } from 'koa';
import type { AdminRefusal } from '../../application/admin/admin-gate';
import type { AdminUserChange, EditAdminUserError, EditAdminUserUseCase } from '../../application/admin/edit-admin-user';
import { parseDisplayName, parseGroupName, parseUsername } from '../../domain/identity-name';
import type { Result } from '../../domain/result';
import { usernameProblem } from '../../domain/users-list';
import { answer, fixed, type Answer } from './answer';
import { invalidFields } from './answers';
import type { jsonChange } from './account-routes';
import type { Caller } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';

/** How every admin route answers a refusal of the gate (admin-routes' adminRefused, handed in). */
export type AdminRefused = (error: AdminRefusal | { readonly code: 'cross_site_request' }, loginUrl: string, what: string) => Answer;

const MAX_NAME = 256;
const MAX_GROUPS = 100;
const MAX_VERSION = 128;

const USER_EXISTS = fixed(409, 'user_exists');
const USER_NOT_FOUND = fixed(404, 'user_not_found');
const USERS_FILE_CHANGED = fixed(409, 'users_file_changed');
const READ_ONLY_SOURCE = fixed(409, 'read_only_source');
const LAST_ADMIN = fixed(409, 'last_admin');

/** The routes of the People section and the change each asks for. */
export const ADMIN_PEOPLE_ROUTES = [
  ['/admin/users', 'create', 'user_created'],
  ['/admin/users/update', 'update', 'user_updated'],
  ['/admin/users/disable', 'disable', 'user_disabled'],
  ['/admin/users/enable', 'enable', 'user_enabled'],
  ['/admin/users/delete', 'delete', 'user_deleted'],
] as const;

type Kind = AdminUserChange['kind'];
type Done = (typeof ADMIN_PEOPLE_ROUTES)[number][2];

export interface AdminUserRequest {
  readonly change: AdminUserChange;
  readonly version?: string;
}

const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

/** A name, e-mail or groups as given (`''`/`[]` clear them on update); the names of bad fields go to `bad`. */
function readFields(body: Record<string, unknown>, bad: string[]): { name?: string; email?: string; groups?: readonly string[] } {
  const out: { name?: string; email?: string; groups?: readonly string[] } = {};
  const { name, email, groups } = body;
  if (name !== undefined) {
    if (isText(name, MAX_NAME) && (name.trim() === '' || parseDisplayName(name.trim()).ok)) out.name = name.trim();
    else bad.push('name');
  }
  if (email !== undefined) {
    const e = isText(email, MAX_NAME) ? email.trim() : null;
    if (e !== null && (e === '' || (/^[^\s@]+@[^\s@]+$/.test(e) && parseUsername(e).ok))) out.email = e.toLowerCase();
    else bad.push('email');
  }
  if (groups !== undefined) {
    const ok =
      Array.isArray(groups) &&
      groups.length <= MAX_GROUPS &&
      groups.every((g) => isText(g, MAX_NAME) && g.trim() !== '' && parseGroupName(g.trim()).ok && !g.includes(','));
    if (ok) out.groups = [...new Set((groups as string[]).map((g) => g.trim()))];
    else bad.push('groups');
  }
  return out;
}

/** `{username, name?, email?, groups?, version?}` (create and update) or `{username, version?}`; else the bad fields. */
export function readAdminUserRequest(kind: Kind, body: unknown): AdminUserRequest | readonly string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['username'];
  const record = body as Record<string, unknown>;
  const bad: string[] = [];
  const username = isText(record.username, MAX_NAME) ? record.username.trim() : '';
  if (username === '' || usernameProblem(username) !== null) bad.push('username');
  const version = record.version;
  if (version !== undefined && !(isText(version, MAX_VERSION) && /^[0-9a-f]+$/.test(version))) bad.push('version');
  const fields = kind === 'create' || kind === 'update' ? readFields(record, bad) : {};
  if (kind !== 'create' && kind !== 'update') {
    for (const f of ['name', 'email', 'groups']) if (record[f] !== undefined) bad.push(f);
  }
  if (bad.length > 0) return bad;
  const change: AdminUserChange = kind === 'create' || kind === 'update' ? { kind, username, ...fields } : { kind, username };
  return typeof version === 'string' ? { change, version } : { change };
}

function editAnswer(
  done: Done,
  result: Result<{ readonly version: string }, EditAdminUserError>,
  refused: AdminRefused,
  loginUrl: string,
  username: string,
): Answer {
  if (result.ok) return answer(200, done, [], { fields: { username, version: result.value.version } });
  const error = result.error;
  switch (error.code) {
    case 'user_exists':
      return USER_EXISTS;
    case 'user_not_found':
      return USER_NOT_FOUND;
    case 'users_file_changed':
      return USERS_FILE_CHANGED;
    case 'read_only_source':
      return READ_ONLY_SOURCE;
    case 'last_admin':
      return LAST_ADMIN;
    case 'unsupported_format':
      return answer(409, 'unsupported_format', [error.field], { fields: { field: error.field } });
    case 'users_file_unwritable':
      // The reason names a line and a username at most (never a hash): it helps the operator fix the file.
      return answer(503, 'users_file_unwritable', [], { fields: { reason: error.reason } });
    default:
      return refused(error, loginUrl, `admin ${done}`);
  }
}

/** The People section's changes (issue 36): POSTs of JSON only, refused cross-site, like the other admin POSTs. */
export function adminPeopleRoutes(
  router: Router,
  editAdminUser: EditAdminUserUseCase,
  deps: {
    readonly appOrigin: string;
    readonly loginUrl: string;
    readonly jsonOnly: ReturnType<typeof jsonChange>;
    readonly caller: (ctx: Context) => Caller;
    readonly refused: AdminRefused;
  },
): void {
  const { appOrigin, loginUrl, jsonOnly, caller, refused: refusedAnswer } = deps;
  for (const [path, kind, done] of ADMIN_PEOPLE_ROUTES) {
    const refused = { kind: 'delete', username: '' } as const;
    router.post(
      path,
      jsonOnly(async (ctx) =>
        editAnswer(done, await editAdminUser.execute({ ...caller(ctx), fromThisSite: false, change: refused }), refusedAnswer, loginUrl, ''),
      ),
      async (ctx) => {
        const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
        const request = readAdminUserRequest(kind, ctx.request.body);
        if (fromThisSite && Array.isArray(request)) return renderAnswer(ctx, invalidFields(request as readonly string[]));
        const read = Array.isArray(request) ? { change: refused } : (request as AdminUserRequest);
        const result = await editAdminUser.execute({ ...caller(ctx), fromThisSite, ...read });
        renderAnswer(ctx, editAnswer(done, result, refusedAnswer, loginUrl, read.change.username));
      },
    );
  }
}
