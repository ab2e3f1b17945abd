import type { TokenUseCases } from '../adapters/http/token-routes';
import type { AccessRulesSource } from '../application/forward-auth/access-rules-source';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { IdGenerator } from '../application/ports/id-generator';
import type { AccessTokens } from '../application/tokens/access-tokens';
import { CreateAccessTokenUseCase } from '../application/tokens/create-access-token';
import { ListAccessTokensUseCase } from '../application/tokens/list-access-tokens';
import { RevokeAccessTokenUseCase } from '../application/tokens/revoke-access-token';
import { TokenAdministration } from '../application/tokens/token-administration';
import { TokenIssuer } from '../application/tokens/token-issuer';
import { TokenRevocation } from '../application/tokens/token-revocation';
import type { TokenSecrets } from '../application/tokens/token-secrets';
import type { TypedContainer, Wiring } from './binding';
import type { Config } from '../config/load';
import { TOKENS } from './tokens';

export type AccessTokensConfig = Pick<Config, 'tokens' | 'tokenMaxLifetimeDays'>;

/**
 * Managing access tokens (issue 32): the one issuer and the one revocation the account API and
 * `portcullis tokens` share, and the account page's use cases (resolved only with TOKENS on). The
 * store, the secrets and the check of a presented token are bound with the sessions (sessions.ts).
 */
export function bindAccessTokens(c: TypedContainer, config: AccessTokensConfig): void {
  c.bind(
    TOKENS.TokenIssuer,
    (...[tokens, secrets, rules, ids, clock, audit]: [AccessTokens, TokenSecrets, AccessRulesSource, IdGenerator, Clock, AuditLog]) =>
      new TokenIssuer(tokens, secrets, rules, ids, clock, audit, { maxLifetimeDays: config.tokenMaxLifetimeDays }),
    [TOKENS.AccessTokens, TOKENS.TokenSecrets, TOKENS.AccessRulesSource, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.AuditLog],
  );
  c.bindClass(TOKENS.TokenRevocation, TokenRevocation, [TOKENS.AccessTokens, TOKENS.RevokedSessions, TOKENS.Clock, TOKENS.AuditLog]);
  // The CLI names accounts as configured (StoreUsers): it loads no self-enrolled TOTP view.
  c.bindClass(TOKENS.TokenAdministration, TokenAdministration, [TOKENS.StoreUsers, TOKENS.AccessTokens, TOKENS.TokenIssuer, TOKENS.TokenRevocation]);
  const { RequestAuthenticator: authenticator, UserStore: users, AuditLog: audit } = TOKENS;
  c.bindClass(TOKENS.CreateAccessTokenUseCase, CreateAccessTokenUseCase, [authenticator, users, TOKENS.TokenIssuer, audit]);
  c.bindClass(TOKENS.ListAccessTokensUseCase, ListAccessTokensUseCase, [authenticator, users, TOKENS.AccessTokens]);
  c.bindClass(TOKENS.RevokeAccessTokenUseCase, RevokeAccessTokenUseCase, [authenticator, users, TOKENS.TokenRevocation, audit]);
}

/** The token use cases for the HTTP adapter, or undefined with TOKENS=false (no route then). */
export function tokenUseCases(config: Pick<Config, 'tokens'>, w: Wiring): TokenUseCases | undefined {
  if (!config.tokens) return undefined;
  return {
    createAccessToken: w.get(TOKENS.CreateAccessTokenUseCase),
    listAccessTokens: w.get(TOKENS.ListAccessTokensUseCase),
    revokeAccessToken: w.get(TOKENS.RevokeAccessTokenUseCase),
  };
}
