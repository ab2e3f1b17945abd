import { ForwardAuthAnswerCache, type ProxyContexts } from '../../../src/adapters/http/forward-auth-answer-cache';
import type { ForwardAuthDecision } from '../../../src/adapters/http/forward-auth';
import type { BoundedMemo } from '../../../src/adapters/state/bounded-map';
import type { ProxyKind } from '../../../src/domain/forwarded-request';
import type { Identity } from '../../../src/domain/session';

/**
 * ADR 0040: the forward-auth answer cache keeps an answer only under a key that holds everything
 * it is built from. These tests change each ingredient (the identity after a group change, the rules'
 * headers after a reload, the context and the target of a login refusal) and expect a new answer.
 */
const contextsFor = (loginUrl: string): ProxyContexts[] =>
  (['traefik', 'nginx', 'caddy'] as ProxyKind[]).map((proxy) => ({
    browser: { proxy, apiMode: false, loginUrl, unauthorizedUrl: 'https://auth.example.com/unauthorized' },
    api: { proxy, apiMode: true, loginUrl, unauthorizedUrl: 'https://auth.example.com/unauthorized' },
  }));
const newCache = () => new ForwardAuthAnswerCache([contextsFor('https://auth.example.com/login'), contextsFor('https://auth.other.test/handoff')]);
const identity = (username: string, groups: string[] = []): Identity =>
  Object.freeze({ username, name: username, email: `${username}@example.com`, groups, provider: 'username', oauth: false, totp: false });
const header = (decision: ForwardAuthDecision, name: string) => decision.answer.headers?.find(([n]) => n === name)?.[1];
const NONE = Object.freeze({});

describe('ForwardAuthAnswerCache', () => {
  it('hands one identity the same answer per proxy and form, and an identity made after a group change its own', () => {
    const cache = newCache();
    const before = identity('alice', ['staff']);
    const first = cache.allowed(before, NONE, 0, false);
    expect(cache.allowed(before, NONE, 0, false)).toBe(first);
    expect(cache.allowed(before, NONE, 2, true)).not.toBe(first);
    expect(header(first, 'remote-groups')).toBe('staff');
    // The account view makes a new identity object when the users file changes.
    const after = identity('alice', ['ops']);
    expect(header(cache.allowed(after, NONE, 0, false), 'remote-groups')).toBe('ops');
    expect(header(cache.allowed(after, NONE, 0, false), 'remote-user')).toBe('alice');
  });

  it("never keeps an answer with the rules' headers: each request builds it from the headers it was given", () => {
    const cache = newCache();
    const alice = identity('alice');
    const a = cache.allowed(alice, Object.freeze({ 'X-Team': 'wiki' }), 0, false);
    const b = cache.allowed(alice, Object.freeze({ 'X-Team': 'wiki-2' }), 0, false);
    expect(header(a, 'x-team')).toBe('wiki');
    expect(header(b, 'x-team')).toBe('wiki-2');
    expect(header(cache.allowed(alice, NONE, 0, false), 'x-team')).toBeUndefined();
    expect(header(cache.allowed(null, NONE, 1, false), 'remote-user')).toBeUndefined();
  });

  it("keeps an answer with an assertion per token only while the identity and the rules' headers are the same objects (a reload makes new ones)", () => {
    const cache = newCache();
    const alice = identity('alice');
    const rules = Object.freeze({ 'X-Team': 'wiki' });
    const first = cache.asserted(alice, rules, 2, 'token-1', true);
    expect(cache.asserted(alice, rules, 2, 'token-1', true)).toBe(first);
    expect(header(first, 'remote-assertion')).toBe('token-1');
    const reloaded = cache.asserted(alice, Object.freeze({ 'X-Team': 'wiki-2' }), 2, 'token-1', true);
    expect(header(reloaded, 'x-team')).toBe('wiki-2');
    expect(header(reloaded, 'remote-assertion')).toBe('token-1');
    const renamed = cache.asserted(identity('alice', ['ops']), rules, 2, 'token-1', true);
    expect(header(renamed, 'remote-groups')).toBe('ops');
    expect(header(renamed, 'x-team')).toBe('wiki');
  });

  it('refuses a request without a login per context and target, to the gateway whose domain holds it', () => {
    const cache = newCache();
    const browser = cache.loginRequired({ code: 'unauthenticated', returnTo: 'https://app.example.com/x' }, 0, false);
    expect(cache.loginRequired({ code: 'unauthenticated', returnTo: 'https://app.example.com/x' }, 0, false)).toBe(browser);
    expect(browser.answer.status).toBe(302);
    expect(header(browser, 'location')).toBe(`https://auth.example.com/login?redirect_uri=${encodeURIComponent('https://app.example.com/x')}`);
    expect(cache.loginRequired({ code: 'unauthenticated', returnTo: 'https://app.example.com/x' }, 0, true).answer.status).toBe(401);
    const other = cache.loginRequired({ code: 'unauthenticated', returnTo: 'https://app.other.test/y', secondary: 0 }, 0, false);
    expect(header(other, 'location')).toBe(`https://auth.other.test/handoff?redirect_uri=${encodeURIComponent('https://app.other.test/y')}`);
  });

  it('keeps at most 256 login refusals per context, and none for a target over 1 024 characters', () => {
    const cache = newCache();
    const memo = (cache as unknown as { loginRefusals: Array<Array<{ browser: BoundedMemo<string | null, unknown> }>> }).loginRefusals[0][0].browser;
    for (let i = 0; i < 1000; i += 1) cache.loginRequired({ code: 'unauthenticated', returnTo: `https://app.example.com/p/${i}` }, 0, false);
    expect(memo.size).toBeLessThanOrEqual(256);
    const long = `https://app.example.com/${'a'.repeat(1100)}`;
    const refused = cache.loginRequired({ code: 'unauthenticated', returnTo: long }, 0, false);
    expect(header(refused, 'location')).toContain(encodeURIComponent(long));
    expect(memo.get(long)).toBeUndefined();
  });
});
