import { IssueInvitationUseCase, type IssueInvitationInput } from '../../../../src/application/admin/issue-invitation';
import type { AccountDirectory, ListedAccount } from '../../../../src/application/admin/account-directory';
import type { AdminGate } from '../../../../src/application/admin/admin-gate';
import { InMemoryPasskeyEnrolmentLinks } from '../../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { err, ok } from '../../../../src/domain/result';
import type { Identity, Session } from '../../../../src/domain/session';
import { aUser } from '../../../support/builders';
import { FixedClock, RecordingAuditLog, SequentialIds } from '../../../support/fakes';

const clock = new FixedClock();
const root: Identity = { username: 'root', name: 'Root', email: 'root@example.test', groups: ['admins'], oauth: false, totp: true, provider: 'username' };
const admitting = { admit: async () => ok({ identity: root, session: { id: 'admin-session' } as Session }) } as unknown as AdminGate;
const refusing = { admit: async () => err({ code: 'admin_required' as const }) } as unknown as AdminGate;

const listed: ListedAccount[] = [
  { account: aUser().named('Ann').build(), source: 'file' },
  { account: aUser().named('carol').withPasskeyOnly().build(), source: 'file' },
  { account: aUser().named('env').build(), source: 'users' },
];
const directory: AccountDirectory = { list: async () => listed, listing: async () => ({ accounts: listed, truncated: [] }) };

function setUp(gate = admitting, passkeysOn = true) {
  const passwordLinks = new InMemoryPasskeyEnrolmentLinks(clock);
  const passkeyLinks = new InMemoryPasskeyEnrolmentLinks(clock);
  const audit = new RecordingAuditLog();
  const useCase = new IssueInvitationUseCase(gate, directory, passwordLinks, passkeysOn ? passkeyLinks : null, new SequentialIds(), clock, audit);
  const issue = (body: Partial<IssueInvitationInput>) =>
    useCase.execute({ ip: '192.0.2.1', sessionToken: 't', fromThisSite: true, username: undefined, kind: undefined, hours: undefined, ...body });
  return { issue, passwordLinks, passkeyLinks, audit };
}

describe('IssueInvitationUseCase', () => {
  it('makes a password link for the account as the store spells it, valid 72 hours unless told, audited with the administrator', async () => {
    const { issue, passwordLinks, audit } = setUp();
    const result = await issue({ username: 'ann', kind: 'password' });
    expect(result).toEqual({ ok: true, value: { username: 'Ann', kind: 'password', code: 'id-1id-2', expiresAt: clock.now() + 72 * 3_600_000 } });
    expect(audit.events).toEqual([
      { event: 'invitation_issued', username: 'Ann', kind: 'password', admin: 'root', expiresAt: new Date(clock.now() + 72 * 3_600_000).toISOString() },
    ]);
    expect(JSON.stringify(audit.events)).not.toContain('id-1id-2');
    expect(await passwordLinks.take('id-1id-2')).toBe('Ann');
  });

  it('lives the hours the administrator chose, and no longer', async () => {
    const { issue, passwordLinks } = setUp();
    const start = clock.now();
    await issue({ username: 'ann', kind: 'password', hours: 1 });
    await issue({ username: 'ann', kind: 'password', hours: 2 });
    clock.advance(3_600_000);
    try {
      expect(await passwordLinks.take('id-1id-2')).toBeNull();
      expect(await passwordLinks.take('id-3id-4')).toBe('Ann');
    } finally {
      clock.set(start);
    }
  });

  it.each([
    [{ username: 'ann', kind: 'email' }, ['kind']],
    [{ username: '', kind: 'password' }, ['username']],
    [{ username: 'ann', kind: 'password', hours: 169 }, ['hours']],
    [{ username: 'ann', kind: 'password', hours: 0 }, ['hours']],
    [{ username: 'ann', kind: 'password', hours: 1.5 }, ['hours']],
    [{ username: 7, kind: 'passkey', hours: '3' }, ['username', 'hours']],
  ])('refuses %j naming the wrong fields', async (body, fields) => {
    const { issue, audit } = setUp();
    expect(await issue(body)).toEqual({ ok: false, error: { code: 'invalid_fields', fields } });
    expect(audit.events).toEqual([]);
  });

  it('tells a non-administrator only admin_required, whatever the body', async () => {
    const { issue } = setUp(refusing);
    expect(await issue({ username: 7 })).toEqual({ ok: false, error: { code: 'admin_required' } });
    expect(await issue({ username: 'ann', kind: 'password' })).toEqual({ ok: false, error: { code: 'admin_required' } });
  });

  it('refuses a cross-site request before anything else', async () => {
    const { issue, audit } = setUp();
    expect(await issue({ username: 'ann', kind: 'password', fromThisSite: false })).toEqual({ ok: false, error: { code: 'cross_site_request' } });
    expect(audit.events).toEqual([expect.objectContaining({ event: 'admin_refused', reason: 'cross_site' })]);
  });

  it('refuses an unknown person, a password where none can be written, a passkey link for a person with a password, and passkeys off', async () => {
    const { issue } = setUp();
    expect(await issue({ username: 'zed', kind: 'password' })).toEqual({ ok: false, error: { code: 'user_not_found' } });
    expect(await issue({ username: 'env', kind: 'password' })).toEqual({ ok: false, error: { code: 'read_only_source' } });
    expect(await issue({ username: 'ann', kind: 'passkey' })).toEqual({ ok: false, error: { code: 'not_passkey_only' } });
    expect(await setUp(admitting, false).issue({ username: 'carol', kind: 'passkey' })).toEqual({ ok: false, error: { code: 'passkeys_off' } });
  });

  it('makes a passkey link for a passkey-only person in the first-passkey links, never in the password ones', async () => {
    const { issue, passwordLinks, passkeyLinks } = setUp();
    const result = await issue({ username: 'carol', kind: 'passkey', hours: 2 });
    expect(result).toEqual({ ok: true, value: { username: 'carol', kind: 'passkey', code: 'id-1id-2', expiresAt: clock.now() + 7_200_000 } });
    expect(await passwordLinks.take('id-1id-2')).toBeNull();
    expect(await passkeyLinks.take('id-1id-2')).toBe('carol');
  });
});
