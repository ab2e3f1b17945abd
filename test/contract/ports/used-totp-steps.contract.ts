import type { UsedTotpSteps } from '../../../src/application/ports/used-totp-steps';
import { unique, useAdapter, type AdapterFactory } from './harness';

const STEP = 58_908_960;

/** The behaviour every UsedTotpSteps adapter must show: each code works once, and never an older one after a newer. */
export function usedTotpStepsContract(name: string, makeAdapter: AdapterFactory<UsedTotpSteps>): void {
  describe(`UsedTotpSteps contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const steps = (): UsedTotpSteps => subject.adapter();
    const until = (): number => subject.env().clock.now() + 90_000;

    it('lets an account claim a step the first time', async () => {
      expect(await steps().claim(unique('alice'), STEP, until())).toBe(true);
    });

    it('refuses the same step a second time', async () => {
      const user = unique('alice');
      await steps().claim(user, STEP, until());
      expect(await steps().claim(user, STEP, until())).toBe(false);
    });

    it('lets the account claim a later step', async () => {
      const user = unique('alice');
      await steps().claim(user, STEP, until());
      expect(await steps().claim(user, STEP + 1, until())).toBe(true);
    });

    it('refuses an earlier step once a later one was claimed', async () => {
      const user = unique('alice');
      await steps().claim(user, STEP + 1, until());
      expect(await steps().claim(user, STEP, until())).toBe(false);
      expect(await steps().claim(user, STEP - 1, until())).toBe(false);
    });

    it('keeps the steps of different accounts apart', async () => {
      const alice = unique('alice');
      const bob = unique('bob');
      await steps().claim(alice, STEP, until());
      expect(await steps().claim(bob, STEP, until())).toBe(true);
    });

    it('grants exactly one of several concurrent claims of one step', async () => {
      const user = unique('alice');
      const answers = await Promise.all(Array.from({ length: 5 }, () => steps().claim(user, STEP, until())));
      expect(answers.filter((a) => a)).toHaveLength(1);
    });
  });
}
