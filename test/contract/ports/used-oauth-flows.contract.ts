import type { UsedOAuthFlows } from '../../../src/application/ports/used-oauth-flows';
import { unique, useAdapter, type AdapterFactory } from './harness';

/** The behaviour every UsedOAuthFlows adapter must show: a flow's callback is handled once. */
export function usedOAuthFlowsContract(name: string, makeAdapter: AdapterFactory<UsedOAuthFlows>): void {
  describe(`UsedOAuthFlows contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const flows = (): UsedOAuthFlows => subject.adapter();
    const until = (): number => subject.env().clock.now() + 600_000;

    it('lets a flow be used the first time', async () => {
      expect(await flows().use(unique('flow'), until())).toBe(true);
    });

    it('refuses the same flow a second time', async () => {
      const id = unique('flow');
      await flows().use(id, until());
      expect(await flows().use(id, until())).toBe(false);
    });

    it('keeps flows apart', async () => {
      await flows().use(unique('flow'), until());
      expect(await flows().use(unique('flow'), until())).toBe(true);
    });

    it('grants exactly one of several concurrent uses of one flow', async () => {
      const id = unique('flow');
      const answers = await Promise.all(Array.from({ length: 5 }, () => flows().use(id, until())));
      expect(answers.filter((a) => a)).toHaveLength(1);
    });

    it('still refuses a second use when the flow had already expired at the first', async () => {
      const id = unique('flow');
      const past = subject.env().clock.now() - 1_000;
      expect(await flows().use(id, past)).toBe(true);
      expect(await flows().use(id, past)).toBe(false);
    });
  });
}
