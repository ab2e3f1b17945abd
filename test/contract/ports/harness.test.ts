import { unique, useAdapter } from './harness';

describe('contract harness', () => {
  const log: string[] = [];
  let made = 0;
  const subject = useAdapter(async ({ onCleanup }) => {
    made += 1;
    const id = made;
    onCleanup(() => log.push(`first-${id}`));
    onCleanup(async () => {
      await Promise.resolve();
      log.push(`second-${id}`);
    });
    return { id };
  });

  it('builds the adapter with an async factory before each test', () => {
    expect(subject.adapter()).toEqual({ id: 1 });
    expect(log).toEqual([]);
  });

  it('runs the cleanups of the previous test, last registered first, and builds a fresh adapter', () => {
    expect(log).toEqual(['second-1', 'first-1']);
    expect(subject.adapter()).toEqual({ id: 2 });
  });

  it('hands out a clock that starts on a whole second near the real time', () => {
    const start = subject.env().clock.now();
    expect(start % 1000).toBe(0);
    expect(Math.abs(start - Date.now())).toBeLessThan(60_000);
  });

  it('makes names that never repeat', () => {
    expect(unique('alice')).not.toBe(unique('alice'));
  });
});
