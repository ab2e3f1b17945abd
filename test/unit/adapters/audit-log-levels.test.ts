import { LoggerAuditLog, type LogLevel } from '../../../src/adapters/system/logger';
import type { AuditEvent } from '../../../src/application/ports/audit-log';
import { TestLogger } from '../../support/loggers';

function levelsOf(event: AuditEvent, at: LogLevel = 'debug'): LogLevel[] {
  const levels: LogLevel[] = [];
  new LoggerAuditLog(new TestLogger(at, (_line, level) => levels.push(level))).record(event);
  return levels;
}

describe('audit log levels', () => {
  const anonymous: AuditEvent = { event: 'access_denied', username: '', host: 'app.example.test', reason: 'login_required', requestId: 'r1' };

  // Every first visit goes this way to the login page: at info it was half of all log lines.
  it('keeps an anonymous visit sent to the login page at debug, out of the info log', () => {
    expect(levelsOf(anonymous)).toEqual(['debug']);
    expect(levelsOf(anonymous, 'info')).toEqual([]);
  });

  it('keeps real denials at info: a logged-in user refused by a rule, an ambiguous path', () => {
    expect(levelsOf({ event: 'access_denied', username: 'bob', host: 'admin.example.test', reason: 'user_not_allowed' }, 'info')).toEqual(['info']);
    expect(levelsOf({ event: 'access_denied', username: '', host: 'app.example.test', reason: 'ambiguous_path' }, 'info')).toEqual(['info']);
  });

  it('keeps a bad credential and a lock at info or above', () => {
    expect(levelsOf({ event: 'login_failed', login: 'alice', method: 'basic', ip: '10.0.0.1', reason: 'invalid_credentials' }, 'info')).toEqual(['info']);
    const locked = levelsOf({ event: 'login_locked', login: 'alice', ip: '10.0.0.1', retryAfter: 60 }, 'info');
    expect(locked).toHaveLength(1);
  });
});
