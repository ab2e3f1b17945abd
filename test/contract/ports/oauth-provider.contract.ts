import { createHash, randomBytes } from 'node:crypto';
import { OAuthProviderError, type OAuthProvider } from '../../../src/application/ports/oauth-provider';

/** What a suite run needs from one adapter: the adapter, and a way to play the person's authorization. */
export interface OAuthProviderHarness {
  readonly provider: OAuthProvider;
  /** The redirect URI the adapter's client is registered with. */
  readonly redirectUri: string;
  /** Completes the authorization step for `account` at the provider and returns the issued code. */
  authorize(authorizationUrl: string, account: string): Promise<string>;
  /** An account with a verified e-mail, and that e-mail. */
  readonly person: { readonly account: string; readonly email: string };
  /** The same provider kind configured against an address where nothing answers. */
  readonly unreachable: OAuthProvider;
  close(): Promise<void>;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof OAuthProviderError) return e.reason;
    throw e;
  }
  return 'resolved';
}

/** The behaviour every OAuthProvider adapter (and the fake) must show. */
export function oauthProviderContract(name: string, makeHarness: () => Promise<OAuthProviderHarness>): void {
  describe(`OAuthProvider contract: ${name}`, () => {
    let h: OAuthProviderHarness;
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(() => h.close());

    it('builds an authorization URL for the code flow with state, redirect URI and an S256 challenge', async () => {
      const { challenge } = pkce();
      const url = new URL(await h.provider.authorizationUrl({ state: 'state-123', codeChallenge: challenge, redirectUri: h.redirectUri }));
      expect(url.searchParams.get('response_type')).toBe('code');
      expect(url.searchParams.get('state')).toBe('state-123');
      expect(url.searchParams.get('redirect_uri')).toBe(h.redirectUri);
      expect(url.searchParams.get('code_challenge')).toBe(challenge);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    });

    it('exchanges a code with the right verifier for the identity with its e-mail', async () => {
      const { verifier, challenge } = pkce();
      const code = await h.authorize(await h.provider.authorizationUrl({ state: 's', codeChallenge: challenge, redirectUri: h.redirectUri }), h.person.account);
      const identity = await h.provider.identify({ code, codeVerifier: verifier, redirectUri: h.redirectUri });
      expect(identity.email.toLowerCase()).toBe(h.person.email.toLowerCase());
      expect(Array.isArray(identity.groups)).toBe(true);
    });

    it('is refused when the verifier does not match the challenge (PKCE checked by the provider)', async () => {
      const { challenge } = pkce();
      const code = await h.authorize(await h.provider.authorizationUrl({ state: 's', codeChallenge: challenge, redirectUri: h.redirectUri }), h.person.account);
      expect(await failure(h.provider.identify({ code, codeVerifier: pkce().verifier, redirectUri: h.redirectUri }))).toBe('refused');
    });

    it('is refused for a code the provider never issued', async () => {
      expect(await failure(h.provider.identify({ code: 'made-up-code', codeVerifier: pkce().verifier, redirectUri: h.redirectUri }))).toBe('refused');
    });

    it('is refused when the same code is exchanged twice', async () => {
      const { verifier, challenge } = pkce();
      const code = await h.authorize(await h.provider.authorizationUrl({ state: 's', codeChallenge: challenge, redirectUri: h.redirectUri }), h.person.account);
      await h.provider.identify({ code, codeVerifier: verifier, redirectUri: h.redirectUri });
      expect(await failure(h.provider.identify({ code, codeVerifier: verifier, redirectUri: h.redirectUri }))).toBe('refused');
    });

    it('reports a provider that cannot be reached as unreachable', async () => {
      expect(await failure(h.unreachable.identify({ code: 'c', codeVerifier: pkce().verifier, redirectUri: h.redirectUri }))).toBe('unreachable');
    });
  });
}
