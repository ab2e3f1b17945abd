import type { IdentityAssertions } from '../../../../src/application/forward-auth/identity-assertions';
import type { AccessDecision } from '../../../../src/domain/access-decision';
import { compileAccessRules } from '../../../../src/domain/access-rules';
import type { ForwardedHeaders } from '../../../../src/domain/forwarded-request';
import type { ProvenMethods } from '../../../../src/domain/login-methods';
import type { Identity } from '../../../../src/domain/session';
import { aUser, basicAuth } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { ScriptedAccessPolicy } from '../../../support/fakes';

/** Records what it is asked to sign; answers a readable fake token, or null (no key yet). */
class FakeIdentityAssertions implements IdentityAssertions {
  readonly asked: Array<{ username: string; audience: string; proven?: ProvenMethods }> = [];
  constructor(private readonly ready = true) {}
  assertionFor(identity: Identity, audience: string, proven?: ProvenMethods): string | null {
    this.asked.push({ username: identity.username, audience, ...(proven === undefined ? {} : { proven }) });
    return this.ready ? `signed:${identity.username}@${audience}` : null;
  }
}

const ip = '198.51.100.7';
const wiki: ForwardedHeaders = { proxy: 'traefik', proto: 'https', host: 'Wiki.Example.com:8443', uri: '/page' };
const accounts = () => [aUser().named('alice').withPassword('pw').withGroups('admins').build()];
const ASKS: AccessDecision = { kind: 'allow', headers: { 'x-team': 'wiki' }, assertion: true };

describe('AuthorizeProxyRequestUseCase with response.assertion', () => {
  it('adds an assertion for the host (lower case, no port) when the rule asks and someone is logged in', async () => {
    const assertions = new FakeIdentityAssertions();
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy(ASKS), assertions });
    const { token } = await signIn(core, 'alice', 'pw');
    const result = await core.authorize.execute({ forwarded: wiki, sessionToken: token, ip });
    expect(result).toMatchObject({ ok: true, value: { headers: { 'x-team': 'wiki' }, assertion: 'signed:alice@wiki.example.com' } });
    expect(assertions.asked).toEqual([{ username: 'alice', audience: 'wiki.example.com', proven: { password: expect.any(Number) } }]);
  });

  it("hands the signer a session's proofs, and none for HTTP Basic", async () => {
    const assertions = new FakeIdentityAssertions();
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy(ASKS), assertions });
    await core.authorize.execute({ forwarded: wiki, credentials: basicAuth('alice', 'pw'), ip });
    expect(assertions.asked).toEqual([{ username: 'alice', audience: 'wiki.example.com' }]);
  });

  it('waits for a signer that is still reading its key, then answers with the assertion', async () => {
    const later: IdentityAssertions = { assertionFor: async (identity, audience) => `later:${identity.username}@${audience}` };
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy(ASKS), assertions: later, usersAtOnce: true });
    const pending = core.authorize.execute({ forwarded: wiki, credentials: basicAuth('alice', 'pw'), ip });
    await expect(pending).resolves.toMatchObject({ ok: true, value: { assertion: 'later:alice@wiki.example.com' } });
    const refused: IdentityAssertions = { assertionFor: async () => null };
    const core2 = makeCore(accounts(), { policy: new ScriptedAccessPolicy(ASKS), assertions: refused });
    await expect(core2.authorize.execute({ forwarded: wiki, credentials: basicAuth('alice', 'pw'), ip })).resolves.toEqual({
      ok: false,
      error: { code: 'store_unavailable' },
    });
  });

  it('asks nothing of the signer and adds no assertion when the rule does not ask', async () => {
    const assertions = new FakeIdentityAssertions();
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy({ kind: 'allow' }), assertions });
    const result = await core.authorize.execute({ forwarded: wiki, credentials: basicAuth('alice', 'pw'), ip });
    expect(result.ok && 'assertion' in result.value).toBe(false);
    expect(assertions.asked).toEqual([]);
  });

  it('lets an anonymous request through a public path without an assertion (nobody to assert)', async () => {
    const assertions = new FakeIdentityAssertions();
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy(ASKS), assertions });
    const result = await core.authorize.execute({ forwarded: wiki, ip });
    expect(result).toEqual({ ok: true, value: { identity: null, headers: { 'x-team': 'wiki' } } });
    expect(assertions.asked).toEqual([]);
  });

  it('refuses (store_unavailable) rather than pass the request without the assertion when none can be signed', async () => {
    for (const assertions of [new FakeIdentityAssertions(false), undefined]) {
      const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy(ASKS), assertions });
      const result = await core.authorize.execute({ forwarded: wiki, credentials: basicAuth('alice', 'pw'), ip });
      expect(result).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    }
  });

  it('refuses when the proxy names no host to be the audience', async () => {
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy(ASKS), assertions: new FakeIdentityAssertions() });
    const result = await core.authorize.execute({ forwarded: { proxy: 'traefik' }, credentials: basicAuth('alice', 'pw'), ip });
    expect(result).toEqual({ ok: false, error: { code: 'bad_forwarded_headers', field: 'host', problem: 'missing' } });
  });
});

describe('response.assertion in the rules file', () => {
  it('compiles true into an allow decision that asks for the assertion, and false or absent into one that does not', () => {
    const r = compileAccessRules({ apps: { wiki: { response: { assertion: true } }, blog: { response: { assertion: false } }, docs: {} } }, () => null);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [wikiApp, blog, docs] = r.value.apps;
    expect(wikiApp.assertion).toBe(true);
    expect(wikiApp.allowed).toEqual({ kind: 'allow', headers: {}, assertion: true });
    expect(blog.allowed).toEqual({ kind: 'allow', headers: {} });
    expect(docs.assertion).toBe(false);
  });

  it('refuses anything but true or false, and Remote-Assertion as a configured header', () => {
    const r = compileAccessRules({ apps: { wiki: { response: { assertion: 'yes', headers: { 'Remote-Assertion': 'x' } } } } }, () => null);
    expect(r.ok ? [] : r.error).toEqual([
      'apps.wiki.response.headers.Remote-Assertion: Remote-* headers carry the identity and are set by the gateway only',
      'apps.wiki.response.assertion: must be true or false',
    ]);
  });
});
