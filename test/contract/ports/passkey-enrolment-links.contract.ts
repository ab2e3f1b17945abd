import type { PasskeyEnrolmentLinks } from '../../../src/application/passkeys/passkey-enrolment-links';
import { unique, useAdapter, type AdapterFactory, type ContractOptions } from './harness';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The behaviour every PasskeyEnrolmentLinks adapter must show (issue 16): a link redeems once, only
 * before it expires, for the account it was made for.
 */
export function passkeyEnrolmentLinksContract(name: string, makeAdapter: AdapterFactory<PasskeyEnrolmentLinks>, options: ContractOptions = {}): void {
  describe(`PasskeyEnrolmentLinks contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const links = (): PasskeyEnrolmentLinks => subject.adapter();
    const inADay = (): number => subject.env().clock.now() + DAY;

    it('gives back the account a link was made for', async () => {
      const code = unique('code');
      await links().put(code, 'dora', inADay());
      expect(await links().take(code)).toBe('dora');
    });

    it('gives a link once: a replay finds nothing', async () => {
      const code = unique('code');
      await links().put(code, 'dora', inADay());
      expect(await links().take(code)).toBe('dora');
      expect(await links().take(code)).toBeNull();
    });

    it('knows nothing of a link it never stored', async () => {
      expect(await links().take(unique('code'))).toBeNull();
    });

    it('keeps links apart, also two of one account', async () => {
      const [a, b, c] = [unique('code'), unique('code'), unique('code')];
      await links().put(a, 'dora', inADay());
      await links().put(b, 'erin@example.org', inADay());
      await links().put(c, 'dora', inADay());
      expect(await links().take(b)).toBe('erin@example.org');
      expect(await links().take(a)).toBe('dora');
      expect(await links().take(c)).toBe('dora');
    });

    it('gives exactly one of several concurrent redemptions of one link the account', async () => {
      const code = unique('code');
      await links().put(code, 'dora', inADay());
      const answers = await Promise.all(Array.from({ length: 5 }, () => links().take(code)));
      expect(answers.filter((a) => a !== null)).toEqual(['dora']);
    });

    if (options.followsClock !== false) {
      it('forgets a link once its time is up', async () => {
        const code = unique('code');
        await links().put(code, 'dora', inADay());
        subject.env().clock.advance(DAY);
        expect(await links().take(code)).toBeNull();
      });

      it('still gives a link just before its time is up', async () => {
        const code = unique('code');
        await links().put(code, 'dora', inADay());
        subject.env().clock.advance(DAY - 1);
        expect(await links().take(code)).toBe('dora');
      });
    }
  });
}
