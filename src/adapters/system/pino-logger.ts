import { hostname } from 'node:os';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import type { Logger, LogLevel } from './logger';

/**
 * Field names that must never reach a log line with their value, wherever they appear. Nothing
 * in Portcullis logs them on purpose; this is the second lock on the door.
 */
const REDACT = [
  'password',
  'secret',
  'token',
  'cookie',
  'authorization',
  'code',
  'totpSecret',
  'sessionToken',
  'jwt',
  '*.password',
  '*.secret',
  '*.token',
  '*.cookie',
  '*.authorization',
  '*.code',
  '*.totpSecret',
  '*.sessionToken',
  '*.jwt',
  'headers.cookie',
  'headers.authorization',
  'headers["set-cookie"]',
];

export interface PinoLoggerOptions {
  readonly level: LogLevel;
  /**
   * Where lines go; by default stdout as JSON lines. Composition passes a prettified stream for a
   * person at a terminal (pino-pretty, an optional dependency, never used for production logs).
   */
  readonly destination?: DestinationStream;
}

/**
 * Structured JSON lines through pino: `time` (ISO), `level` (a word), `msg`, then the fields.
 * Request-scoped lines carry `requestId`. Keeps the small {@link Logger} interface, so nothing
 * else in the code base knows pino.
 */
export class PinoLogger implements Logger {
  readonly pino: Pino;

  constructor(options: PinoLoggerOptions) {
    this.pino = pino(
      {
        level: options.level,
        // The host name tells replicas apart (a pod name on Kubernetes).
        base: { service: 'portcullis', hostname: hostname() },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        redact: { paths: REDACT, censor: '[redacted]' },
      },
      options.destination ?? pino.destination({ dest: 1, sync: false }),
    );
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    if (fields === undefined) this.pino.debug(msg);
    else this.pino.debug(fields, msg);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    if (fields === undefined) this.pino.info(msg);
    else this.pino.info(fields, msg);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    if (fields === undefined) this.pino.warn(msg);
    else this.pino.warn(fields, msg);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    if (fields === undefined) this.pino.error(msg);
    else this.pino.error(fields, msg);
  }

  /** Writes out what is buffered (before the process exits). */
  flush(): Promise<void> {
    return new Promise((resolve) => this.pino.flush(() => resolve()));
  }
}
