import { InMemoryHandoffCodes } from '../../../../src/adapters/state/memory/in-memory-handoff-codes';
import { IssueHandoffCodeUseCase, type HandoffSettings } from '../../../../src/application/handoff/issue-handoff-code';
import { RedeemHandoffCodeUseCase } from '../../../../src/application/handoff/redeem-handoff-code';
import { protectedDomainOf } from '../../../../src/domain/cookie-domain';
import { aUser } from '../../../support/builders';
import { makeCore, signIn, type Core } from '../../../support/core';
import { registrableDomainOf } from '../../../support/public-suffixes';

const ip = '198.51.100.7';
const STATE = 'S'.repeat(43);
const TARGET = 'https://app.example.org/inbox';
const secondaries = ['auth.example.org', 'auth.example.net'].map((h) => protectedDomainOf(h, registrableDomainOf));

function handoff(core: Core) {
  let n = 0;
  const ids = { next: () => `code-${'x'.repeat(20)}-${(n += 1)}` };
  const codes = new InMemoryHandoffCodes(core.clock);
  const settings: HandoffSettings = { secondaries, codeLifetimeMs: 30_000 };
  return {
    codes,
    issue: new IssueHandoffCodeUseCase(core.authenticator, codes, ids, core.clock, core.sealer, settings, core.audit),
    redeem: new RedeemHandoffCodeUseCase(core.authenticator, codes, core.clock, settings, core.audit),
  };
}

const accounts = () => [aUser().named('alice').withPassword('pw').build(), aUser().named('tom').withPassword('pw').withTotp().build()];

describe('IssueHandoffCodeUseCase and RedeemHandoffCodeUseCase', () => {
  it('hands the same session to the secondary domain, once, and audits both ends', async () => {
    const core = makeCore(accounts());
    const h = handoff(core);
    const { session, token } = await signIn(core, 'alice', 'pw');
    const issued = await h.issue.execute({ sessionToken: token, domain: 'example.org', state: STATE, redirectUri: TARGET, ip });
    if (!issued.ok) throw new Error(issued.error.code);
    expect(issued.value.secondary).toBe(0);
    const redeemed = await h.redeem.execute({ code: issued.value.code, secondary: 0, state: STATE, ip });
    if (!redeemed.ok) throw new Error(redeemed.error.code);
    expect(redeemed.value.redirectTarget).toBe(TARGET);
    expect(redeemed.value.maxAgeMs).toBe(session.expiresAt - core.clock.now());
    expect(core.sealer.unseal(redeemed.value.sessionToken)).toEqual(session);
    expect(await h.redeem.execute({ code: issued.value.code, secondary: 0, state: STATE, ip })).toEqual({ ok: false, error: { code: 'invalid_code' } });
    expect(core.audit.events.map((e) => e.event)).toEqual(expect.arrayContaining(['handoff_issued', 'handoff_redeemed', 'handoff_refused']));
  });

  it('asks for a login first when there is no session, or only a TOTP-pending one', async () => {
    const core = makeCore(accounts());
    const h = handoff(core);
    const pending = await signIn(core, 'tom', 'pw');
    for (const sessionToken of [undefined, 'garbage', pending.token]) {
      expect(await h.issue.execute({ sessionToken, domain: 'example.org', state: STATE, redirectUri: TARGET, ip })).toEqual({
        ok: false,
        error: { code: 'login_required' },
      });
    }
  });

  it('vouches for no unconfigured domain and no target outside the domain asked for', async () => {
    const core = makeCore(accounts());
    const h = handoff(core);
    const { token } = await signIn(core, 'alice', 'pw');
    const ask = (domain: unknown, redirectUri: unknown, state: unknown = STATE) => h.issue.execute({ sessionToken: token, domain, state, redirectUri, ip });
    expect(await ask('example.com', 'https://app.example.com/')).toEqual({ ok: false, error: { code: 'unknown_domain' } });
    expect(await ask(['example.org'], TARGET)).toEqual({ ok: false, error: { code: 'unknown_domain' } });
    expect(await ask('example.org', 'https://app.example.net/')).toEqual({ ok: false, error: { code: 'invalid_redirect' } });
    expect(await ask('example.org', TARGET, 'short')).toEqual({ ok: false, error: { code: 'invalid_state' } });
  });

  it('refuses a code on another domain, from another browser, after 30 seconds, or once its session is revoked', async () => {
    const core = makeCore(accounts());
    const h = handoff(core);
    const { session, token } = await signIn(core, 'alice', 'pw');
    const code = async (): Promise<string> => {
      const r = await h.issue.execute({ sessionToken: token, domain: 'example.org', state: STATE, redirectUri: TARGET, ip });
      if (!r.ok) throw new Error(r.error.code);
      return r.value.code;
    };
    const refused = { ok: false, error: { code: 'invalid_code' } };
    expect(await h.redeem.execute({ code: await code(), secondary: 1, state: STATE, ip })).toEqual(refused);
    expect(await h.redeem.execute({ code: await code(), secondary: 0, state: 'T'.repeat(43), ip })).toEqual(refused);
    expect(await h.redeem.execute({ code: await code(), secondary: 0, ip })).toEqual(refused);
    const late = await code();
    core.clock.advance(30_000);
    expect(await h.redeem.execute({ code: late, secondary: 0, state: STATE, ip })).toEqual(refused);
    const revokedCode = await code();
    await core.revoked.revoke(session.id, session.expiresAt);
    expect(await h.redeem.execute({ code: revokedCode, secondary: 0, state: STATE, ip })).toEqual(refused);
    expect(core.audit.events.filter((e) => e.event === 'handoff_refused').map((e) => (e as { reason: string }).reason)).toEqual([
      'other_domain',
      'other_browser',
      'other_browser',
      'unknown_used_or_expired',
      'session_ended',
    ]);
  });
});

describe('AuthorizeProxyRequestUseCase with secondary domains', () => {
  it('names the secondary whose domain holds the app, with the original URL checked against that domain', async () => {
    const core = makeCore(accounts(), { settings: { secondaryDomains: secondaries } });
    const ask = (host: string) => core.authorize.execute({ forwarded: { proxy: 'traefik', proto: 'https', host, uri: '/x' }, ip });
    // Twice: the second round answers from the memo of recent URLs (LoginTargetMemo, ADR 0040).
    for (let round = 0; round < 2; round += 1) {
      expect(await ask('app.example.org')).toEqual({ ok: false, error: { code: 'unauthenticated', returnTo: 'https://app.example.org/x', secondary: 0 } });
      expect(await ask('example.net')).toEqual({ ok: false, error: { code: 'unauthenticated', returnTo: 'https://example.net/x', secondary: 1 } });
      expect(await ask('app.example.com')).toEqual({ ok: false, error: { code: 'unauthenticated', returnTo: 'https://app.example.com/x' } });
      for (const host of ['evilexample.org', 'example.org.evil.test', 'evil.test'])
        expect(await ask(host)).toEqual({ ok: false, error: { code: 'unauthenticated', returnTo: null } });
    }
  });
});
