import { checkTokenRequest, isLiveToken, MAX_TOKENS_PER_ACCOUNT, type AccessTokenRecord, type TokenFieldProblem } from '../../domain/access-token';
import { err, ok, type Result } from '../../domain/result';
import type { AccessRulesSource } from '../forward-auth/access-rules-source';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { AccessTokens } from './access-tokens';
import type { TokenSecrets } from './token-secrets';

const DAY_MS = 24 * 3600 * 1000;

/** What the operator allows (TOKEN_MAX_LIFETIME). */
export interface TokenIssuerSettings {
  /** The longest life of a token in days, and the life of one asked for without an expiry. */
  readonly maxLifetimeDays: number;
}

/** A token asked for, for an account already known to exist: the fields as they came (checked here). */
export interface TokenRequest {
  readonly username: string;
  readonly name: unknown;
  readonly apps?: unknown;
  readonly expiresInDays?: unknown;
  /** Who asked: the account page (the API) or an administrator (`portcullis tokens create`). */
  readonly by: 'account' | 'cli';
  readonly requestId?: string;
}

/** A token made: the secret, shown this once and never again, and the record the store keeps. */
export interface IssuedToken {
  readonly token: string;
  readonly record: AccessTokenRecord;
}

/**
 * `invalid_fields`: the name, the applications (malformed, or not an application of the rules in
 * force) or the expiry (not a whole number of days within TOKEN_MAX_LIFETIME). `too_many_tokens`:
 * the account holds MAX_TOKENS_PER_ACCOUNT live tokens already.
 */
export type TokenIssueError = { readonly code: 'invalid_fields'; readonly fields: readonly TokenFieldProblem[] } | { readonly code: 'too_many_tokens' };

/**
 * The one way an access token is made (issue 32), for the account API and the CLI alike: the
 * request checked, the account's live tokens counted, the secret issued, only its keyed hash
 * stored, and the creation audited (never the secret). Throws what the store throws (an outage is
 * the caller's `store_unavailable`).
 */
export class TokenIssuer {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly secrets: TokenSecrets,
    private readonly rules: AccessRulesSource,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly settings: TokenIssuerSettings,
  ) {}

  async issue(request: TokenRequest): Promise<Result<IssuedToken, TokenIssueError>> {
    const checked = checkTokenRequest(request, this.settings.maxLifetimeDays);
    if (!checked.ok) return err({ code: 'invalid_fields', fields: checked.fields });
    if (checked.apps !== null && !checked.apps.every((app) => this.knownApps().has(app))) return err({ code: 'invalid_fields', fields: ['apps'] });
    const now = this.clock.now();
    const live = (await this.tokens.list(request.username)).filter((r) => isLiveToken(r, now));
    if (live.length >= MAX_TOKENS_PER_ACCOUNT) return err({ code: 'too_many_tokens' });
    const { token, hash } = this.secrets.issue();
    const record: AccessTokenRecord = {
      id: this.ids.next(),
      hash,
      username: request.username,
      name: checked.name,
      apps: checked.apps,
      createdAt: now,
      expiresAt: now + checked.days * DAY_MS,
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.tokens.add(record);
    this.audit.record({
      event: 'token_created',
      username: record.username,
      id: record.id,
      name: record.name,
      apps: record.apps,
      expiresAt: new Date(record.expiresAt).toISOString(),
      by: request.by,
      requestId: request.requestId,
    });
    return ok({ token, record });
  }

  /** The names of the applications in the rules in force now (a token may only name these). */
  private knownApps(): ReadonlySet<string> {
    return new Set(this.rules.current().apps.flatMap((a) => (a.name === null ? [] : [a.name])));
  }
}
