import { InMemorySessionIndex } from '../../../src/adapters/state/memory/in-memory-session-index';
import { FixedClock } from '../../support/fakes';
import { sessionIndexContract } from './session-index.contract';

sessionIndexContract('InMemorySessionIndex', ({ clock }) => new InMemorySessionIndex(clock));

describe('InMemorySessionIndex', () => {
  it('never holds more than its capacity, forgetting the oldest registration', async () => {
    const clock = new FixedClock();
    const index = new InMemorySessionIndex(clock, 10);
    const at = clock.now();
    for (let i = 0; i < 50; i += 1) {
      await index.register({
        id: `s-${i}`,
        username: 'u',
        method: 'password',
        userAgent: '',
        address: 'unknown',
        startedAt: at + i,
        expiresAt: at + 60_000,
        lastSeenAt: at,
      });
    }
    const ids = (await index.list('u')).map((s) => s.id);
    expect(ids).toHaveLength(10);
    expect(ids[0]).toBe('s-49');
    expect(ids).not.toContain('s-0');
  });
});
