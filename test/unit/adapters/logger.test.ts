import { JsonLinesLogger, LoggerAuditLog, type LogLevel, type Logger } from '../../../src/adapters/system/logger';

function capture(level: LogLevel) {
  const lines: Array<{ line: string; level: LogLevel }> = [];
  return { lines, logger: new JsonLinesLogger(level, (line, l) => lines.push({ line, level: l })) };
}

describe('JsonLinesLogger', () => {
  it('writes one JSON object per line with time, level, message and fields', () => {
    const { lines, logger } = capture('info');
    logger.info('hello', { user: 'alice' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0].line)).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'info', msg: 'hello', user: 'alice' });
  });

  it('drops messages below its level and writes nothing when silent', () => {
    const info = capture('warn');
    info.logger.info('quiet');
    info.logger.error('loud');
    expect(info.lines.map((l) => l.level)).toEqual(['error']);
    const silent = capture('silent');
    silent.logger.error('nothing');
    expect(silent.lines).toEqual([]);
  });
});

describe('LoggerAuditLog', () => {
  it('logs audit events at info level', () => {
    const { lines, logger } = capture('info');
    new LoggerAuditLog(logger).record({ event: 'logout', username: 'alice' });
    expect(JSON.parse(lines[0].line)).toMatchObject({ msg: 'audit', event: 'logout', username: 'alice' });
  });

  it('never throws, even when the logger does', () => {
    const broken: Logger = { debug: () => {}, info: () => { throw new Error('disk full'); }, warn: () => {}, error: () => {} };
    expect(() => new LoggerAuditLog(broken).record({ event: 'logout', username: 'alice' })).not.toThrow();
  });
});
