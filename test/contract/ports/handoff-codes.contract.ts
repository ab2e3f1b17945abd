import type { HandoffCodes, HandoffGrant } from '../../../src/application/handoff/handoff-codes';
import { unique, useAdapter, type AdapterFactory, type ContractOptions } from './harness';

const grant = (over: Partial<HandoffGrant> = {}): HandoffGrant => ({
  domain: 'example.org',
  state: unique('state'),
  sealedSession: unique('sealed'),
  redirectTarget: 'https://app.example.org/dashboard?x=1',
  ...over,
});

/**
 * The behaviour every HandoffCodes adapter must show (issue 17): a code redeems once, only before
 * it expires, and gives back exactly what was stored.
 */
export function handoffCodesContract(name: string, makeAdapter: AdapterFactory<HandoffCodes>, options: ContractOptions = {}): void {
  describe(`HandoffCodes contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const codes = (): HandoffCodes => subject.adapter();
    const in30s = (): number => subject.env().clock.now() + 30_000;

    it('gives back the grant stored under a code', async () => {
      const code = unique('code');
      const stored = grant();
      await codes().put(code, stored, in30s());
      expect(await codes().take(code)).toEqual(stored);
    });

    it('gives a code once: a replay finds nothing', async () => {
      const code = unique('code');
      await codes().put(code, grant(), in30s());
      expect(await codes().take(code)).not.toBeNull();
      expect(await codes().take(code)).toBeNull();
    });

    it('knows nothing of a code it never stored', async () => {
      expect(await codes().take(unique('code'))).toBeNull();
    });

    it('keeps codes apart', async () => {
      const [a, b] = [unique('code'), unique('code')];
      await codes().put(a, grant({ domain: 'example.org' }), in30s());
      await codes().put(b, grant({ domain: 'example.net' }), in30s());
      expect((await codes().take(b))?.domain).toBe('example.net');
      expect((await codes().take(a))?.domain).toBe('example.org');
    });

    it('gives exactly one of several concurrent redemptions of one code the grant', async () => {
      const code = unique('code');
      await codes().put(code, grant(), in30s());
      const answers = await Promise.all(Array.from({ length: 5 }, () => codes().take(code)));
      expect(answers.filter((a) => a !== null)).toHaveLength(1);
    });

    it('keeps a long redirect target and odd characters as they were', async () => {
      const code = unique('code');
      const stored = grant({ redirectTarget: `https://app.example.org/${'é'.repeat(10)}?q=${'a'.repeat(3000)}&b='"%00` });
      await codes().put(code, stored, in30s());
      expect(await codes().take(code)).toEqual(stored);
    });

    if (options.followsClock !== false) {
      it('forgets a code once its time is up', async () => {
        const code = unique('code');
        await codes().put(code, grant(), in30s());
        subject.env().clock.advance(30_000);
        expect(await codes().take(code)).toBeNull();
      });

      it('still gives a code just before its time is up', async () => {
        const code = unique('code');
        await codes().put(code, grant(), in30s());
        subject.env().clock.advance(29_999);
        expect(await codes().take(code)).not.toBeNull();
      });
    }
  });
}
