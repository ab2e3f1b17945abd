import type { SigningKeys } from '../../../src/application/oidc/signing-keys';
import { useAdapter, type AdapterFactory } from './harness';

/**
 * The behaviour every SigningKeys adapter must show: one key set per store, created once, kept,
 * replaced only on purpose. Factories hand in an empty store.
 */
export function signingKeysContract(name: string, makeAdapter: AdapterFactory<SigningKeys>): void {
  describe(`SigningKeys contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const keys = (): SigningKeys => subject.adapter();
    const keySet = (kid: string): string => JSON.stringify({ keys: [{ kty: 'RSA', kid, alg: 'RS256', use: 'sig', n: 'AQAB', e: 'AQAB', d: 'secret' }] });

    it('creates the key set with the function given when none is stored', async () => {
      expect(await keys().getOrCreate(() => keySet('first'))).toBe(keySet('first'));
    });

    it('returns the stored set afterwards without creating another', async () => {
      await keys().getOrCreate(() => keySet('first'));
      const create = jest.fn(() => keySet('second'));
      expect(await keys().getOrCreate(create)).toBe(keySet('first'));
      expect(create).not.toHaveBeenCalled();
    });

    it('gives every one of several concurrent callers the same set, one of the candidates', async () => {
      const candidates = Array.from({ length: 6 }, (_, i) => keySet(`k${i}`));
      const answers = await Promise.all(candidates.map((candidate) => keys().getOrCreate(() => candidate)));
      expect(new Set(answers).size).toBe(1);
      expect(candidates).toContain(answers[0]);
      expect(await keys().getOrCreate(() => keySet('late'))).toBe(answers[0]);
    });

    it('replaces the stored set (rotation), and stores one when none was', async () => {
      await keys().replace(keySet('rotated'));
      expect(await keys().getOrCreate(() => keySet('never'))).toBe(keySet('rotated'));
      await keys().replace(keySet('again'));
      expect(await keys().getOrCreate(() => keySet('never'))).toBe(keySet('again'));
    });

    it('keeps a large set (several RSA keys) intact', async () => {
      const big = JSON.stringify({ keys: Array.from({ length: 4 }, (_, i) => ({ kid: `k${i}`, alg: 'RS256', use: 'sig', d: 'x'.repeat(3000) })) });
      await keys().replace(big);
      expect(await keys().getOrCreate(() => 'never')).toBe(big);
    });
  });
}
