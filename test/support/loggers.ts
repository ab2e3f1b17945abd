import { Writable } from 'node:stream';
import type { Logger, LogLevel } from '../../src/adapters/system/logger';
import { PinoLogger } from '../../src/adapters/system/pino-logger';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * The loggers tests hand to adapters. The gateway itself logs through PinoLogger; this one exists so a
 * test can read entries as plain JSON objects, or pass a logger that says nothing.
 */
export class TestLogger implements Logger {
  private readonly min: number;

  /** `write` gets each entry at or above `level` as one JSON line (`{time, level, msg, ...fields}`). */
  constructor(
    level: LogLevel,
    private readonly write: (line: string, level: LogLevel) => void = () => undefined,
  ) {
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

/** A logger that drops everything, for adapters whose logging a test does not look at. */
export const silentLogger: Logger = new TestLogger('silent');

/** A real PinoLogger writing into memory, for tests that read what an operator would see. */
export function capturedLogger(level: 'debug' | 'info' = 'debug'): { logger: PinoLogger; text: () => string; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = new PinoLogger({ level, destination });
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
