import type { PasskeySecondFactorChoices } from '../../../src/application/passkeys/passkey-second-factor-choices';
import { unique, useAdapter, type AdapterFactory } from './harness';

/** The behaviour every PasskeySecondFactorChoices adapter must show (issue 16). */
export function passkeySecondFactorChoicesContract(name: string, makeAdapter: AdapterFactory<PasskeySecondFactorChoices>): void {
  describe(`PasskeySecondFactorChoices contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const choices = (): PasskeySecondFactorChoices => subject.adapter();

    it('knows no choice for an account that never made one', async () => {
      expect(await choices().chosen(unique('user'))).toBe(false);
    });

    it('keeps a choice, and forgets it when withdrawn', async () => {
      const user = unique('user');
      await choices().choose(user, true);
      expect(await choices().chosen(user)).toBe(true);
      await choices().choose(user, false);
      expect(await choices().chosen(user)).toBe(false);
    });

    it('is idempotent both ways', async () => {
      const user = unique('user');
      await choices().choose(user, false);
      await choices().choose(user, true);
      await choices().choose(user, true);
      expect(await choices().chosen(user)).toBe(true);
      await choices().choose(user, false);
      await choices().choose(user, false);
      expect(await choices().chosen(user)).toBe(false);
    });

    it('keeps accounts apart', async () => {
      const [a, b] = [unique('user'), unique('user')];
      await choices().choose(a, true);
      expect(await choices().chosen(b)).toBe(false);
      expect(await choices().chosen(a)).toBe(true);
    });
  });
}
