import type Koa from 'koa';
import { assertionJwks } from '../../../src/adapters/oidc/assertion-jwks';
import { InMemoryAccessRulesSource } from '../../../src/adapters/rules/in-memory-access-rules-source';
import { allowAuthenticatedRules, compileAccessRules, type AccessRules } from '../../../src/domain/access-rules';
import { silentLogger } from '../../support/loggers';

const withAssertion = (): AccessRules => {
  const compiled = compileAccessRules({ apps: { wiki: { domain: 'wiki.example.test', response: { assertion: true } } } }, () => null);
  if (!compiled.ok) throw new Error(compiled.error.join('; '));
  return compiled.value;
};

/** The parts of a Koa context the middleware reads and writes. */
function context(path: string, method = 'GET') {
  const headers: Record<string, string> = {};
  const ctx = { path, method, status: 404, body: undefined as unknown, type: '', set: (name: string, value: string) => (headers[name] = value) };
  return { ctx: ctx as unknown as Koa.Context & typeof ctx, headers };
}

describe('the JWKS for signed assertions on a gateway without OpenID Connect clients', () => {
  const jwks = { keys: [{ kty: 'RSA', kid: 'k1', n: 'n', e: 'AQAB' }] };

  it('passes on while no rule asks for an assertion, and publishes once one does (the rules reload)', async () => {
    const rules = new InMemoryAccessRulesSource(allowAuthenticatedRules());
    const http = assertionJwks(rules, async () => jwks, silentLogger);
    const next = jest.fn(async () => undefined);
    const before = context('/oidc/jwks');
    await http.middleware(before.ctx, next);
    expect(next).toHaveBeenCalledTimes(1);
    rules.replace(withAssertion());
    const after = context('/oidc/jwks');
    await http.middleware(after.ctx, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(JSON.parse(after.ctx.body as string)).toEqual(jwks);
    expect(after.ctx.type).toContain('application/jwk-set+json');
  });

  it('leaves every other path alone, refuses other methods with 405, and answers 503 (then retries) when the keys cannot be read', async () => {
    const rules = new InMemoryAccessRulesSource(withAssertion());
    const load = jest.fn().mockRejectedValueOnce(new Error('store down')).mockResolvedValue(jwks);
    const http = assertionJwks(rules, load, silentLogger);
    const next = jest.fn(async () => undefined);
    await http.middleware(context('/oidc/auth').ctx, next);
    expect(next).toHaveBeenCalledTimes(1);
    const post = context('/oidc/jwks', 'POST');
    await http.middleware(post.ctx, next);
    expect(post.ctx.status).toBe(405);
    expect(post.headers.Allow).toBe('GET, HEAD');
    const failing = context('/oidc/jwks');
    await http.middleware(failing.ctx, next);
    expect(failing.ctx.status).toBe(503);
    expect(JSON.stringify(failing.ctx.body)).not.toContain('store down');
    const retried = context('/oidc/jwks');
    await http.middleware(retried.ctx, next);
    expect(JSON.parse(retried.ctx.body as string)).toEqual(jwks);
  });
});
