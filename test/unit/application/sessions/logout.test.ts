import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import { aUser } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import type { RevokedSessions } from '../../../../src/application/ports/revoked-sessions';

describe('LogoutUseCase', () => {
  const ip = '198.51.100.7';
  const forwarded = { proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/' } as const;
  const alice = () => aUser().named('alice').withPassword('pw').build();

  it('revokes the session on the server, so a copied cookie stops working at once', async () => {
    const core = makeCore([alice()]);
    const { token } = await signIn(core, 'alice', 'pw');
    expect((await core.authorize.execute({ forwarded, sessionToken: token, ip })).ok).toBe(true);
    expect(await core.logout.execute({ sessionToken: token, fromThisSite: true })).toEqual({
      ok: true,
      value: { revoked: true, sessionId: expect.any(String) },
    });
    expect(await core.authorize.execute({ forwarded, sessionToken: token, ip })).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });

  it('records who logged out', async () => {
    const core = makeCore([alice()]);
    await core.logout.execute({ sessionToken: (await signIn(core, 'alice', 'pw')).token, fromThisSite: true });
    expect(core.audit.events).toContainEqual({ event: 'logout', username: 'alice' });
  });

  it('ends only that session, not the other logins of the same person', async () => {
    const core = makeCore([alice()]);
    const laptop = await signIn(core, 'alice', 'pw');
    const phone = await signIn(core, 'alice', 'pw');
    await core.logout.execute({ sessionToken: laptop.token, fromThisSite: true });
    expect((await core.authorize.execute({ forwarded, sessionToken: phone.token, ip })).ok).toBe(true);
  });

  it('answers a second logout, a missing or a forged cookie without revoking anything', async () => {
    const core = makeCore([alice()]);
    const { token } = await signIn(core, 'alice', 'pw');
    await core.logout.execute({ sessionToken: token, fromThisSite: true });
    for (const sessionToken of [token, undefined, '', 'v1.AAAA', 'garbage']) {
      expect(await core.logout.execute({ sessionToken, fromThisSite: true })).toEqual({ ok: true, value: { revoked: false } });
    }
  });

  it('does nothing for an expired session', async () => {
    const core = makeCore([alice()]);
    const { token, session } = await signIn(core, 'alice', 'pw');
    core.clock.set(session.expiresAt);
    expect(await core.logout.execute({ sessionToken: token, fromThisSite: true })).toEqual({ ok: true, value: { revoked: false } });
  });

  it('keeps the revocation only until the session would have expired anyway', async () => {
    const core = makeCore([alice()]);
    const { token, session } = await signIn(core, 'alice', 'pw');
    await core.logout.execute({ sessionToken: token, fromThisSite: true });
    core.clock.set(session.expiresAt - 1);
    expect(await core.revoked.isRevoked(session.id)).toBe(true);
    core.clock.set(session.expiresAt);
    expect(await core.revoked.isRevoked(session.id)).toBe(false);
  });

  it('revokes a pending TOTP session too', async () => {
    const core = makeCore([aUser().named('tom').withPassword('pw').withTotp().build()]);
    const { token } = await signIn(core, 'tom', 'pw');
    expect(await core.logout.execute({ sessionToken: token, fromThisSite: true })).toEqual({
      ok: true,
      value: { revoked: true, sessionId: expect.any(String) },
    });
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });

  it('refuses a request that does not come from this site, revokes nothing and audits the refusal', async () => {
    const core = makeCore([alice()]);
    const { token, session } = await signIn(core, 'alice', 'pw');
    expect(await core.logout.execute({ sessionToken: token, fromThisSite: false, ip, requestId: 'r-1' })).toEqual({
      ok: false,
      error: { code: 'cross_site_request' },
    });
    expect(await core.revoked.isRevoked(session.id)).toBe(false);
    expect(core.audit.events).toContainEqual({ event: 'logout_refused', ip, reason: 'cross_site', requestId: 'r-1' });
    expect(core.audit.events).not.toContainEqual(expect.objectContaining({ event: 'logout' }));
  });

  it('still revokes the session when the revocations cannot be read yet (a replica that is still syncing)', async () => {
    const core = makeCore([alice()]);
    const { token, session } = await signIn(core, 'alice', 'pw');
    const unreadable = jest.spyOn(core.revoked as RevokedSessions, 'isRevoked').mockRejectedValue(new StateStoreUnavailableError('redis'));
    expect(await core.logout.execute({ sessionToken: token, fromThisSite: true })).toEqual({
      ok: true,
      value: { revoked: true, sessionId: expect.any(String) },
    });
    unreadable.mockRestore();
    expect(await core.revoked.isRevoked(session.id)).toBe(true);
  });
});
