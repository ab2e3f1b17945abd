import { HmacPasswordLinks } from '../adapters/crypto/hmac-one-time-links';
import type { AdminInvitationUseCases } from '../adapters/http/admin-invitation-routes';
import { IssueInvitationUseCase } from '../application/admin/issue-invitation';
import { RemovePersonPasskeysUseCase } from '../application/admin/remove-person-passkeys';
import { RemovePersonTotpUseCase } from '../application/admin/remove-person-totp';
import { SetPasswordWithLinkUseCase } from '../application/invitations/set-password-with-link';
import type { Config } from '../config/load';
import type { TypedContainer } from './binding';
import { bindStore } from './state';
import { TOKENS } from './tokens';

/**
 * Issue 36: invitations and password resets, and a person's second factors removed from the
 * console. The set-password links share the first-passkey links' store on every backend, behind a
 * keyed hash of their own (ADR 0047): no table of their own, and one kind never redeems as the other.
 */
export function bindAdminInvitations(c: TypedContainer, config: Pick<Config, 'secret' | 'passkeys'>): void {
  bindStore(c, TOKENS.PasswordLinks, 'short-lived', (s) => new HmacPasswordLinks(s.passkeyEnrolmentLinks(), config.secret));
  c.bind(TOKENS.PersonSessions, (index, revoked) => ({ index, revoked }), [TOKENS.SessionIndex, TOKENS.RevokedSessions]);
  c.bind(TOKENS.PasskeyEnrolmentLinksIfOn, (links) => (config.passkeys ? links : null), [TOKENS.PasskeyEnrolmentLinks]);
  c.bindClass(TOKENS.IssueInvitationUseCase, IssueInvitationUseCase, [
    TOKENS.AdminGate,
    TOKENS.AccountDirectory,
    TOKENS.PasswordLinks,
    TOKENS.PasskeyEnrolmentLinksIfOn,
    TOKENS.IdGenerator,
    TOKENS.Clock,
    TOKENS.AuditLog,
  ]);
  c.bindClass(TOKENS.RemovePersonTotpUseCase, RemovePersonTotpUseCase, [
    TOKENS.AdminGate,
    TOKENS.StoreUsers,
    TOKENS.EnrolledTotpSecrets,
    TOKENS.PasskeyCredentialsIfOn,
    TOKENS.PersonSessions,
    TOKENS.AuditLog,
  ]);
  c.bindClass(TOKENS.RemovePersonPasskeysUseCase, RemovePersonPasskeysUseCase, [
    TOKENS.AdminGate,
    TOKENS.UserStore,
    TOKENS.PasskeyCredentialsIfOn,
    TOKENS.PersonSessions,
    TOKENS.AuditLog,
  ]);
  c.bind(TOKENS.PasswordWrite, (hasher, file, index, revoked) => ({ hasher, editor: file.editor, index, revoked }), [
    TOKENS.PasswordHasher,
    TOKENS.UsersFileEditor,
    TOKENS.SessionIndex,
    TOKENS.RevokedSessions,
  ]);
  c.bindClass(TOKENS.SetPasswordWithLinkUseCase, SetPasswordWithLinkUseCase, [TOKENS.StoreUsers, TOKENS.PasswordLinks, TOKENS.PasswordWrite, TOKENS.AuditLog]);
}

/** The use cases for the HTTP adapter; undefined without ADMIN_GROUPS (no route then). */
export function adminInvitationUseCases(config: Pick<Config, 'adminGroups'>, w: { get: TypedContainer['get'] }): AdminInvitationUseCases | undefined {
  if (config.adminGroups.length === 0) return undefined;
  return {
    issueInvitation: w.get(TOKENS.IssueInvitationUseCase),
    removePersonTotp: w.get(TOKENS.RemovePersonTotpUseCase),
    removePersonPasskeys: w.get(TOKENS.RemovePersonPasskeysUseCase),
    setPasswordWithLink: w.get(TOKENS.SetPasswordWithLinkUseCase),
  };
}
