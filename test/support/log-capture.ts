import { Writable } from 'node:stream';
import { PinoLogger } from '../../src/adapters/system/pino-logger';

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
    lines: () => text().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
