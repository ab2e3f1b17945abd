import { InMemorySessionIndex } from '../adapters/state/memory/in-memory-session-index';
import { SqliteSessionIndex } from '../adapters/state/sqlite/sqlite-session-index';
import type { AppGrants } from '../application/account/app-grants';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { RevokedSessions } from '../application/ports/revoked-sessions';
import type { SessionIndex } from '../application/ports/session-index';
import { LastSeenRecorder } from '../application/sessions/last-seen-recorder';
import type { RequestAuthenticator } from '../application/sessions/request-authenticator';
import { ListAccountSessionsUseCase } from '../application/account/list-account-sessions';
import { SignOutOfAppUseCase } from '../application/account/sign-out-of-app';
import { RevokeAccountSessionsUseCase } from '../application/account/revoke-account-sessions';
import type { TypedContainer } from './binding';
import { bindDurable } from './durable-state';
import type { Resources } from './resources';
import { TOKENS } from './tokens';

/** How often the noted "last seen" times are written, in one batch each time. */
const LAST_SEEN_FLUSH_MS = 15_000;

/** The account page's wiring (issue 16): the session index, the last-seen recorder and the account use cases. */
export function bindAccount(c: TypedContainer): void {
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  // Like the revocations it feeds: in PostgreSQL whenever it is configured, Redis or not.
  bindDurable(
    c,
    TOKENS.SessionIndex,
    [TOKENS.Clock],
    (clock: Clock) => ({
      redis: (redis, { RedisSessionIndex }) => new RedisSessionIndex(redis, clock),
      postgres: (pg, { PostgresSessionIndex }) => new PostgresSessionIndex(pg, clock),
      sqlite: (db) => new SqliteSessionIndex(db, clock),
      memory: () => new InMemorySessionIndex(clock),
    }),
    'records',
  );
  bind(
    TOKENS.LastSeenRecorder,
    (index: SessionIndex, clock: Clock, resources: Resources) => {
      const recorder = new LastSeenRecorder(index, clock);
      let timer: NodeJS.Timeout | null = null;
      resources.onStart(() => {
        timer = setInterval(() => void recorder.flush(), LAST_SEEN_FLUSH_MS);
        // The flush must never keep a process alive that has nothing else to do.
        timer.unref();
      });
      resources.add(async () => {
        if (timer !== null) clearInterval(timer);
        await recorder.flush();
      });
      return recorder;
    },
    [TOKENS.SessionIndex, TOKENS.Clock, TOKENS.Resources],
  );
  bind(TOKENS.ListAccountSessionsUseCase, (...d: [RequestAuthenticator, SessionIndex, RevokedSessions, AppGrants]) => new ListAccountSessionsUseCase(...d), [
    TOKENS.RequestAuthenticator,
    TOKENS.SessionIndex,
    TOKENS.RevokedSessions,
    TOKENS.AppGrants,
  ]);
  bind(TOKENS.SignOutOfAppUseCase, (...d: [RequestAuthenticator, AppGrants, AuditLog]) => new SignOutOfAppUseCase(...d), [
    TOKENS.RequestAuthenticator,
    TOKENS.AppGrants,
    TOKENS.AuditLog,
  ]);
  bind(
    TOKENS.RevokeAccountSessionsUseCase,
    (...d: [RequestAuthenticator, SessionIndex, RevokedSessions, AuditLog, AppGrants]) => new RevokeAccountSessionsUseCase(...d),
    [TOKENS.RequestAuthenticator, TOKENS.SessionIndex, TOKENS.RevokedSessions, TOKENS.AuditLog, TOKENS.AppGrants],
  );
}
