import type { UsedTotpSteps } from '../../../src/application/ports/used-totp-steps';
import { FixedClock } from '../../support/fakes';

/** The UsedTotpSteps contract; `make` gives a fresh, empty store reading time from `clock`. */
export function usedTotpStepsContract(name: string, make: (clock: FixedClock) => Promise<UsedTotpSteps> | UsedTotpSteps): void {
  describe(`UsedTotpSteps contract: ${name}`, () => {
    let clock: FixedClock;
    let store: UsedTotpSteps;
    const step = 59_000_000;
    beforeEach(async () => {
      clock = new FixedClock();
      store = await make(clock);
    });
    const until = (): number => clock.now() + 90_000;

    it('grants the first claim of a step and refuses the same step again', async () => {
      expect(await store.claim('alice', step, until())).toBe(true);
      expect(await store.claim('alice', step, until())).toBe(false);
    });

    it('refuses an earlier step once a later one was used, and grants a later one', async () => {
      expect(await store.claim('alice', step, until())).toBe(true);
      expect(await store.claim('alice', step - 1, until())).toBe(false);
      expect(await store.claim('alice', step + 1, until())).toBe(true);
    });

    it('keeps accounts apart but treats usernames case-insensitively', async () => {
      expect(await store.claim('alice', step, until())).toBe(true);
      expect(await store.claim('bob', step, until())).toBe(true);
      expect(await store.claim('ALICE', step, until())).toBe(false);
    });

    it('grants exactly one of several concurrent claims of the same step', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => store.claim('carol', step, until())));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
