import { InMemoryLogoutDeliveries } from '../../../../src/adapters/state/memory/in-memory-logout-deliveries';
import { DeliverLogoutsUseCase } from '../../../../src/application/oidc/deliver-logouts';
import type { LogoutSendFailure, LogoutTokenSender } from '../../../../src/application/oidc/logout-token-sender';
import type { OidcClients } from '../../../../src/application/oidc/oidc-clients';
import type { LogoutTokenClaims } from '../../../../src/domain/backchannel-logout';
import type { OidcClient } from '../../../../src/domain/oidc-client';
import { FixedClock, RecordingAuditLog } from '../../../support/fakes';

const wiki: OidcClient = {
  clientId: 'wiki',
  name: 'Wiki',
  secret: 's'.repeat(32),
  tokenEndpointAuthMethod: 'client_secret_basic',
  redirectUris: ['https://wiki.example.org/cb'],
  postLogoutRedirectUris: [],
  allowedUsers: [],
  allowedGroups: [],
  scopes: ['openid'],
  backchannelLogout: { uri: 'https://wiki.example.org/bcl', sessionRequired: true },
};
const clients: OidcClients = { all: () => [wiki], get: (id) => (id === 'wiki' ? wiki : null) };

/** A sender whose answers the test scripts; records every token it was given. */
class ScriptedSender implements LogoutTokenSender {
  readonly sent: { uri: string; claims: LogoutTokenClaims }[] = [];
  answer: { ok: true } | { ok: false; reason: LogoutSendFailure; status?: number } = { ok: true };
  async send(uri: string, claims: LogoutTokenClaims) {
    this.sent.push({ uri, claims });
    return this.answer;
  }
}

function setUp() {
  const clock = new FixedClock(Date.UTC(2026, 11, 3, 8, 0, 0));
  const queue = new InMemoryLogoutDeliveries();
  const sender = new ScriptedSender();
  const audit = new RecordingAuditLog();
  const deliver = new DeliverLogoutsUseCase(queue, clients, sender, clock, audit, {
    issuer: 'https://auth.example.org',
    retry: { firstRetryMs: 1_000, maxRetryMs: 4_000, boundMs: 10_000 },
    leaseMs: 30_000,
    batch: 10,
  });
  const queued = (over: { clientId?: string; sid?: string | null } = {}) =>
    queue.add({ id: 'd1', clientId: 'wiki', subject: 'sub-1', sid: 'sid-1', createdAt: clock.now(), attempts: 0, dueAt: clock.now(), ...over });
  return { clock, queue, sender, audit, deliver, queued };
}

describe('DeliverLogoutsUseCase', () => {
  it('sends a due delivery once, with the claims of its session, and forgets it', async () => {
    const { sender, audit, deliver, queued } = setUp();
    await queued();
    expect(await deliver.execute()).toBe(1);
    expect(sender.sent).toHaveLength(1);
    expect(sender.sent[0].uri).toBe('https://wiki.example.org/bcl');
    expect(sender.sent[0].claims).toMatchObject({ iss: 'https://auth.example.org', aud: 'wiki', sub: 'sub-1', sid: 'sid-1' });
    expect(audit.events).toEqual([{ event: 'oidc_logout_delivered', client: 'wiki', attempts: 1 }]);
    expect(await deliver.execute()).toBe(0);
  });

  it('retries a failed delivery with backoff (1 s, 2 s, 4 s, 4 s…) and gives it up at the bound, each step audited', async () => {
    const { clock, sender, audit, deliver, queued } = setUp();
    sender.answer = { ok: false, reason: 'refused', status: 503 };
    await queued();
    const attemptsAt: number[] = [];
    const start = clock.now();
    for (let step = 0; step < 200 && !audit.events.some((e) => e.event === 'oidc_logout_given_up'); step += 1) {
      if ((await deliver.execute()) > 0) attemptsAt.push(clock.now() - start);
      clock.advance(250);
    }
    // Attempts at 0, then 1 s, 2 s and 4 s apart, capped at 4 s, the last one at the bound (10 s).
    expect(attemptsAt).toEqual([0, 1_000, 3_000, 7_000, 10_000]);
    const failed = audit.events.filter((e) => e.event === 'oidc_logout_failed');
    expect(failed).toHaveLength(4);
    expect(failed[0]).toEqual({ event: 'oidc_logout_failed', client: 'wiki', attempts: 1, reason: 'refused_503' });
    expect(audit.events.at(-1)).toEqual({ event: 'oidc_logout_given_up', client: 'wiki', attempts: 5, reason: 'refused_503' });
    // Each attempt is its own token.
    expect(new Set(sender.sent.map((s) => s.claims.jti)).size).toBe(5);
    clock.advance(60_000);
    expect(await deliver.execute()).toBe(0);
  });

  it('delivers on a later attempt once the app answers again', async () => {
    const { clock, sender, audit, deliver, queued } = setUp();
    sender.answer = { ok: false, reason: 'unreachable' };
    await queued();
    await deliver.execute();
    sender.answer = { ok: true };
    clock.advance(999);
    expect(await deliver.execute()).toBe(0);
    clock.advance(1);
    expect(await deliver.execute()).toBe(1);
    expect(audit.events.map((e) => e.event)).toEqual(['oidc_logout_failed', 'oidc_logout_delivered']);
  });

  it('gives up at once, sending nothing, on a client that no longer takes logouts', async () => {
    const { sender, audit, deliver, queued } = setUp();
    await queued({ clientId: 'removed' });
    await deliver.execute();
    expect(sender.sent).toEqual([]);
    expect(audit.events).toEqual([{ event: 'oidc_logout_given_up', client: 'removed', attempts: 0, reason: 'not_deliverable' }]);
  });
});
