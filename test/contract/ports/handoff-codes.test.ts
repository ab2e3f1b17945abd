import { InMemoryHandoffCodes } from '../../../src/adapters/state/memory/in-memory-handoff-codes';
import { FixedClock } from '../../support/fakes';
import { handoffCodesContract } from './handoff-codes.contract';

handoffCodesContract('InMemoryHandoffCodes', ({ clock }) => new InMemoryHandoffCodes(clock));

describe('InMemoryHandoffCodes', () => {
  it('never holds more than its capacity: the oldest codes go first', async () => {
    const clock = new FixedClock();
    const codes = new InMemoryHandoffCodes(clock, 10);
    const grant = { domain: 'example.org', state: 's', sealedSession: 't', redirectTarget: 'https://example.org/' };
    for (let i = 0; i < 50; i += 1) await codes.put(`c-${i}`, grant, clock.now() + 30_000);
    expect(await codes.take('c-49')).toEqual(grant);
    expect(await codes.take('c-0')).toBeNull();
  });
});
