import type { AdminGate } from '../../../../src/application/admin/admin-gate';
import { RemovePersonPasskeysUseCase } from '../../../../src/application/admin/remove-person-passkeys';
import { RemovePersonTotpUseCase } from '../../../../src/application/admin/remove-person-totp';
import { InMemoryEnrolledTotpSecrets } from '../../../../src/adapters/state/memory/in-memory-enrolled-totp-secrets';
import { InMemoryPasskeyCredentials } from '../../../../src/adapters/state/memory/in-memory-passkey-credentials';
import { InMemoryRevokedSessions } from '../../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { InMemorySessionIndex } from '../../../../src/adapters/state/memory/in-memory-session-index';
import { ok } from '../../../../src/domain/result';
import type { Identity, Session } from '../../../../src/domain/session';
import { aPasskeyOf, aUser } from '../../../support/builders';
import { FakeUserStore, FixedClock, RecordingAuditLog } from '../../../support/fakes';

const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBV';
const root: Identity = { username: 'root', name: 'Root', email: 'root@example.test', groups: ['admins'], oauth: false, totp: true, provider: 'username' };
const gate = { admit: async () => ok({ identity: root, session: { id: 'root-now' } as Session }) } as unknown as AdminGate;

async function setUp() {
  const clock = new FixedClock();
  const users = new FakeUserStore([
    aUser().named('root').build(),
    aUser().named('tom').build(),
    aUser().named('set').withTotp().build(),
    aUser().named('carol').withPasskeyOnly().build(),
  ]);
  const enrolled = new InMemoryEnrolledTotpSecrets();
  const passkeys = new InMemoryPasskeyCredentials();
  const index = new InMemorySessionIndex(clock);
  const revoked = new InMemoryRevokedSessions(clock);
  const audit = new RecordingAuditLog();
  const base = { userAgent: '', address: '192.0.2.1', method: 'totp', startedAt: clock.now(), lastSeenAt: clock.now(), expiresAt: clock.now() + 60_000 };
  for (const [id, username] of [
    ['tom-1', 'tom'],
    ['root-now', 'root'],
    ['root-old', 'root'],
    ['carol-1', 'carol'],
  ])
    await index.register({ ...base, id, username });
  const sessions = { index, revoked };
  const totp = new RemovePersonTotpUseCase(gate, users, enrolled, passkeys, sessions, audit);
  const keys = new RemovePersonPasskeysUseCase(gate, users, passkeys, sessions, audit);
  const request = { ip: '192.0.2.1', sessionToken: 't', fromThisSite: true };
  return { enrolled, passkeys, revoked, audit, totp, keys, request };
}

describe('RemovePersonTotpUseCase', () => {
  it("removes a person's own TOTP, ends their sessions, and audits the administrator", async () => {
    const { enrolled, revoked, audit, totp, request } = await setUp();
    await enrolled.enrol('tom', SECRET);
    expect(await totp.execute({ ...request, username: 'TOM' })).toEqual({ ok: true, value: { ended: 1 } });
    expect(enrolled.secretOf('tom')).toBeNull();
    expect(await revoked.isRevoked('tom-1')).toBe(true);
    expect(audit.events).toEqual([{ event: 'totp_removed', username: 'tom', admin: 'root', ended: 1, ip: '192.0.2.1' }]);
  });

  it('refuses a TOTP set in the users file, a person without one, and an unknown person', async () => {
    const { totp, request } = await setUp();
    expect(await totp.execute({ ...request, username: 'set' })).toEqual({ ok: false, error: { code: 'totp_set_by_administrator' } });
    expect(await totp.execute({ ...request, username: 'tom' })).toEqual({ ok: false, error: { code: 'totp_not_enrolled' } });
    expect(await totp.execute({ ...request, username: 'zed' })).toEqual({ ok: false, error: { code: 'user_not_found' } });
    expect(await totp.execute({ ...request, username: 'tom', fromThisSite: false })).toEqual({ ok: false, error: { code: 'cross_site_request' } });
  });

  it("refuses an administrator removing their own last second factor, and allows it while a passkey is left; the caller's session stays", async () => {
    const { enrolled, passkeys, revoked, totp, request } = await setUp();
    await enrolled.enrol('root', SECRET);
    expect(await totp.execute({ ...request, username: 'root' })).toEqual({ ok: false, error: { code: 'last_admin' } });
    expect(enrolled.secretOf('root')).toBe(SECRET);
    await passkeys.add(aPasskeyOf('root'), 10);
    expect(await totp.execute({ ...request, username: 'root' })).toEqual({ ok: true, value: { ended: 1 } });
    expect(await revoked.isRevoked('root-now')).toBe(false);
    expect(await revoked.isRevoked('root-old')).toBe(true);
  });
});

describe('RemovePersonPasskeysUseCase', () => {
  it('removes one passkey by id, or all of them, ending the sessions', async () => {
    const { passkeys, revoked, audit, keys, request } = await setUp();
    await passkeys.add(aPasskeyOf('carol', 'k1'), 10);
    await passkeys.add(aPasskeyOf('carol', 'k2'), 10);
    await passkeys.add(aPasskeyOf('carol', 'k3'), 10);
    expect(await keys.execute({ ...request, username: 'carol', id: 'k2' })).toEqual({ ok: true, value: { removed: 1, ended: 1 } });
    expect((await passkeys.list('carol')).map((p) => p.id)).toEqual(['k1', 'k3']);
    expect(await revoked.isRevoked('carol-1')).toBe(true);
    expect(await keys.execute({ ...request, username: 'carol' })).toEqual({ ok: true, value: { removed: 2, ended: 0 } });
    expect(await passkeys.list('carol')).toEqual([]);
    expect(audit.events.map((e) => e.event === 'passkeys_removed' && e.count)).toEqual([1, 2]);
  });

  it('refuses an unknown passkey, a person with none, and an unknown person', async () => {
    const { passkeys, keys, request } = await setUp();
    await passkeys.add(aPasskeyOf('carol', 'k1'), 10);
    expect(await keys.execute({ ...request, username: 'carol', id: 'nope' })).toEqual({ ok: false, error: { code: 'passkey_not_found' } });
    expect(await keys.execute({ ...request, username: 'tom' })).toEqual({ ok: false, error: { code: 'passkey_not_found' } });
    expect(await keys.execute({ ...request, username: 'zed' })).toEqual({ ok: false, error: { code: 'user_not_found' } });
  });

  it('refuses an administrator removing their own last passkey when it is their only second factor', async () => {
    const { passkeys, enrolled, keys, request } = await setUp();
    await passkeys.add(aPasskeyOf('root', 'r1'), 10);
    expect(await keys.execute({ ...request, username: 'root' })).toEqual({ ok: false, error: { code: 'last_admin' } });
    await passkeys.add(aPasskeyOf('root', 'r2'), 10);
    expect(await keys.execute({ ...request, username: 'root', id: 'r1' })).toEqual({ ok: true, value: { removed: 1, ended: 1 } });
    await enrolled.enrol('root', SECRET);
    const withTotp = new FakeUserStore([aUser().named('root').withTotp(SECRET).build()]);
    const keysWithTotp = new RemovePersonPasskeysUseCase(
      gate,
      withTotp,
      passkeys,
      { index: new InMemorySessionIndex(new FixedClock()), revoked: new InMemoryRevokedSessions(new FixedClock()) },
      new RecordingAuditLog(),
    );
    expect(await keysWithTotp.execute({ ...request, username: 'root' })).toEqual({ ok: true, value: { removed: 1, ended: 0 } });
  });
});
