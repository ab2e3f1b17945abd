import { createHash } from 'node:crypto';
import type { OAuthIdentity } from '../../../../src/application/ports/oauth-provider';
import type { HeldOAuthFlow } from '../../../../src/application/oauth/start-oauth';
import { parseOAuthWhitelist } from '../../../../src/domain/oauth-whitelist';
import { makeCore } from '../../../support/core';
import { FakeOAuthProvider } from '../../../support/fakes';

const alice: OAuthIdentity = { email: 'Alice@Example.com', name: 'Alice', username: 'alice', groups: ['admins'] };
const ip = '198.51.100.7';

function whitelist(text: string) {
  const parsed = parseOAuthWhitelist(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/** A core with one generic fake provider, and a helper that starts a flow and returns what the browser would hold. */
function setup(options: Parameters<typeof makeCore>[1] = {}) {
  const provider = new FakeOAuthProvider('generic');
  const core = makeCore([], { providers: [provider], ...options });
  const start = async (redirectUri?: string, held: HeldOAuthFlow[] = []) => {
    const result = await core.startOAuth.execute({ provider: 'generic', redirectUri, heldFlows: held });
    if (!result.ok) throw new Error(result.error.code);
    const url = new URL(result.value.url);
    return {
      ...result.value,
      state: url.searchParams.get('state')!,
      challenge: url.searchParams.get('code_challenge')!,
      held: { id: result.value.flow.id, token: result.value.flow.token },
    };
  };
  return { core, provider, start };
}

describe('StartOAuthUseCase', () => {
  it('refuses a provider id it does not know (malformed ones too), and a built-in kind that is not configured', async () => {
    const { core } = setup();
    for (const provider of ['facebook', 'Generic', '../generic', 'a'.repeat(40)])
      expect(await core.startOAuth.execute({ provider, heldFlows: [] })).toEqual({ ok: false, error: { code: 'unknown_provider' } });
    expect(await core.startOAuth.execute({ provider: 'github', heldFlows: [] })).toEqual({ ok: false, error: { code: 'provider_not_configured' } });
  });

  it('sends the provider the flow state, the S256 challenge of the sealed verifier, and the gateway callback', async () => {
    const { core, start } = setup();
    const started = await start();
    const flow = core.flowSealer.unseal(started.flow.token)!;
    expect(started.state).toBe(flow.state);
    expect(started.challenge).toBe(createHash('sha256').update(flow.codeVerifier).digest('base64url'));
    expect(flow.codeVerifier.length).toBeGreaterThanOrEqual(43);
    expect(new URL(started.url).searchParams.get('redirect_uri')).toBe('https://auth.example.com/api/oauth/callback/generic');
    expect(flow.expiresAt - core.clock.now()).toBe(10 * 60 * 1000);
  });

  it('gives every flow its own state and verifier', async () => {
    const { core, start } = setup();
    const a = await start();
    const b = await start();
    expect(a.state).not.toBe(b.state);
    expect(core.flowSealer.unseal(a.flow.token)!.codeVerifier).not.toBe(core.flowSealer.unseal(b.flow.token)!.codeVerifier);
  });

  it('keeps a redirect target on the protected domain and ignores one off it', async () => {
    const { start } = setup();
    expect((await start('https://app.example.com/x')).redirectTarget).toBe('https://app.example.com/x');
    for (const hostile of [
      'https://evil.com/',
      'https://example.com.evil.com/',
      'https://evilexample.com/',
      'https://u@app.example.com/',
      'https:\\\\evil.com',
      'javascript:alert(1)',
    ]) {
      expect((await start(hostile)).redirectTarget).toBeNull();
    }
  });

  it('drops the oldest live flow when the browser already holds the maximum', async () => {
    const { core, start } = setup();
    const held: HeldOAuthFlow[] = [];
    for (let i = 0; i < 5; i += 1) {
      held.push((await start()).held);
      core.clock.advance(1000);
    }
    const sixth = await start(undefined, [...held].reverse());
    expect(sixth.discard).toEqual([held[0].id]);
  });

  it('tells the browser to forget expired, forged and mislabelled flows', async () => {
    const { core, start } = setup();
    const old = (await start()).held;
    core.clock.advance(10 * 60 * 1000);
    const fresh = (await start()).held;
    const result = await start(undefined, [old, { id: 'forged-flow-id', token: 'f1.AAAA' }, { id: 'another-id-123', token: fresh.token }, fresh]);
    expect(result.discard).toEqual([old.id, 'forged-flow-id', 'another-id-123']);
  });
});

describe('CompleteOAuthUseCase', () => {
  it('logs in with a session from the provider: provider name, oauth, groups, e-mail as username', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('code-1', alice);
    const started = await start('https://app.example.com/back');
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.session).toMatchObject({
      username: 'alice@example.com',
      email: 'alice@example.com',
      name: 'Alice',
      groups: ['admins'],
      provider: 'generic',
      oauth: true,
      totp: false,
      totpPending: false,
    });
    expect(result.value.session.expiresAt - core.clock.now()).toBe(core.settings.sessionLifetimeMs);
    expect(core.sealer.unseal(result.value.token)).toEqual(result.value.session);
    expect(result.value.redirectTarget).toBe('https://app.example.com/back');
    expect(result.value.flowId).toBe(started.flow.id);
    expect(core.audit.events).toContainEqual({ event: 'login_succeeded', username: 'alice@example.com', method: 'oauth:generic', ip });
  });

  it('exchanges the code with the verifier of the flow whose state came back, and the same callback URL', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('code-1', alice);
    const started = await start();
    await core.completeOAuth.execute({ provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip });
    const exchange = provider.exchanges[0];
    expect(createHash('sha256').update(exchange.codeVerifier).digest('base64url')).toBe(started.challenge);
    expect(exchange.redirectUri).toBe('https://auth.example.com/api/oauth/callback/generic');
  });

  describe('the iss response parameter (RFC 9207)', () => {
    it('refuses an iss naming another issuer before the code is exchanged, and spends the flow', async () => {
      const { core, provider, start } = setup();
      provider.codes.set('code-1', alice);
      const started = await start();
      const input = { provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip };
      const result = await core.completeOAuth.execute({ ...input, iss: 'https://attacker.provider.test' });
      expect(result).toEqual({ ok: false, error: { code: 'oauth_issuer_mismatch', flowId: started.flow.id } });
      expect(provider.exchanges).toHaveLength(0);
      expect((await core.completeOAuth.execute({ ...input, iss: 'https://generic.provider.test' })).ok).toBe(false);
    });

    it('admits the expected iss, and its absence when the issuer does not promise it', async () => {
      for (const iss of ['https://generic.provider.test', undefined]) {
        const { core, provider, start } = setup();
        provider.codes.set('code-1', alice);
        const started = await start();
        expect((await core.completeOAuth.execute({ provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip, iss })).ok).toBe(
          true,
        );
      }
    });

    it('refuses a callback without iss when the issuer promises it', async () => {
      const { core, provider, start } = setup();
      provider.issuerExpectation = { issuer: 'https://generic.provider.test', required: true };
      provider.codes.set('code-1', alice);
      const started = await start();
      const result = await core.completeOAuth.execute({ provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip });
      expect(result).toEqual({ ok: false, error: { code: 'oauth_issuer_missing', flowId: started.flow.id } });
      expect(provider.exchanges).toHaveLength(0);
    });

    it('checks iss on an error response too', async () => {
      const { core, start } = setup();
      const started = await start();
      const result = await core.completeOAuth.execute({
        provider: 'generic',
        state: started.state,
        providerError: 'access_denied',
        iss: 'https://attacker.provider.test',
        heldFlows: [started.held],
        ip,
      });
      expect(result.ok || result.error.code).toBe('oauth_issuer_mismatch');
    });

    it('ignores an iss it cannot check when the provider has no known issuer', async () => {
      const { core, provider, start } = setup();
      provider.issuerExpectation = { issuer: null, required: false };
      provider.codes.set('code-1', alice);
      const started = await start();
      const result = await core.completeOAuth.execute({
        provider: 'generic',
        code: 'code-1',
        state: started.state,
        heldFlows: [started.held],
        ip,
        iss: 'https://x.test',
      });
      expect(result.ok).toBe(true);
    });
  });

  describe("a provider's own admission rules", () => {
    async function attempt(policy: Record<string, unknown>, identity: typeof alice) {
      const { core, provider, start } = setup({ oauth: { whitelist: whitelist('*@example.com'), policies: { generic: policy } } });
      provider.codes.set('code-1', identity);
      const started = await start();
      const result = await core.completeOAuth.execute({ provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip });
      return result.ok ? 'ok' : result.error.code;
    }

    it("uses the provider's whitelist instead of OAUTH_WHITELIST", async () => {
      expect(await attempt({ whitelist: whitelist('*@other.test') }, alice)).toBe('not_whitelisted');
      expect(await attempt({ whitelist: whitelist('*@other.test') }, { ...alice, email: 'x@other.test' })).toBe('ok');
    });

    it('demands the hosted domain the provider vouches for, not the e-mail domain', async () => {
      expect(await attempt({ hostedDomains: ['example.com'] }, alice)).toBe('not_whitelisted');
      expect(await attempt({ hostedDomains: ['example.com'] }, { ...alice, hostedDomain: 'example.com' })).toBe('ok');
      expect(await attempt({ hostedDomains: ['example.com'] }, { ...alice, hostedDomain: 'evil.test' })).toBe('not_whitelisted');
    });

    it('demands one of the required groups, compared without case', async () => {
      expect(await attempt({ requiredGroups: ['acme'] }, alice)).toBe('not_whitelisted');
      expect(await attempt({ requiredGroups: ['acme'] }, { ...alice, groups: ['Acme'] })).toBe('ok');
      expect(await attempt({ requiredGroups: ['acme'] }, { ...alice, groups: ['acme:team'] })).toBe('not_whitelisted');
    });
  });

  it('refuses a state that matches none of the browser flows, without asking the provider', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('code-1', alice);
    const started = await start();
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'code-1', state: `${started.state}x`, heldFlows: [started.held], ip });
    expect(result).toEqual({ ok: false, error: { code: 'oauth_state_mismatch' } });
    expect(provider.exchanges).toHaveLength(0);
  });

  it('refuses a callback in a browser that holds no flow, or only a flow of another provider', async () => {
    const github = new FakeOAuthProvider('github');
    const generic = new FakeOAuthProvider('generic');
    const core = makeCore([], { providers: [github, generic] });
    const started = await core.startOAuth.execute({ provider: 'github', heldFlows: [] });
    if (!started.ok) throw new Error('start failed');
    const state = new URL(started.value.url).searchParams.get('state')!;
    const held = [{ id: started.value.flow.id, token: started.value.flow.token }];
    expect(await core.completeOAuth.execute({ provider: 'generic', code: 'c', state, heldFlows: [], ip })).toEqual({
      ok: false,
      error: { code: 'oauth_flow_missing' },
    });
    expect(await core.completeOAuth.execute({ provider: 'generic', code: 'c', state, heldFlows: held, ip })).toEqual({
      ok: false,
      error: { code: 'oauth_flow_missing' },
    });
  });

  it('refuses a callback without state or without code', async () => {
    const { core, start } = setup();
    const started = await start();
    expect(await core.completeOAuth.execute({ provider: 'generic', code: 'c', heldFlows: [started.held], ip })).toEqual({
      ok: false,
      error: { code: 'invalid_callback' },
    });
    expect(await core.completeOAuth.execute({ provider: 'generic', state: started.state, heldFlows: [started.held], ip })).toEqual({
      ok: false,
      error: { code: 'invalid_callback' },
    });
  });

  it('uses a flow once: the same callback again is a replay, even when two arrive at once', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('code-1', alice);
    const started = await start();
    const input = { provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip };
    const [a, b] = await Promise.all([core.completeOAuth.execute(input), core.completeOAuth.execute(input)]);
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
    const again = await core.completeOAuth.execute(input);
    expect(again).toEqual({ ok: false, error: { code: 'oauth_flow_replayed', flowId: started.flow.id } });
    expect(provider.exchanges).toHaveLength(1);
  });

  it('refuses a flow that has expired', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('code-1', alice);
    const started = await start();
    core.clock.advance(10 * 60 * 1000);
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'code-1', state: started.state, heldFlows: [started.held], ip });
    expect(result).toEqual({ ok: false, error: { code: 'oauth_flow_expired', flowId: started.flow.id } });
  });

  it('reports a person who declined at the provider as provider_denied', async () => {
    const { core, start } = setup();
    const started = await start();
    const result = await core.completeOAuth.execute({
      provider: 'generic',
      providerError: 'access_denied',
      state: started.state,
      heldFlows: [started.held],
      ip,
    });
    expect(result).toEqual({ ok: false, error: { code: 'provider_denied', flowId: started.flow.id } });
  });

  it.each([
    ['refused', 'provider_refused'],
    ['unreachable', 'provider_unavailable'],
    ['invalid_response', 'provider_invalid_response'],
  ] as const)('maps a provider failure %s to %s', async (failure, code) => {
    const { core, provider, start } = setup();
    provider.failWith = failure;
    const started = await start();
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'c', state: started.state, heldFlows: [started.held], ip });
    expect(result).toEqual({ ok: false, error: { code, flowId: started.flow.id } });
  });

  it('lets an unexpected error from a provider adapter escape as an infrastructure failure', async () => {
    const { core, provider, start } = setup();
    provider.throwUnexpected = true;
    const started = await start();
    await expect(core.completeOAuth.execute({ provider: 'generic', code: 'c', state: started.state, heldFlows: [started.held], ip })).rejects.toThrow(
      TypeError,
    );
  });

  it('refuses an identity without e-mail', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('c', { ...alice, email: '  ' });
    const started = await start();
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'c', state: started.state, heldFlows: [started.held], ip });
    expect(result).toEqual({ ok: false, error: { code: 'email_missing', flowId: started.flow.id } });
  });

  it.each([
    ['a zero-width space', 'al\u200bice@example.com'],
    ['a control character', 'alice\u0085@example.com'],
    ['white space', 'al ice@example.com'],
    ['a character a header cannot carry', 'алиса@example.com'],
  ])('refuses an identity whose e-mail (its username here) carries %s, before any decision', async (_what, email) => {
    const { core, provider, start } = setup();
    provider.codes.set('c', { ...alice, email });
    const started = await start();
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'c', state: started.state, heldFlows: [started.held], ip });
    expect(result).toEqual({ ok: false, error: { code: 'identity_invalid', flowId: started.flow.id } });
    expect(core.audit.events).toContainEqual(expect.objectContaining({ event: 'login_failed', reason: 'identity_invalid' }));
  });

  it('leaves out groups whose names carry a comma or invisible characters, and a display name with invisible characters', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('c', { ...alice, name: 'Ali\u200bce', groups: ['admins,staff', 'ops\u200b', 'Domain Admins', 'users'] });
    const started = await start();
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'c', state: started.state, heldFlows: [started.held], ip });
    expect(result.ok && result.value.session).toMatchObject({ username: 'alice@example.com', name: 'alice', groups: ['Domain Admins', 'users'] });
  });

  it('refuses an e-mail outside the whitelist and admits one inside, case-insensitively', async () => {
    const { core, provider, start } = setup({ oauth: { whitelist: whitelist('*@example.com') } });
    provider.codes.set('in', alice);
    provider.codes.set('out', { ...alice, email: 'eve@example.com.evil.test' });
    const a = await start();
    expect(await core.completeOAuth.execute({ provider: 'generic', code: 'out', state: a.state, heldFlows: [a.held], ip })).toEqual({
      ok: false,
      error: { code: 'not_whitelisted', flowId: a.flow.id, email: 'eve@example.com.evil.test' },
    });
    const b = await start();
    expect((await core.completeOAuth.execute({ provider: 'generic', code: 'in', state: b.state, heldFlows: [b.held], ip })).ok).toBe(true);
  });

  it('finds the right flow among several tabs and never mixes their identities', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('code-a', alice);
    provider.codes.set('code-b', { ...alice, email: 'bob@example.com', name: 'Bob' });
    const a = await start('https://a.example.com/');
    const b = await start('https://b.example.com/', [a.held]);
    const held = [a.held, b.held];
    const rb = await core.completeOAuth.execute({ provider: 'generic', code: 'code-b', state: b.state, heldFlows: held, ip });
    const ra = await core.completeOAuth.execute({ provider: 'generic', code: 'code-a', state: a.state, heldFlows: held, ip });
    expect(rb.ok && [rb.value.session.email, rb.value.redirectTarget]).toEqual(['bob@example.com', 'https://b.example.com/']);
    expect(ra.ok && [ra.value.session.email, ra.value.redirectTarget]).toEqual(['alice@example.com', 'https://a.example.com/']);
  });
});

describe('OAuth sessions over time', () => {
  it('stop working once their provider is no longer configured', async () => {
    const { core, provider, start } = setup();
    provider.codes.set('c', alice);
    const started = await start();
    const result = await core.completeOAuth.execute({ provider: 'generic', code: 'c', state: started.state, heldFlows: [started.held], ip });
    if (!result.ok) throw new Error(result.error.code);
    const token = core.sealer.seal(result.value.session);
    expect(await core.authenticator.session(token)).not.toBeNull();
    const without = makeCore([], { providers: [new FakeOAuthProvider('github')] });
    expect(await without.authenticator.session(token)).toBeNull();
    const narrower = makeCore([], { providers: [provider], oauth: { whitelist: whitelist('bob@example.com') } });
    expect(await narrower.authenticator.session(token)).toBeNull();
  });
});
