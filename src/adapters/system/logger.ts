import type { AuditEvent, AuditLog } from '../../application/ports/audit-log';

import type { LogLevel } from '../../config/server';

export type { LogLevel };

/** What the adapters log through. Fields must never hold a secret, password, cookie or token. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Audit events as `info` log lines, but for an anonymous request sent to the login page: that is
 * how every first visit begins (it made half of all log lines), so it is a `debug` line, and
 * counted in `portcullis_forward_auth_decisions_total`. A signed-in user refused by a rule, an
 * ambiguous path and every failed login stay at `info`.
 */
export class LoggerAuditLog implements AuditLog {
  constructor(private readonly logger: Logger) {}

  record(event: AuditEvent): void {
    try {
      if (event.event === 'access_denied' && event.reason === 'login_required' && event.username === '') this.logger.debug('audit', { ...event });
      else this.logger.info('audit', { ...event });
    } catch {
      // An audit sink that fails must not fail the request.
    }
  }
}
