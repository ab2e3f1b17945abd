import { AdminGate } from '../../../../src/application/admin/admin-gate';
import type { Authentication, RequestAuthenticator } from '../../../../src/application/sessions/request-authenticator';
import type { StepUpReferences } from '../../../../src/application/step-up/step-up-references';
import type { StepUpRequest } from '../../../../src/domain/step-up';
import type { Identity, Session } from '../../../../src/domain/session';
import { FixedClock, RecordingAuditLog } from '../../../support/fakes';

const clock = new FixedClock();
const NOW = clock.now();

function identity(groups: string[]): Identity {
  return { username: 'root', name: 'Root', email: 'root@example.test', groups, oauth: false, totp: true, provider: 'username' };
}
function session(proven: Session['proven']): Session {
  return { ...identity(['admins']), id: 's1', issuedAt: NOW - 1000, expiresAt: NOW + 60_000, totpPending: false, proven } as Session;
}

function gateFor(auth: Authentication) {
  const sealed: StepUpRequest[] = [];
  const references: StepUpReferences = { seal: (r) => (sealed.push(r), 'ref-1'), unseal: () => null };
  const authenticator = { authenticate: () => auth } as unknown as RequestAuthenticator;
  const audit = new RecordingAuditLog();
  const gate = new AdminGate(authenticator, references, clock, audit, { groups: ['admins'], stepUpMaxAge: 600, consoleUrl: 'https://auth.example.test/admin' });
  return { gate, sealed, audit };
}
const request = { sessionToken: 'cookie', ip: '192.0.2.1' };

describe('AdminGate', () => {
  it('admits a full session of a member of ADMIN_GROUPS with a second factor proven within the max age', async () => {
    const { gate } = gateFor({ kind: 'session', identity: identity(['admins']), session: session({ password: NOW - 900_000, totp: NOW - 599_000 }) });
    expect((await gate.admit(request)).ok).toBe(true);
  });

  it.each<[string, Authentication]>([
    ['a session of a person in no admin group', { kind: 'session', identity: identity(['staff']), session: session({ totp: NOW }) }],
    ['HTTP Basic of an administrator', { kind: 'basic', identity: identity(['admins']) }],
    ['an access token of an administrator', { kind: 'token', identity: identity(['admins']) }],
    ['a JWT', { kind: 'jwt', identity: identity(['admins']) }],
    ['a login still owing its TOTP code', { kind: 'pending', session: session({ password: NOW }) }],
    ['nobody', { kind: 'anonymous' }],
  ])('refuses %s with admin_required, audited', async (_name, auth) => {
    const { gate, audit } = gateFor(auth);
    expect(await gate.admit(request)).toEqual({ ok: false, error: { code: 'admin_required' } });
    expect(audit.events).toEqual([expect.objectContaining({ event: 'admin_refused', reason: 'admin_required' })]);
  });

  it.each<[string, Session['proven']]>([
    ['a password only', { password: NOW }],
    ['a code older than the max age', { password: NOW, totp: NOW - 601_000 }],
  ])('sends an administrator with %s to a step-up that returns to the console', async (_name, proven) => {
    const { gate, sealed } = gateFor({ kind: 'session', identity: identity(['admins']), session: session(proven) });
    expect(await gate.admit(request)).toEqual({
      ok: false,
      error: { code: 'step_up_required', reference: 'ref-1', methods: ['totp', 'passkey'], maxAge: 600 },
    });
    expect(sealed).toEqual([
      {
        sessionId: 's1',
        username: 'root',
        methods: ['totp', 'passkey'],
        maxAge: 600,
        returnTo: 'https://auth.example.test/admin',
        expiresAt: expect.any(Number),
      },
    ]);
  });

  it('answers store_unavailable when the session cannot be checked', async () => {
    const { gate } = gateFor({ kind: 'unavailable' });
    expect(await gate.admit(request)).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });
});
