import type { AccessTokenRecord } from '../../domain/access-token';
import { err, ok, type Result } from '../../domain/result';
import type { UserStore } from '../ports/user-store';
import type { AccessTokens } from './access-tokens';
import type { IssuedToken, TokenIssueError, TokenIssuer } from './token-issuer';
import type { TokenRevocation } from './token-revocation';

/** The account named does not exist in the user store (or is disabled). */
export type UnknownAccount = { readonly code: 'unknown_account' };

/**
 * What an administrator does with an account's tokens (`portcullis tokens`, issue 32): a person's
 * or a service account's, named by username or e-mail, without a session. Through the same
 * TokenIssuer and TokenRevocation as the account page, audited as `by: 'cli'`. Throws what the
 * stores throw.
 */
export class TokenAdministration {
  constructor(
    private readonly users: UserStore,
    private readonly tokens: AccessTokens,
    private readonly issuer: TokenIssuer,
    private readonly revocation: TokenRevocation,
  ) {}

  async create(
    login: string,
    fields: { readonly name: unknown; readonly apps?: unknown; readonly expiresInDays?: unknown },
  ): Promise<Result<IssuedToken, UnknownAccount | TokenIssueError>> {
    const username = await this.usernameOf(login);
    if (username === null) return err({ code: 'unknown_account' });
    return this.issuer.issue({ username, ...fields, by: 'cli' });
  }

  async list(login: string): Promise<Result<{ readonly username: string; readonly tokens: readonly AccessTokenRecord[] }, UnknownAccount>> {
    const username = await this.usernameOf(login);
    if (username === null) return err({ code: 'unknown_account' });
    return ok({ username, tokens: await this.tokens.list(username) });
  }

  async revoke(login: string, id: string): Promise<Result<{ readonly username: string }, UnknownAccount | { readonly code: 'token_not_found' }>> {
    const username = await this.usernameOf(login);
    if (username === null) return err({ code: 'unknown_account' });
    const revoked = await this.revocation.revoke({ username, id, by: 'cli' });
    return revoked.ok ? ok({ username }) : err(revoked.error);
  }

  private async usernameOf(login: string): Promise<string | null> {
    return (await this.users.findAccount(login.trim()))?.username ?? null;
  }
}
