import { aUser } from '../../support/builders';
import { makeCore, signIn } from '../../support/core';

describe('LogoutUseCase', () => {
  const ip = '198.51.100.7';
  const forwarded = { proto: 'https', host: 'app.example.com', uri: '/' };
  const alice = () => aUser().named('alice').withPassword('pw').build();

  it('revokes the session on the server, so a copied cookie stops working at once', async () => {
    const core = makeCore([alice()]);
    const { token } = await signIn(core, 'alice', 'pw');
    expect((await core.authorize.execute({ forwarded, sessionToken: token, ip })).ok).toBe(true);
    expect(await core.logout.execute({ sessionToken: token })).toEqual({ ok: true, value: { revoked: true } });
    expect(await core.authorize.execute({ forwarded, sessionToken: token, ip })).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });

  it('records who logged out', async () => {
    const core = makeCore([alice()]);
    await core.logout.execute({ sessionToken: (await signIn(core, 'alice', 'pw')).token });
    expect(core.audit.events).toContainEqual({ event: 'logout', username: 'alice' });
  });

  it('ends only that session, not the other logins of the same person', async () => {
    const core = makeCore([alice()]);
    const laptop = await signIn(core, 'alice', 'pw');
    const phone = await signIn(core, 'alice', 'pw');
    await core.logout.execute({ sessionToken: laptop.token });
    expect((await core.authorize.execute({ forwarded, sessionToken: phone.token, ip })).ok).toBe(true);
  });

  it('answers a second logout, a missing or a forged cookie without revoking anything', async () => {
    const core = makeCore([alice()]);
    const { token } = await signIn(core, 'alice', 'pw');
    await core.logout.execute({ sessionToken: token });
    for (const sessionToken of [token, undefined, '', 'v1.AAAA', 'garbage']) {
      expect(await core.logout.execute({ sessionToken })).toEqual({ ok: true, value: { revoked: false } });
    }
  });

  it('does nothing for an expired session', async () => {
    const core = makeCore([alice()]);
    const { token, session } = await signIn(core, 'alice', 'pw');
    core.clock.set(session.expiresAt);
    expect(await core.logout.execute({ sessionToken: token })).toEqual({ ok: true, value: { revoked: false } });
  });

  it('keeps the revocation only until the session would have expired anyway', async () => {
    const core = makeCore([alice()]);
    const { token, session } = await signIn(core, 'alice', 'pw');
    await core.logout.execute({ sessionToken: token });
    core.clock.set(session.expiresAt - 1);
    expect(await core.revoked.isRevoked(session.id)).toBe(true);
    core.clock.set(session.expiresAt);
    expect(await core.revoked.isRevoked(session.id)).toBe(false);
  });

  it('revokes a pending TOTP session too', async () => {
    const core = makeCore([aUser().named('tom').withPassword('pw').withTotp().build()]);
    const { token } = await signIn(core, 'tom', 'pw');
    expect(await core.logout.execute({ sessionToken: token })).toEqual({ ok: true, value: { revoked: true } });
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });
});
