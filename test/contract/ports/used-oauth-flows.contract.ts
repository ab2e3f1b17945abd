import type { UsedOAuthFlows } from '../../../src/application/ports/used-oauth-flows';
import { FixedClock } from '../../support/fakes';

/** The UsedOAuthFlows contract; `make` gives a fresh, empty store reading time from `clock`. */
export function usedOAuthFlowsContract(name: string, make: (clock: FixedClock) => Promise<UsedOAuthFlows> | UsedOAuthFlows): void {
  describe(`UsedOAuthFlows contract: ${name}`, () => {
    let clock: FixedClock;
    let store: UsedOAuthFlows;
    beforeEach(async () => {
      clock = new FixedClock();
      store = await make(clock);
    });

    it('grants the first use of a flow and refuses the second', async () => {
      expect(await store.use('flow-1', clock.now() + 600_000)).toBe(true);
      expect(await store.use('flow-1', clock.now() + 600_000)).toBe(false);
    });

    it('keeps flows apart', async () => {
      expect(await store.use('flow-1', clock.now() + 600_000)).toBe(true);
      expect(await store.use('flow-2', clock.now() + 600_000)).toBe(true);
    });

    it('grants exactly one of several concurrent uses of one flow', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => store.use('flow-c', clock.now() + 600_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
