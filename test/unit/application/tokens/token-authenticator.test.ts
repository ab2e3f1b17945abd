import { HmacTokenSecrets } from '../../../../src/adapters/crypto/hmac-token-secrets';
import { InMemoryAccessTokens } from '../../../../src/adapters/state/memory/in-memory-access-tokens';
import { InMemoryLoginAttempts } from '../../../../src/adapters/state/memory/in-memory-login-attempts';
import { InMemoryRevokedSessions } from '../../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { isPending } from '../../../../src/application/ports/awaitable';
import { LoginGuard } from '../../../../src/application/password/login-guard';
import { TokenAuthenticator } from '../../../../src/application/tokens/token-authenticator';
import { tokenRevocationId, type AccessTokenRecord } from '../../../../src/domain/access-token';
import { lockPolicy } from '../../../../src/domain/login-failures';
import { aUser } from '../../../support/builders';
import { FakeUserStore, FixedClock, RecordingAuditLog } from '../../../support/fakes';

const DAY = 24 * 3600 * 1000;

function setUp() {
  const clock = new FixedClock();
  const audit = new RecordingAuditLog();
  const tokens = new InMemoryAccessTokens();
  const secrets = new HmacTokenSecrets('a-secret-of-at-least-thirty-two-characters-long');
  const revoked = new InMemoryRevokedSessions(clock);
  const users = new FakeUserStore([aUser().named('alice').withGroups('ops').build()]);
  users.atOnce = true;
  const settings = { sessionLifetimeMs: DAY, lock: lockPolicy(3, 300), protectedDomain: { domain: 'example.com', shareable: true }, basicCacheTtlMs: 0 };
  const guard = new LoginGuard(new InMemoryLoginAttempts(), clock, settings, audit);
  const authenticator = new TokenAuthenticator({ tokens, secrets, revoked, users, guard, clock, audit });
  const add = async (more: Partial<AccessTokenRecord> = {}) => {
    const { token, hash } = secrets.issue();
    const record: AccessTokenRecord = {
      id: 'tok1',
      hash,
      username: 'alice',
      name: 'ci',
      apps: ['ci'],
      createdAt: clock.now(),
      expiresAt: clock.now() + DAY,
      lastUsedAt: null,
      revokedAt: null,
      ...more,
    };
    await tokens.add(record);
    return { token, record };
  };
  return { clock, audit, tokens, revoked, users, authenticator, add };
}

describe('TokenAuthenticator', () => {
  it("speaks for the token's owner with the owner's current groups and the token's scope; after the first use, at once", async () => {
    const { authenticator, add, audit } = setUp();
    const { token } = await add();
    const first = await authenticator.authenticate(token, '192.0.2.1');
    expect(first).toMatchObject({ kind: 'token', identity: { username: 'alice', groups: ['ops'], provider: 'token', token: { id: 'tok1', apps: ['ci'] } } });
    const again = authenticator.authenticate(token, '192.0.2.1');
    expect(isPending(again)).toBe(false);
    expect(again).toEqual(first);
    expect(audit.events.filter((e) => e.event === 'login_succeeded')).toEqual([expect.objectContaining({ method: 'token', username: 'alice' })]);
  });

  it('stops at once on a revocation from any replica, at expiry, and when the account is removed', async () => {
    const { authenticator, add, revoked, clock, users } = setUp();
    const { token, record } = await add();
    expect((await authenticator.authenticate(token, '192.0.2.1')).kind).toBe('token');
    await revoked.revoke(tokenRevocationId(record.id), record.expiresAt);
    expect(authenticator.authenticate(token, '192.0.2.1')).toEqual({ kind: 'invalid_token' });

    const other = await add({ id: 'tok2' });
    expect((await authenticator.authenticate(other.token, '192.0.2.1')).kind).toBe('token');
    clock.advance(DAY);
    expect(authenticator.authenticate(other.token, '192.0.2.1')).toEqual({ kind: 'invalid_token' });

    const third = await add({ id: 'tok3', expiresAt: clock.now() + DAY });
    expect((await authenticator.authenticate(third.token, '192.0.2.1')).kind).toBe('token');
    users.replace([]);
    expect(authenticator.authenticate(third.token, '192.0.2.1')).toEqual({ kind: 'invalid_token' });
  });

  it('refuses a malformed token without reading the store, and never audits the token', async () => {
    const { authenticator, audit } = setUp();
    expect(authenticator.authenticate('pct_nope', '192.0.2.1')).toEqual({ kind: 'invalid_token' });
    expect(JSON.stringify(audit.events)).not.toContain('pct_nope');
    expect(audit.events).toEqual([expect.objectContaining({ event: 'token_refused', reason: 'malformed' })]);
  });

  it('counts unknown tokens per address and locks that address, not the others', async () => {
    const { authenticator, add } = setUp();
    const secrets = new HmacTokenSecrets('another-secret-of-at-least-thirty-two-characters');
    const kinds: string[] = [];
    for (let i = 0; i < 4; i += 1) kinds.push((await authenticator.authenticate(secrets.issue().token, '203.0.113.9')).kind);
    expect(kinds).toEqual(['invalid_token', 'invalid_token', 'invalid_token', 'locked']);
    const { token } = await add();
    expect((await authenticator.authenticate(token, '203.0.113.10')).kind).toBe('token');
  });

  it('writes last-used times in one batch', async () => {
    const { authenticator, add, tokens, clock } = setUp();
    const { token, record } = await add();
    await authenticator.authenticate(token, '192.0.2.1');
    await authenticator.flush();
    expect((await tokens.list('alice'))[0].lastUsedAt).toBe(clock.now());
    expect(record.lastUsedAt).toBeNull();
  });
});
