import type { AuditEvent, AuditLog } from '../../application/ports/audit-log';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** What the adapters log through. Fields must never hold a secret, password, cookie or token. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Audit events as `info` log lines. */
export class LoggerAuditLog implements AuditLog {
  constructor(private readonly logger: Logger) {}

  record(event: AuditEvent): void {
    try {
      this.logger.info('audit', { ...event });
    } catch {
      // An audit sink that fails must not fail the request.
    }
  }
}
