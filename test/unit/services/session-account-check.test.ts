import { aUser } from '../../support/builders';
import { makeCore } from '../../support/core';

describe('RequestAuthenticator: sessions of removed accounts', () => {
  const ip = '198.51.100.7';

  async function loggedIn(core: ReturnType<typeof makeCore>): Promise<string> {
    const result = await core.login.execute({ login: 'alice', password: 'pw', ip });
    if (!result.ok) throw new Error('login failed');
    return core.sealer.seal(result.value.session);
  }

  it('lets a session through while its account exists', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const token = await loggedIn(core);
    expect((await core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('session');
  });

  it('ends the session of an account removed from the store at its next request', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build(), aUser().named('bob').build()]);
    const token = await loggedIn(core);
    core.users.replace([aUser().named('bob').build()]);
    expect(await core.authenticator.authenticate({ sessionToken: token, ip })).toEqual({ kind: 'anonymous' });
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });

  it('keeps sessions working while the store is unavailable', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const token = await loggedIn(core);
    core.users.down = true;
    expect((await core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('session');
  });

  it('does not ask the user store about sessions that came from elsewhere (OAuth)', async () => {
    const core = makeCore([]);
    const now = core.clock.now();
    const token = core.sealer.seal({
      id: 's1', username: 'octocat', name: 'Octo', email: 'octo@example.com', groups: [], provider: 'generic', oauth: true, totp: false,
      issuedAt: now, expiresAt: now + 60_000, totpPending: false,
    });
    core.users.down = true;
    expect((await core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('session');
  });
});
