import { aUser } from '../../../support/builders';
import { makeCore } from '../../../support/core';

const basic = (username: string, password: string) => ({ kind: 'basic' as const, username, password });

describe('RequestAuthenticator with HTTP Basic', () => {
  it('hands out the same identity object for the same account on every request', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const first = await core.authenticator.authenticate({ credentials: basic('alice', 'pw'), ip: '10.0.0.1' });
    const second = await core.authenticator.authenticate({ credentials: basic('alice', 'pw'), ip: '10.0.0.1' });
    expect(first.kind).toBe('basic');
    expect(second.kind === 'basic' && first.kind === 'basic' && second.identity === first.identity).toBe(true);
    expect(first.kind === 'basic' && first.identity.provider).toBe('basic');
  });

  it('gives a replaced account a fresh identity with the new details', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').withGroups('a').build()]);
    const before = await core.authenticator.authenticate({ credentials: basic('alice', 'pw'), ip: '10.0.0.1' });
    core.users.replace([aUser().named('alice').withPassword('pw').withGroups('b').build()]);
    const after = await core.authenticator.authenticate({ credentials: basic('alice', 'pw'), ip: '10.0.0.1' });
    expect(before.kind === 'basic' && before.identity.groups).toEqual(['a']);
    expect(after.kind === 'basic' && after.identity.groups).toEqual(['b']);
  });
});

describe('RequestAuthenticator with HTTP Basic, many requests at once', () => {
  it('checks the password of identical headers arriving together once', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const all = await Promise.all(Array.from({ length: 5 }, () => core.authenticator.authenticate({ credentials: basic('alice', 'pw'), ip: '10.0.0.1' })));
    expect(all.every((a) => a.kind === 'basic')).toBe(true);
    expect(core.hasher.verifications).toBe(1);
  });

  it('still refuses every one of identical wrong headers arriving together, counting the one guess they share once', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()], {
      settings: { lock: { maxAccountFailures: 10, maxAddressFailures: 100, lockMs: 60_000 } },
    });
    const all = await Promise.all(Array.from({ length: 3 }, () => core.authenticator.authenticate({ credentials: basic('alice', 'nope'), ip: '10.0.0.1' })));
    expect(all.map((a) => a.kind)).toEqual(['anonymous', 'anonymous', 'anonymous']);
    expect(core.audit.events.filter((e) => e.event === 'login_failed')).toHaveLength(1);
    expect(core.hasher.verifications).toBe(1);
  });

  it('does not share checks when the Basic cache is off', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()], { settings: { basicCacheTtlMs: 0 } });
    await Promise.all(Array.from({ length: 3 }, () => core.authenticator.authenticate({ credentials: basic('alice', 'pw'), ip: '10.0.0.1' })));
    expect(core.hasher.verifications).toBe(3);
  });
});
