import { LoggerAuditLog, type LogLevel, type Logger } from '../../../src/adapters/system/logger';
import { TestLogger } from '../../support/loggers';

function capture(level: LogLevel) {
  const lines: Array<{ line: string; level: LogLevel }> = [];
  return { lines, logger: new TestLogger(level, (line, l) => lines.push({ line, level: l })) };
}

describe('LoggerAuditLog', () => {
  it('logs audit events at info level', () => {
    const { lines, logger } = capture('info');
    new LoggerAuditLog(logger).record({ event: 'logout', username: 'alice' });
    expect(JSON.parse(lines[0].line)).toMatchObject({ msg: 'audit', event: 'logout', username: 'alice' });
  });

  it('never throws, even when the logger does', () => {
    const broken: Logger = {
      debug: () => {},
      info: () => {
        throw new Error('disk full');
      },
      warn: () => {},
      error: () => {},
    };
    expect(() => new LoggerAuditLog(broken).record({ event: 'logout', username: 'alice' })).not.toThrow();
  });
});
