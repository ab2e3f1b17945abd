import { InMemoryHandoffCodes } from '../adapters/state/memory/in-memory-handoff-codes';
import { SqliteHandoffCodes } from '../adapters/state/sqlite/sqlite-handoff-codes';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { HandoffCodes } from '../application/handoff/handoff-codes';
import type { IdGenerator } from '../application/ports/id-generator';
import type { SessionSealer } from '../application/ports/session-sealer';
import type { RequestAuthenticator } from '../application/sessions/request-authenticator';
import { IssueHandoffCodeUseCase, MAX_HANDOFF_CODE_LIFETIME_MS, type HandoffSettings } from '../application/handoff/issue-handoff-code';
import { RedeemHandoffCodeUseCase } from '../application/handoff/redeem-handoff-code';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import { gatewayDomainsOf } from './cookie-domain';
import { bindDurable } from './durable-state';
import { TOKENS } from './tokens';

/**
 * Issue 17's bindings: the hand-off codes (in the store the other short-lived state uses: Redis,
 * else PostgreSQL, else the embedded SQLite file, else memory) and the two hand-off use cases.
 */
export function bindHandoff(c: TypedContainer, config: Config): void {
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  bind(TOKENS.HandoffSettings, (): HandoffSettings => ({
    secondaries: gatewayDomainsOf(config.appUrls.slice(1)).map((g) => g.domain),
    codeLifetimeMs: MAX_HANDOFF_CODE_LIFETIME_MS,
  }));
  bindDurable(c, TOKENS.HandoffCodes, [TOKENS.Clock], (clock: Clock) => ({
    redis: (redis, { RedisHandoffCodes }) => new RedisHandoffCodes(redis, clock),
    postgres: (pg, { PostgresHandoffCodes }) => new PostgresHandoffCodes(pg, clock),
    sqlite: (db) => new SqliteHandoffCodes(db, clock),
    memory: () => new InMemoryHandoffCodes(clock),
  }));
  bind(
    TOKENS.IssueHandoffCodeUseCase,
    (...d: [RequestAuthenticator, HandoffCodes, IdGenerator, Clock, SessionSealer, HandoffSettings, AuditLog]) => new IssueHandoffCodeUseCase(...d),
    [TOKENS.RequestAuthenticator, TOKENS.HandoffCodes, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.SessionSealer, TOKENS.HandoffSettings, TOKENS.AuditLog],
  );
  bind(TOKENS.RedeemHandoffCodeUseCase, (...d: [RequestAuthenticator, HandoffCodes, Clock, HandoffSettings, AuditLog]) => new RedeemHandoffCodeUseCase(...d), [
    TOKENS.RequestAuthenticator,
    TOKENS.HandoffCodes,
    TOKENS.Clock,
    TOKENS.HandoffSettings,
    TOKENS.AuditLog,
  ]);
}
