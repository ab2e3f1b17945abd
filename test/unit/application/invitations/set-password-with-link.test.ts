import { HmacPasswordLinks } from '../../../../src/adapters/crypto/hmac-one-time-links';
import { HmacPasskeyEnrolmentLinks } from '../../../../src/adapters/crypto/hmac-one-time-links';
import { InMemoryPasskeyEnrolmentLinks } from '../../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { InMemoryRevokedSessions } from '../../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { InMemorySessionIndex } from '../../../../src/adapters/state/memory/in-memory-session-index';
import { SetPasswordWithLinkUseCase, type SetPasswordWithLinkInput } from '../../../../src/application/invitations/set-password-with-link';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import type { AccountChange, AccountEditError, AccountEditor } from '../../../../src/application/ports/account-editor';
import { err, ok, type Result } from '../../../../src/domain/result';
import { aUser } from '../../../support/builders';
import { FakePasswordHasher, FakeUserStore, FixedClock, RecordingAuditLog } from '../../../support/fakes';

const SECRET = 'unit-test-secret-0123456789-abcdefghijklmnop';
const CODE = 'A'.repeat(48);
const OTHER = 'B'.repeat(48);

/** Records each change; `refuse` makes the next edits fail as the users file would. */
class RecordingEditor implements AccountEditor {
  readonly changes: AccountChange[] = [];
  refuse: AccountEditError | null = null;
  async version(): Promise<string> {
    return `v${this.changes.length}`;
  }
  async edit(change: AccountChange): Promise<Result<{ readonly version: string }, AccountEditError>> {
    if (this.refuse !== null) return err(this.refuse);
    this.changes.push(change);
    return ok({ version: `v${this.changes.length}` });
  }
}

function setUp() {
  const clock = new FixedClock();
  const backend = new InMemoryPasskeyEnrolmentLinks(clock);
  const links = new HmacPasswordLinks(backend, SECRET);
  const users = new FakeUserStore([aUser().named('Ann').withPasskeyOnly().build(), aUser().named('bob').build()]);
  const editor = new RecordingEditor();
  const index = new InMemorySessionIndex(clock);
  const revoked = new InMemoryRevokedSessions(clock);
  const audit = new RecordingAuditLog();
  const useCase = new SetPasswordWithLinkUseCase(users, links, { hasher: new FakePasswordHasher(), editor, index, revoked }, audit);
  const redeem = (body: Partial<SetPasswordWithLinkInput>) =>
    useCase.execute({ code: CODE, password: 'a long new password', fromThisSite: true, ip: '192.0.2.9', ...body });
  return { clock, backend, links, users, editor, index, revoked, audit, redeem };
}

const session = (id: string, username: string, now: number) => ({
  id,
  username,
  method: 'password',
  userAgent: '',
  address: '192.0.2.1',
  startedAt: now,
  lastSeenAt: now,
  expiresAt: now + 3_600_000,
});

describe('SetPasswordWithLinkUseCase', () => {
  it("writes the hash of the new password for the link's own account, ends its sessions, and audits it", async () => {
    const { clock, links, editor, index, revoked, audit, redeem } = setUp();
    await links.put(CODE, 'Ann', clock.now() + 60_000);
    await index.register(session('s1', 'ann', clock.now()));
    await index.register(session('s2', 'bob', clock.now()));
    expect(await redeem({})).toEqual({ ok: true, value: { username: 'Ann', ended: 1 } });
    expect(editor.changes).toEqual([{ kind: 'set_password', username: 'Ann', passwordHash: 'fake:a long new password' }]);
    expect(await revoked.isRevoked('s1')).toBe(true);
    expect(await revoked.isRevoked('s2')).toBe(false);
    expect(audit.events).toEqual([{ event: 'invitation_redeemed', kind: 'password', username: 'Ann', ended: 1, ip: '192.0.2.9' }]);
    expect(JSON.stringify(audit.events)).not.toMatch(/long new password|AAAA/);
  });

  it('works once: a second try with the same link is refused and writes nothing', async () => {
    const { clock, links, editor, audit, redeem } = setUp();
    await links.put(CODE, 'Ann', clock.now() + 60_000);
    expect((await redeem({})).ok).toBe(true);
    expect(await redeem({ password: 'another long password' })).toEqual({ ok: false, error: { code: 'invalid_link' } });
    expect(editor.changes).toHaveLength(1);
    expect(audit.events.at(-1)).toEqual({ event: 'invitation_refused', kind: 'password', reason: 'unknown_used_or_expired', ip: '192.0.2.9' });
  });

  it('works once under concurrency: of ten tries at once exactly one sets a password', async () => {
    const { clock, links, editor, redeem } = setUp();
    await links.put(CODE, 'Ann', clock.now() + 60_000);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => redeem({ password: `concurrent password ${i}` })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.error.code)).toEqual(Array(9).fill('invalid_link'));
    expect(editor.changes).toHaveLength(1);
  });

  it('refuses an expired link, and an unknown one', async () => {
    const { clock, links, editor, redeem } = setUp();
    await links.put(CODE, 'Ann', clock.now() + 60_000);
    clock.advance(60_000);
    expect(await redeem({})).toEqual({ ok: false, error: { code: 'invalid_link' } });
    expect(await redeem({ code: OTHER })).toEqual({ ok: false, error: { code: 'invalid_link' } });
    expect(editor.changes).toEqual([]);
  });

  it('refuses a weak password without spending the link, so the person may choose another', async () => {
    const { clock, links, editor, redeem } = setUp();
    await links.put(CODE, 'Ann', clock.now() + 60_000);
    expect(await redeem({ password: 'short' })).toEqual({ ok: false, error: { code: 'weak_password', reason: 'too_short' } });
    expect(await redeem({ password: 'é'.repeat(37) })).toEqual({ ok: false, error: { code: 'weak_password', reason: 'too_long' } });
    expect(await redeem({ password: 12345678901234 })).toEqual({ ok: false, error: { code: 'weak_password', reason: 'too_short' } });
    expect(editor.changes).toEqual([]);
    expect((await redeem({})).ok).toBe(true);
  });

  it('refuses a malformed code, a cross-site request, and a link whose account is gone', async () => {
    const { clock, links, users, redeem } = setUp();
    expect(await redeem({ code: 'short' })).toEqual({ ok: false, error: { code: 'invalid_link' } });
    expect(await redeem({ code: 42 })).toEqual({ ok: false, error: { code: 'invalid_link' } });
    expect(await redeem({ fromThisSite: false })).toEqual({ ok: false, error: { code: 'cross_site_request' } });
    await links.put(CODE, 'Ann', clock.now() + 60_000);
    users.replace([]);
    expect(await redeem({})).toEqual({ ok: false, error: { code: 'invalid_link' } });
  });

  it('refuses when the users file refuses the write', async () => {
    const { clock, links, editor, audit, redeem } = setUp();
    await links.put(CODE, 'Ann', clock.now() + 60_000);
    editor.refuse = { code: 'user_not_found' };
    expect(await redeem({})).toEqual({ ok: false, error: { code: 'invalid_link' } });
    expect(audit.events.at(-1)).toMatchObject({ event: 'invitation_refused', reason: 'user_not_found' });
  });

  it('answers store_unavailable when the link store cannot answer', async () => {
    const { backend, redeem } = setUp();
    jest.spyOn(backend, 'take').mockRejectedValue(new StateStoreUnavailableError('memory'));
    expect(await redeem({})).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });
});

describe('the set-password links beside the first-passkey links in one store', () => {
  it('never redeem a code of the other kind: each is hashed under its own key', async () => {
    const clock = new FixedClock();
    const shared = new InMemoryPasskeyEnrolmentLinks(clock);
    const password = new HmacPasswordLinks(shared, SECRET);
    const passkey = new HmacPasskeyEnrolmentLinks(shared, SECRET);
    await password.put(CODE, 'Ann', clock.now() + 60_000);
    await passkey.put(OTHER, 'carol', clock.now() + 60_000);
    expect(await passkey.take(CODE)).toBeNull();
    expect(await password.take(OTHER)).toBeNull();
    expect(await shared.take(CODE)).toBeNull();
    expect(await password.take(CODE)).toBe('Ann');
    expect(await passkey.take(OTHER)).toBe('carol');
  });
});
