import type { AuditEvent, AuditLog } from '../../application/ports/audit-log';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** What the adapters log through. Fields must never hold a secret, password, cookie or token. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** One JSON object per line on stdout (stderr for warnings and errors). */
export class JsonLinesLogger implements Logger {
  private readonly min: number;

  constructor(level: LogLevel, private readonly write: (line: string, level: LogLevel) => void = defaultWrite) {
    this.min = RANK[level];
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.log('error', msg, fields);
  }

  private log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    if (RANK[level] < this.min) return;
    this.write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }), level);
  }
}

function defaultWrite(line: string, level: LogLevel): void {
  (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
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
