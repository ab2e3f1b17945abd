import { aUser } from '../../support/builders';
import { makeCore } from '../../support/core';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('RequestAuthenticator with HTTP Basic', () => {
  it('hands out the same identity object for the same account on every request', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const first = await core.authenticator.authenticate({ authorization: basic('alice', 'pw'), ip: '10.0.0.1' });
    const second = await core.authenticator.authenticate({ authorization: basic('alice', 'pw'), ip: '10.0.0.1' });
    expect(first.kind).toBe('basic');
    expect(second.kind === 'basic' && first.kind === 'basic' && second.identity === first.identity).toBe(true);
    expect(first.kind === 'basic' && first.identity.provider).toBe('basic');
  });

  it('gives a replaced account a fresh identity with the new details', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').withGroups('a').build()]);
    const before = await core.authenticator.authenticate({ authorization: basic('alice', 'pw'), ip: '10.0.0.1' });
    core.users.replace([aUser().named('alice').withPassword('pw').withGroups('b').build()]);
    const after = await core.authenticator.authenticate({ authorization: basic('alice', 'pw'), ip: '10.0.0.1' });
    expect(before.kind === 'basic' && before.identity.groups).toEqual(['a']);
    expect(after.kind === 'basic' && after.identity.groups).toEqual(['b']);
  });
});
