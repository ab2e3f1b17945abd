import { ListAccountSessionsUseCase } from '../application/account/list-account-sessions';
import { RevokeAccountSessionsUseCase } from '../application/account/revoke-account-sessions';
import { SignOutOfAppUseCase } from '../application/account/sign-out-of-app';
import type { TypedContainer } from './binding';
import { TOKENS } from './tokens';

/** The account page's sessions and apps (issue 16): list them, end some or all, sign out of one app. */
export function bindAccount(c: TypedContainer): void {
  c.bindClass(TOKENS.ListAccountSessionsUseCase, ListAccountSessionsUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.SessionIndex,
    TOKENS.RevokedSessions,
    TOKENS.AppGrants,
  ]);
  c.bindClass(TOKENS.SignOutOfAppUseCase, SignOutOfAppUseCase, [TOKENS.RequestAuthenticator, TOKENS.AppGrants, TOKENS.AuditLog]);
  c.bindClass(TOKENS.RevokeAccountSessionsUseCase, RevokeAccountSessionsUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.SessionIndex,
    TOKENS.RevokedSessions,
    TOKENS.AuditLog,
    TOKENS.AppGrants,
  ]);
}
