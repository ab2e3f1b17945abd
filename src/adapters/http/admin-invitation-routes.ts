import type Router from '@koa/router';
import type { Context } from 'koa';
import type { IssueInvitationError, IssueInvitationOutput, IssueInvitationUseCase } from '../../application/admin/issue-invitation';
import type { RemovePersonPasskeysError, RemovePersonPasskeysUseCase } from '../../application/admin/remove-person-passkeys';
import type { RemovePersonTotpError, RemovePersonTotpUseCase } from '../../application/admin/remove-person-totp';
import type { SetPasswordWithLinkError, SetPasswordWithLinkOutput, SetPasswordWithLinkUseCase } from '../../application/invitations/set-password-with-link';
import type { Result } from '../../domain/result';
import { answer, fixed, type Answer } from './answer';
import { CROSS_SITE_REQUEST, invalidFields, STORE_UNAVAILABLE, unmapped } from './answers';
import { jsonChange } from './account-routes';
import { adminRefused } from './admin-routes';
import type { HttpSettings } from './http-settings';
import { callerOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { isFromThisSite } from './request-origin';

export interface AdminInvitationUseCases {
  readonly issueInvitation: IssueInvitationUseCase;
  readonly removePersonTotp: RemovePersonTotpUseCase;
  readonly removePersonPasskeys: RemovePersonPasskeysUseCase;
  readonly setPasswordWithLink: SetPasswordWithLinkUseCase;
}

/** The set-password link's endpoint: not an admin route (its caller holds a link, not a session), but there only with the console. */
export const INVITATION_API_METHODS: ReadonlyArray<readonly [string, readonly string[]]> = [['/api/invitations/password', ['POST']]];

const USER_NOT_FOUND = fixed(404, 'user_not_found');
const READ_ONLY_SOURCE = fixed(409, 'read_only_source');
const NOT_PASSKEY_ONLY = fixed(409, 'not_passkey_only');
const PASSKEYS_OFF = fixed(409, 'passkeys_off');
const LAST_ADMIN = fixed(409, 'last_admin');
const TOTP_SET_BY_ADMINISTRATOR = fixed(409, 'totp_set_by_administrator');
const TOTP_NOT_ENROLLED = fixed(409, 'totp_not_enrolled');
const PASSKEY_NOT_FOUND = fixed(404, 'passkey_not_found');
const INVITATION_INVALID = fixed(400, 'invitation_invalid');
const MAX_NAME = 256;
const MAX_ID_LENGTH = 1024;

/** Where a link of each kind opens: the secret only in the fragment, which no browser sends to a server. */
export function invitationLink(appUrl: string, kind: IssueInvitationOutput['kind'], code: string): string {
  return `${appUrl.replace(/\/+$/, '')}/${kind === 'password' ? 'invite' : 'enrol'}#${code}`;
}

export function invitationAnswer(result: Result<IssueInvitationOutput, IssueInvitationError>, appUrl: string, loginUrl: string): Answer {
  if (result.ok) {
    const { username, kind, code, expiresAt } = result.value;
    return answer(200, 'invitation', [], {
      fields: { username, kind, link: invitationLink(appUrl, kind, code), expiresAt: new Date(expiresAt).toISOString() },
    });
  }
  const error = result.error;
  switch (error.code) {
    case 'invalid_fields':
      return invalidFields(error.fields);
    case 'user_not_found':
      return USER_NOT_FOUND;
    case 'read_only_source':
      return READ_ONLY_SOURCE;
    case 'not_passkey_only':
      return NOT_PASSKEY_ONLY;
    case 'passkeys_off':
      return PASSKEYS_OFF;
    default:
      return adminRefused(error, loginUrl, 'admin invitation');
  }
}

export function removeTotpAnswer(result: Result<{ readonly ended: number }, RemovePersonTotpError>, loginUrl: string): Answer {
  if (result.ok) return answer(200, 'totp_removed', [], { fields: { ended: result.value.ended } });
  const error = result.error;
  switch (error.code) {
    case 'user_not_found':
      return USER_NOT_FOUND;
    case 'totp_set_by_administrator':
      return TOTP_SET_BY_ADMINISTRATOR;
    case 'totp_not_enrolled':
      return TOTP_NOT_ENROLLED;
    case 'last_admin':
      return LAST_ADMIN;
    default:
      return adminRefused(error, loginUrl, 'admin remove totp');
  }
}

export function removePasskeysAnswer(
  result: Result<{ readonly removed: number; readonly ended: number }, RemovePersonPasskeysError>,
  loginUrl: string,
): Answer {
  if (result.ok) return answer(200, 'passkeys_removed', [result.value.removed], { fields: { removed: result.value.removed, ended: result.value.ended } });
  const error = result.error;
  switch (error.code) {
    case 'user_not_found':
      return USER_NOT_FOUND;
    case 'passkey_not_found':
      return PASSKEY_NOT_FOUND;
    case 'last_admin':
      return LAST_ADMIN;
    default:
      return adminRefused(error, loginUrl, 'admin remove passkeys');
  }
}

export function setPasswordAnswer(result: Result<SetPasswordWithLinkOutput, SetPasswordWithLinkError>): Answer {
  if (result.ok) return answer(200, 'password_set', [], { fields: { username: result.value.username } });
  const error = result.error;
  switch (error.code) {
    case 'cross_site_request':
      return CROSS_SITE_REQUEST;
    case 'weak_password':
      return answer(400, 'weak_password', [error.reason], { fields: { reason: error.reason } });
    case 'invalid_link':
      return INVITATION_INVALID;
    case 'store_unavailable':
      return STORE_UNAVAILABLE;
    default:
      return unmapped('set password', error);
  }
}

/** `{username, id?}` as far as a route reads it; null when it is not one. */
export function readPersonTarget(body: unknown): { readonly username: string; readonly id?: string } | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { username, id } = body as Record<string, unknown>;
  if (typeof username !== 'string' || username.trim() === '' || username.length > MAX_NAME) return null;
  if (id !== undefined && !(typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH)) return null;
  return id === undefined ? { username: username.trim() } : { username: username.trim(), id };
}

const bodyOf = (ctx: Context): Record<string, unknown> => {
  const body: unknown = ctx.request.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
};

/**
 * Issue 36: invitations and password resets (`POST /api/admin/invitations`), a person's TOTP or
 * passkeys removed (`/api/admin/users/totp/remove`, `/passkeys/remove`), and the set-password
 * link's endpoint (`POST /api/invitations/password`). The admin ones ask AdminGate through their
 * use cases; every POST takes JSON only and is refused on evidence of another site.
 */
export function adminInvitationRoutes(router: Router, useCases: AdminInvitationUseCases, settings: HttpSettings): void {
  const appOrigin = new URL(settings.appUrl).origin;
  const loginUrl = `${settings.appUrl.replace(/\/+$/, '')}/login`;
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);
  const jsonOnly = jsonChange(appOrigin);
  const nobody = { username: '' };

  router.post(
    '/admin/invitations',
    jsonOnly(async (ctx) =>
      invitationAnswer(
        await useCases.issueInvitation.execute({ ...caller(ctx), fromThisSite: false, username: '', kind: '', hours: undefined }),
        settings.appUrl,
        loginUrl,
      ),
    ),
    async (ctx) => {
      const { username, kind, hours } = bodyOf(ctx);
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const result = await useCases.issueInvitation.execute({ ...caller(ctx), fromThisSite, username, kind, hours });
      renderAnswer(ctx, invitationAnswer(result, settings.appUrl, loginUrl));
    },
  );

  router.post(
    '/admin/users/totp/remove',
    jsonOnly(async (ctx) => removeTotpAnswer(await useCases.removePersonTotp.execute({ ...caller(ctx), fromThisSite: false, ...nobody }), loginUrl)),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const target = readPersonTarget(ctx.request.body);
      if (fromThisSite && (target === null || target.id !== undefined)) return renderAnswer(ctx, invalidFields(['username']));
      const result = await useCases.removePersonTotp.execute({ ...caller(ctx), fromThisSite, username: target?.username ?? '' });
      renderAnswer(ctx, removeTotpAnswer(result, loginUrl));
    },
  );

  router.post(
    '/admin/users/passkeys/remove',
    jsonOnly(async (ctx) => removePasskeysAnswer(await useCases.removePersonPasskeys.execute({ ...caller(ctx), fromThisSite: false, ...nobody }), loginUrl)),
    async (ctx) => {
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const target = readPersonTarget(ctx.request.body);
      if (fromThisSite && target === null) return renderAnswer(ctx, invalidFields(['username', 'id']));
      const result = await useCases.removePersonPasskeys.execute({ ...caller(ctx), fromThisSite, ...(target ?? nobody) });
      renderAnswer(ctx, removePasskeysAnswer(result, loginUrl));
    },
  );

  // The page read the code from its URL fragment and POSTs it with the password; nothing of either is logged.
  router.post(
    '/invitations/password',
    jsonOnly(async (ctx) => setPasswordAnswer(await useCases.setPasswordWithLink.execute({ ...caller(ctx), fromThisSite: false, code: '', password: '' }))),
    async (ctx) => {
      const { code, password } = bodyOf(ctx);
      const fromThisSite = isFromThisSite(ctx.req.headers, appOrigin);
      const result = await useCases.setPasswordWithLink.execute({ ...caller(ctx), fromThisSite, code, password });
      renderAnswer(ctx, setPasswordAnswer(result));
    },
  );
}
