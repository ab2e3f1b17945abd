import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { makeCore } from '../../../support/core';

const claims = {
  username: 'alice',
  name: 'Alice',
  email: 'alice@example.test',
  groups: ['staff'],
  provider: 'username',
  oauth: false,
  totp: false,
  credential: 'fp',
};

describe('SessionIssuer: the one place a session is made', () => {
  it('a full session is registered in the index before it is handed out, audited once, and sealed', async () => {
    const core = makeCore([]);
    const { session, token } = await core.issuer.full(
      claims,
      { method: 'password', proves: ['password'] },
      { ip: '198.51.100.7', userAgent: 'Firefox', requestId: 'r1' },
    );
    expect(session).toMatchObject({ ...claims, totpPending: false, issuedAt: core.clock.now(), expiresAt: core.clock.now() + core.settings.sessionLifetimeMs });
    expect(core.sealer.unseal(token)).toEqual(session);
    expect(session.proven).toEqual({ password: core.clock.now() });
    expect(await core.index.list('alice')).toEqual([
      expect.objectContaining({ id: session.id, method: 'password', userAgent: 'Firefox', address: '198.51.100.7' }),
    ]);
    expect(core.audit.events).toEqual([{ event: 'login_succeeded', username: 'alice', method: 'password', ip: '198.51.100.7', requestId: 'r1' }]);
  });

  it('audits under another method when asked, or not at all for a replacement that is no login', async () => {
    const core = makeCore([]);
    await core.issuer.full(claims, { method: 'passkey', audited: 'passkey_enrolment', proves: ['passkey'] }, { ip: '198.51.100.7' });
    await core.issuer.full(claims, { method: 'totp', audited: null, proves: ['totp'] }, { ip: '198.51.100.7' });
    expect(core.audit.events.map((e) => (e.event === 'login_succeeded' ? e.method : e.event))).toEqual(['passkey_enrolment']);
    expect((await core.index.list('alice')).map((s) => s.method).sort()).toEqual(['passkey', 'totp']);
  });

  it('hands out no session when the index cannot be written', async () => {
    const core = makeCore([]);
    const failure = new Error('index down');
    jest.spyOn(core.index, 'register').mockRejectedValueOnce(failure);
    await expect(core.issuer.full(claims, { method: 'password', proves: ['password'] }, { ip: '198.51.100.7' })).rejects.toBe(failure);
    expect(core.audit.events).toEqual([]);
  });

  it('a pending session (second factor owed) lives minutes, is neither indexed nor audited', async () => {
    const core = makeCore([]);
    const { session, token } = core.issuer.pending(claims);
    expect(session.totpPending).toBe(true);
    expect(session.expiresAt - session.issuedAt).toBeLessThanOrEqual(5 * 60 * 1000);
    expect(core.sealer.unseal(token)).toEqual(session);
    expect(await core.index.list('alice')).toEqual([]);
    expect(core.audit.events).toEqual([]);
  });
});

describe('no other way to make a session', () => {
  const src = join(__dirname, '..', '..', '..', '..', 'src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
    });
  const OWN = new Set(['application/sessions/session-issuer.ts', 'application/sessions/session-registration.ts']);
  // What making a session takes: its state decided, its index entry, its registration.
  const SIGNS = [/totpPending:\s*(true|false)/, /indexedSessionOf\(/, /\bindex\.register\(/];

  it('finds the signs of a session being made only in the issuer', () => {
    const outside = files(src)
      .map((path) => ({ path: relative(src, path), text: readFileSync(path, 'utf8') }))
      .filter(({ path }) => !OWN.has(path))
      .flatMap(({ path, text }) => SIGNS.filter((sign) => sign.test(text)).map((sign) => `${path}: ${String(sign)}`));
    expect(outside).toEqual([]);
  });

  it('would see one (the signs match the issuer itself)', () => {
    const own = readFileSync(join(src, 'application/sessions/session-issuer.ts'), 'utf8');
    expect(SIGNS.filter((sign) => sign.test(own))).toHaveLength(SIGNS.length);
  });
});
