import { InMemoryUsedTotpSteps } from '../../../src/adapters/state/memory/in-memory-used-totp-steps';
import { FixedClock } from '../../support/fakes';
import { usedTotpStepsContract } from './used-totp-steps.contract';

usedTotpStepsContract('InMemoryUsedTotpSteps', ({ clock }) => new InMemoryUsedTotpSteps(clock));

describe('InMemoryUsedTotpSteps', () => {
  it('treats usernames case-insensitively', async () => {
    const steps = new InMemoryUsedTotpSteps(new FixedClock());
    expect(await steps.claim('Alice', 100, Date.UTC(2027, 0, 1))).toBe(true);
    expect(await steps.claim('alice', 100, Date.UTC(2027, 0, 1))).toBe(false);
  });

  it('forgets a claim after its time, when the code can no longer be accepted anyway', async () => {
    const clock = new FixedClock();
    const steps = new InMemoryUsedTotpSteps(clock);
    await steps.claim('alice', 100, clock.now() + 90_000);
    clock.advance(90_000);
    expect(await steps.claim('alice', 100, clock.now() + 90_000)).toBe(true);
  });
});
