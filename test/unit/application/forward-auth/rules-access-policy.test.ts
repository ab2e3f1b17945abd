import { InMemoryAccessRulesSource } from '../../../../src/adapters/rules/in-memory-access-rules-source';
import type { AccessRulesSource } from '../../../../src/application/forward-auth/access-rules-source';
import { RulesAccessPolicy } from '../../../../src/application/forward-auth/rules-access-policy';
import { compileAccessRules, type AccessRules } from '../../../../src/domain/access-rules';
import { parseForwarded } from '../../../../src/domain/forwarded-request';
import { identityOf } from '../../../../src/domain/session';
import { aUser } from '../../../support/builders';
import { makeCore } from '../../../support/core';

const CLOCK = { now: (): number => Date.UTC(2026, 11, 2, 12, 0, 0) };

function compiled(doc: unknown): AccessRules {
  const r = compileAccessRules(doc, () => null);
  if (!r.ok) throw new Error(r.error.join('; '));
  return r.value;
}

const original = (() => {
  const r = parseForwarded({ proxy: 'traefik', proto: 'https', host: 'wiki.example.com', uri: '/x' });
  if (!r.ok) throw new Error('bad test request');
  return r.value;
})();

class BrokenSource implements AccessRulesSource {
  current(): AccessRules {
    throw new Error('rules store exploded');
  }
  version(): number {
    return 1;
  }
  problems(): readonly string[] {
    return [];
  }
  close(): void {}
}

describe('RulesAccessPolicy', () => {
  const alice = identityOf(aUser().named('alice').build(), 'username', false);

  it('decides with the rules the source holds now', () => {
    const source = new InMemoryAccessRulesSource(compiled({ apps: { wiki: { users: { allow: ['bob'] } } } }));
    const policy = new RulesAccessPolicy(source, CLOCK);
    expect(policy.decide({ original, identity: alice, ip: '192.0.2.1' })).toMatchObject({ kind: 'deny', reason: 'user_not_allowed' });
    source.replace(compiled({ apps: { wiki: { users: { allow: ['alice'] } } } }));
    expect(policy.decide({ original, identity: alice, ip: '192.0.2.1' }).kind).toBe('allow');
  });

  it('denies, and reports the fault, when the rules cannot be evaluated', () => {
    const faults: unknown[] = [];
    const policy = new RulesAccessPolicy(new BrokenSource(), CLOCK, (e) => faults.push(e));
    expect(policy.decide({ original, identity: alice, ip: '192.0.2.1' })).toEqual({ kind: 'deny', reason: 'rules_unavailable' });
    expect(faults).toHaveLength(1);
  });

  it('still denies when reporting the fault fails too', () => {
    const policy = new RulesAccessPolicy(new BrokenSource(), CLOCK, () => {
      throw new Error('logger down');
    });
    expect(policy.decide({ original, identity: null, ip: '192.0.2.1' }).kind).toBe('deny');
  });
});

describe('AuthorizeProxyRequestUseCase with access rules', () => {
  const forwarded = { proxy: 'traefik', proto: 'https', host: 'wiki.example.com', uri: '/x' } as const;

  it('passes a refusal about the address on as a network refusal', async () => {
    const policy = new RulesAccessPolicy(new InMemoryAccessRulesSource(compiled({ apps: { wiki: { ip: { block: ['192.0.2.0/24'] } } } })), CLOCK);
    const core = makeCore([aUser().named('alice').build()], { policy });
    const result = await core.authorize.execute({ forwarded, ip: '192.0.2.9' });
    expect(result).toEqual({ ok: false, error: { code: 'forbidden', reason: 'ip_blocked', app: 'wiki', username: '', network: true } });
    expect(core.audit.events).toContainEqual({ event: 'access_denied', username: '', host: 'wiki.example.com', reason: 'ip_blocked' });
  });

  it('lets an anonymous request through a public path with the configured headers and no identity', async () => {
    const policy = new RulesAccessPolicy(
      new InMemoryAccessRulesSource(compiled({ apps: { wiki: { path: { allow: ['^/x$'] }, response: { headers: { 'X-Team': 'wiki' } } } } })),
      CLOCK,
    );
    const core = makeCore([], { policy });
    const result = await core.authorize.execute({ forwarded, ip: '198.51.100.1' });
    expect(result).toEqual({ ok: true, value: { identity: null, headers: { 'x-team': 'wiki' } } });
  });

  it('refuses an ambiguous path on an application with path rules as ambiguous_path, and audits it', async () => {
    const policy = new RulesAccessPolicy(new InMemoryAccessRulesSource(compiled({ apps: { wiki: { path: { allow: ['^/public/'] } } } })), CLOCK);
    const core = makeCore([aUser().named('alice').build()], { policy });
    const result = await core.authorize.execute({ forwarded: { ...forwarded, uri: '/admin/..;/public/x' }, ip: '198.51.100.1', requestId: 'r2' });
    expect(result).toEqual({ ok: false, error: { code: 'ambiguous_path', why: 'a dot-segment', app: 'wiki' } });
    expect(core.audit.events).toContainEqual({ event: 'access_denied', username: '', host: 'wiki.example.com', reason: 'ambiguous_path', requestId: 'r2' });
  });

  it('denies a request whose client address could not be read', async () => {
    const policy = new RulesAccessPolicy(new InMemoryAccessRulesSource(compiled({ apps: {} })), CLOCK);
    const core = makeCore([], { policy });
    const result = await core.authorize.execute({ forwarded, ip: 'unknown' });
    expect(result.ok || result.error.code).toBe('forbidden');
  });
});
