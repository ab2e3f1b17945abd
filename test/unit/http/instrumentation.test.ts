import { instrumentation } from '../../../src/adapters/http/instrumentation';
import { MESSAGES } from '../../../src/adapters/http/messages';
import type { Logger } from '../../../src/adapters/system/logger';

interface Target {
  events: string[];
}

function setUp(): { logged: Array<[string, Record<string, unknown> | undefined]>; run: ReturnType<typeof instrumentation<Target>> } {
  const logged: Array<[string, Record<string, unknown> | undefined]> = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (msg, fields) => logged.push([msg, fields]) };
  const run = instrumentation<Target>(logger, {
    failure: 'thing failed',
    internalError: (t, id) => t.events.push(`500 ${id}`),
    abort: (t) => t.events.push('abort'),
    finished: (t, id, seconds) => t.events.push(`finished ${id} ${seconds >= 0}`),
  });
  return { logged, run };
}

describe('the instrumentation both stacks share', () => {
  it('keeps a sane incoming request id and reports the request once', async () => {
    const { run } = setUp();
    const target: Target = { events: [] };
    await run(target, 'abc-123', (t, id) => void t.events.push(`work ${id}`));
    expect(target.events).toEqual(['work abc-123', 'finished abc-123 true']);
  });

  it('replaces an id that could forge a log line', async () => {
    const { run } = setUp();
    const target: Target = { events: [] };
    await run(target, 'evil\nline', (t, id) => void t.events.push(id));
    expect(target.events[0]).not.toContain('\n');
    expect(target.events[0]).not.toBe('evil\nline');
  });

  it('reports work that finished at once at once, without making a promise', () => {
    const { run } = setUp();
    const target: Target = { events: [] };
    expect(run(target, 'r0', (t) => void t.events.push('work'))).toBeUndefined();
    expect(target.events).toEqual(['work', 'finished r0 true']);
  });

  it('reports work that finishes later only once it has finished', async () => {
    const { run } = setUp();
    const target: Target = { events: [] };
    let finish: () => void = () => undefined;
    const pending = run(target, 'r2', (t) => new Promise<void>((resolve) => (finish = () => resolve(void t.events.push('work')))));
    expect(pending).toBeInstanceOf(Promise);
    expect(target.events).toEqual([]);
    finish();
    await pending;
    expect(target.events).toEqual(['work', 'finished r2 true']);
  });

  it('turns anything thrown into the fixed 500 and logs the error class, never its message', () => {
    const { logged, run } = setUp();
    const target: Target = { events: [] };
    let out: unknown = 'not run';
    expect(() => {
      out = run(target, 'r1', () => {
        throw new TypeError('password=hunter2 at /secret/path');
      });
    }).not.toThrow();
    expect(out).toBeUndefined();
    expect(target.events).toEqual(['500 r1', 'finished r1 true']);
    expect(logged).toEqual([['thing failed', { requestId: 'r1', error: 'TypeError' }]]);
    expect(JSON.stringify(logged)).not.toContain('hunter2');
  });

  it('aborts when even the 500 cannot be written, and still never rejects', async () => {
    const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    const target: Target = { events: [] };
    const run = instrumentation<Target>(logger, {
      failure: 'x',
      internalError: () => {
        throw new Error('headers sent');
      },
      abort: (t) => t.events.push('abort'),
      finished: (t) => t.events.push('finished'),
    });
    await expect(run(target, undefined, () => Promise.reject(new Error('boom')))).resolves.toBeUndefined();
    expect(target.events).toEqual(['abort', 'finished']);
  });
});

describe('the message table', () => {
  it('keys every message by a snake_case code', () => {
    for (const code of Object.keys(MESSAGES)) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});
