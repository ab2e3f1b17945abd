import type { Pkce } from '../../../src/application/oauth/pkce';
import { useAdapter, type AdapterFactory } from './harness';

/** The behaviour every Pkce adapter must show (RFC 7636, S256). */
export function pkceContract(name: string, makeAdapter: AdapterFactory<Pkce>): void {
  describe(`Pkce contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const pkce = (): Pkce => subject.adapter();

    it('computes the S256 challenge of RFC 7636 appendix B', () => {
      expect(pkce().challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    });

    it('makes verifiers of 43 to 128 unreserved characters', () => {
      for (let i = 0; i < 20; i += 1) expect(pkce().verifier()).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    });

    it('makes a fresh verifier every time', () => {
      const verifiers = new Set(Array.from({ length: 200 }, () => pkce().verifier()));
      expect(verifiers.size).toBe(200);
    });

    it('gives challenges without padding that differ per verifier', () => {
      const a = pkce().challenge(pkce().verifier());
      const b = pkce().challenge(pkce().verifier());
      expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(a).not.toBe(b);
    });
  });
}
