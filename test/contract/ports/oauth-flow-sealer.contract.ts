import type { OAuthFlowSealer } from '../../../src/application/oauth/oauth-flow-sealer';
import type { OAuthFlow } from '../../../src/domain/oauth-flow';
import { useAdapter, type ContractEnv } from './harness';

/** Builds a flow sealer keyed by `secret`. */
export type FlowSealerFactory = (env: ContractEnv, secret: string) => OAuthFlowSealer | Promise<OAuthFlowSealer>;

const SECRET = 'contract-flow-secret-0123456789-abcdefghijkl';
const OTHER_SECRET = 'contract-flow-other-secret-9876543210-zyxwv';

const aFlow = (overrides: Partial<OAuthFlow> = {}): OAuthFlow => ({
  id: 'flow-1a2b3c4d',
  provider: 'github',
  state: 'state-visible-marker-0123456789',
  codeVerifier: 'verifier-visible-marker-0123456789abcdefghijkl',
  redirectTarget: 'https://app.example.com/after?x=1',
  createdAt: Date.UTC(2026, 0, 1, 12, 0, 0),
  expiresAt: Date.UTC(2026, 0, 1, 12, 10, 0),
  ...overrides,
});

const flipAt = (token: string, index: number): string => token.slice(0, index) + (token[index] === 'A' ? 'B' : 'A') + token.slice(index + 1);

/** The behaviour every OAuthFlowSealer must show: faithful round trips, secrecy of state and verifier, null (never a throw) otherwise. */
export function oauthFlowSealerContract(name: string, makeSealer: FlowSealerFactory): void {
  describe(`OAuthFlowSealer contract: ${name}`, () => {
    const subject = useAdapter((env) => makeSealer(env, SECRET));
    const sealer = (): OAuthFlowSealer => subject.adapter();
    const open = (token: string): OAuthFlow | null => {
      let result: OAuthFlow | null = null;
      expect(() => {
        result = sealer().unseal(token);
      }).not.toThrow();
      return result;
    };

    it('gives back every field of a sealed flow, with and without a redirect target', () => {
      for (const flow of [aFlow(), aFlow({ provider: 'generic', redirectTarget: null }), aFlow({ provider: 'google' })]) {
        expect(open(sealer().seal(flow))).toEqual(flow);
      }
    });

    it('opens a token with a fresh sealer of the same secret', async () => {
      const token = sealer().seal(aFlow());
      expect((await makeSealer(subject.env(), SECRET)).unseal(token)).toEqual(aFlow());
    });

    it('reveals neither the state nor the PKCE verifier in the token', () => {
      const token = sealer().seal(aFlow());
      expect(token).not.toContain('visible-marker');
      expect(token).not.toContain(Buffer.from('visible-marker').toString('base64url'));
    });

    it('opens an expired flow as it is (expiry is the caller’s check)', () => {
      const flow = aFlow({ createdAt: 0, expiresAt: 1 });
      expect(open(sealer().seal(flow))).toEqual(flow);
    });

    it('refuses a token sealed with another secret', async () => {
      expect(open((await makeSealer(subject.env(), OTHER_SECRET)).seal(aFlow()))).toBeNull();
    });

    it('refuses a token with any one character changed, inserted or cut off', () => {
      const token = sealer().seal(aFlow());
      for (let i = 0; i < token.length; i += 1) expect(open(flipAt(token, i))).toBeNull();
      const middle = Math.floor(token.length / 2);
      for (const extra of ['!', ' ', '=', '.']) expect(open(token.slice(0, middle) + extra + token.slice(middle))).toBeNull();
      for (const length of [0, 3, middle, token.length - 1]) expect(open(token.slice(0, length))).toBeNull();
    });

    it('refuses garbage and tokens of another kind without throwing', () => {
      for (const token of ['', '.', 'f1.', 'v1.AAAA', 'f1.' + 'A'.repeat(64), '[]', 'x'.repeat(100_000), '\u0000']) expect(open(token)).toBeNull();
    });
  });
}
