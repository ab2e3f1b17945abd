import { isLiveToken, type AccessTokenRecord } from '../../domain/access-token';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { AccessTokens } from '../tokens/access-tokens';
import type { TokenRevocation } from '../tokens/token-revocation';
import { unavailableAsError } from '../store-unavailable';
import type { AccountDirectory } from './account-directory';
import { type AdminGate, type AdminRefusal, type AdminRequest, admitChange } from './admin-gate';

/** A live access token as the console shows it: never its secret nor its hash. */
export interface AdminTokenView {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  /** The applications it passes; null: every application its owner may open. */
  readonly apps: readonly string[] | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** As last recorded (written in batches); null: never used. */
  readonly lastUsedAt: number | null;
}

const viewOf = (r: AccessTokenRecord): AdminTokenView => ({
  id: r.id,
  username: r.username,
  name: r.name,
  apps: r.apps === null ? null : [...r.apps],
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  lastUsedAt: r.lastUsedAt,
});

/** The live tokens of one person, or of everyone the directory lists, newest first. */
async function liveTokensOf(username: string | null, directory: AccountDirectory, tokens: AccessTokens, now: number): Promise<AccessTokenRecord[]> {
  const names = username !== null ? [username] : (await directory.list()).map((l) => l.account.username);
  const lists = await Promise.all(names.map((n) => tokens.list(n)));
  return lists
    .flat()
    .filter((r) => isLiveToken(r, now))
    .sort((a, b) => b.createdAt - a.createdAt);
}

export interface ListAdminTokensInput extends AdminRequest {
  /** Only this person's tokens; null: everyone the user stores list. */
  readonly username: string | null;
}

/** The tokens half of `GET /api/admin/sessions` (issue 36): everyone's live access tokens (issue 32). */
export class ListAdminTokensUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly directory: AccountDirectory,
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
  ) {}

  async execute(input: ListAdminTokensInput): Promise<Result<readonly AdminTokenView[], AdminRefusal>> {
    const admitted = await this.gate.admit(input);
    if (!admitted.ok) return admitted;
    return unavailableAsError(async () => ok((await liveTokensOf(input.username, this.directory, this.tokens, this.clock.now())).map(viewOf)));
  }
}

export interface RevokeAdminTokenInput extends AdminRequest {
  /** Whether the request provably comes from the gateway's own pages: refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  readonly id: string;
}

/** `token_not_found`: no live token of anyone listed has this id. */
export type RevokeAdminTokenError = AdminRefusal | { readonly code: 'cross_site_request' } | { readonly code: 'token_not_found' };

/**
 * `POST /api/admin/tokens/revoke` (issue 36): ends anyone's access token through the one
 * TokenRevocation (every replica, before it answers), audited as `by: 'admin'` with the administrator.
 */
export class RevokeAdminTokenUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly directory: AccountDirectory,
    private readonly tokens: AccessTokens,
    private readonly revocation: TokenRevocation,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: RevokeAdminTokenInput): Promise<Result<{ readonly username: string }, RevokeAdminTokenError>> {
    const admitted = await admitChange(this.gate, this.audit, input);
    if (!admitted.ok) return admitted;
    const admin = admitted.value.identity.username;
    return unavailableAsError(async () => {
      const live = await liveTokensOf(null, this.directory, this.tokens, this.clock.now());
      const token = live.find((t) => t.id === input.id);
      if (token === undefined) return err({ code: 'token_not_found' as const });
      const revoked = await this.revocation.revoke({ username: token.username, id: token.id, by: 'admin', admin, requestId: input.requestId });
      return revoked.ok ? ok({ username: token.username }) : err(revoked.error);
    });
  }
}
