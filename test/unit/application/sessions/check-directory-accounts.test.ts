import { HmacTokenSecrets } from '../../../../src/adapters/crypto/hmac-token-secrets';
import { InMemoryAccessTokens } from '../../../../src/adapters/state/memory/in-memory-access-tokens';
import { InMemoryLoginAttempts } from '../../../../src/adapters/state/memory/in-memory-login-attempts';
import { InMemoryRevokedSessions } from '../../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { InMemorySessionIndex } from '../../../../src/adapters/state/memory/in-memory-session-index';
import { LoginGuard } from '../../../../src/application/password/login-guard';
import { UserStoreUnavailableError } from '../../../../src/application/ports/user-store';
import type { IndexedSession } from '../../../../src/application/ports/session-index';
import { CheckDirectoryAccountsUseCase } from '../../../../src/application/sessions/check-directory-accounts';
import type { DirectoryAccounts } from '../../../../src/application/sessions/directory-accounts';
import { EndRemovedAccountsUseCase } from '../../../../src/application/sessions/end-removed-accounts';
import { TokenAuthenticator } from '../../../../src/application/tokens/token-authenticator';
import { TokenRevocation } from '../../../../src/application/tokens/token-revocation';
import { tokenRevocationId, type AccessTokenRecord } from '../../../../src/domain/access-token';
import { lockPolicy } from '../../../../src/domain/login-failures';
import { aUser } from '../../../support/builders';
import { FakeUserStore, FixedClock, RecordingAuditLog } from '../../../support/fakes';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A directory that holds the given people (lower-cased), or is down; records what it was asked. */
class FakeDirectory implements DirectoryAccounts {
  readonly asked: string[][] = [];
  down = false;
  constructor(readonly people: Set<string>) {}
  async absent(usernames: readonly string[]): Promise<string[]> {
    this.asked.push([...usernames]);
    if (this.down) throw new UserStoreUnavailableError('ldap');
    return usernames.filter((u) => !this.people.has(u.toLowerCase()));
  }
}

function setUp(people: string[]) {
  const clock = new FixedClock();
  const audit = new RecordingAuditLog();
  const index = new InMemorySessionIndex(clock);
  const revoked = new InMemoryRevokedSessions(clock);
  const tokens = new InMemoryAccessTokens();
  const secrets = new HmacTokenSecrets('a-secret-of-at-least-thirty-two-characters-long');
  const revocation = new TokenRevocation(tokens, revoked, clock, audit);
  const ending = new EndRemovedAccountsUseCase(index, revoked, audit, tokens, revocation, clock);
  const directory = new FakeDirectory(new Set(people));
  const check = new CheckDirectoryAccountsUseCase(index, tokens, directory, ending, clock);
  let n = 0;
  const session = async (username: string, method = 'password'): Promise<IndexedSession> => {
    n += 1;
    const s: IndexedSession = {
      id: `s${n}`,
      username,
      method,
      userAgent: '',
      address: '192.0.2.1',
      startedAt: clock.now(),
      expiresAt: clock.now() + HOUR,
      lastSeenAt: clock.now(),
    };
    await index.register(s);
    return s;
  };
  const token = async (username: string): Promise<{ token: string; record: AccessTokenRecord }> => {
    n += 1;
    const { token: secret, hash } = secrets.issue();
    const record: AccessTokenRecord = {
      id: `t${n}`,
      hash,
      username,
      name: 'ci',
      apps: null,
      createdAt: clock.now(),
      expiresAt: clock.now() + DAY,
      lastUsedAt: null,
      revokedAt: null,
    };
    await tokens.add(record);
    return { token: secret, record };
  };
  return { clock, audit, index, revoked, tokens, secrets, directory, check, session, token };
}

describe('CheckDirectoryAccountsUseCase (issue 35: an account gone from LDAP is out everywhere)', () => {
  it('ends every session and live token of an account the directory no longer holds, audited as ldap, and leaves the others', async () => {
    const t = setUp(['alice']);
    const [gone1, gone2, kept] = [await t.session('bob'), await t.session('bob'), await t.session('alice')];
    const bobs = await t.token('Bob');
    const alices = await t.token('alice');
    expect(await t.check.execute()).toEqual({ checked: 3, absent: 2, ended: 2 });
    expect(await t.revoked.isRevoked(gone1.id)).toBe(true);
    expect(await t.revoked.isRevoked(gone2.id)).toBe(true);
    expect(await t.revoked.isRevoked(kept.id)).toBe(false);
    expect(await t.revoked.isRevoked(tokenRevocationId(bobs.record.id))).toBe(true);
    expect(await t.revoked.isRevoked(tokenRevocationId(alices.record.id))).toBe(false);
    expect((await t.tokens.list('Bob'))[0].revokedAt).toBe(t.clock.now());
    expect(t.audit.events).toEqual([
      { event: 'sessions_revoked', username: 'bob', scope: 'all', count: 2, by: 'ldap' },
      { event: 'token_revoked', username: 'Bob', id: bobs.record.id, by: 'ldap' },
    ]);
  });

  it('treats a person the directory stops matching (disabled) like one deleted', async () => {
    const t = setUp(['carol']);
    const s = await t.session('carol');
    expect((await t.check.execute()).ended).toBe(0);
    t.directory.people.delete('carol');
    expect((await t.check.execute()).ended).toBe(1);
    expect(await t.revoked.isRevoked(s.id)).toBe(true);
  });

  it('ends nothing while the directory is down, and rejects so the outage is seen', async () => {
    const t = setUp([]);
    const s = await t.session('dave');
    const { record } = await t.token('dave');
    t.directory.down = true;
    await expect(t.check.execute()).rejects.toBeInstanceOf(UserStoreUnavailableError);
    expect(await t.revoked.isRevoked(s.id)).toBe(false);
    expect(await t.revoked.isRevoked(tokenRevocationId(record.id))).toBe(false);
    expect(t.audit.events).toEqual([]);
  });

  it('acting twice (the next check, or another replica) ends, counts and tells each session once', async () => {
    const t = setUp([]);
    await t.session('erin');
    await t.token('erin');
    const revokes = jest.spyOn(t.revoked, 'revoke');
    expect((await t.check.execute()).ended).toBe(1);
    expect((await t.check.execute()).ended).toBe(0);
    expect(t.audit.events.map((e) => e.event)).toEqual(['sessions_revoked', 'token_revoked']);
    // Each revoke is what queues the session's back-channel logouts: one for the session, one for the token.
    expect(revokes).toHaveBeenCalledTimes(2);
  });

  it('leaves sessions made through an OAuth provider alone: they never stood on a directory account', async () => {
    const t = setUp([]);
    const oauth = await t.session('frank@example.com', 'github');
    expect((await t.check.execute()).ended).toBe(0);
    expect(await t.revoked.isRevoked(oauth.id)).toBe(false);
  });

  it('asks the directory about each account holding a session or a token once per check, and not at all when there is none', async () => {
    const t = setUp(['gina', 'hal']);
    expect(await t.check.execute()).toEqual({ checked: 0, absent: 0, ended: 0 });
    expect(t.directory.asked).toEqual([]);
    await t.session('gina');
    await t.session('gina');
    await t.token('hal');
    await t.check.execute();
    expect(t.directory.asked.map((names) => [...names].sort())).toEqual([['gina', 'hal']]);
  });

  it('refuses the removed account’s access token at once on a replica whose user store still holds the account', async () => {
    const t = setUp([]);
    const { token } = await t.token('ivy');
    // Another replica: its own user store (a stale LDAP cache) still has ivy; the revocations are shared.
    const users = new FakeUserStore([aUser().named('ivy').build()]);
    users.atOnce = true;
    const settings = { sessionLifetimeMs: DAY, lock: lockPolicy(3, 300), protectedDomain: { domain: 'example.com', shareable: true }, basicCacheTtlMs: 0 };
    const guard = new LoginGuard(new InMemoryLoginAttempts(), t.clock, settings, t.audit);
    const other = new TokenAuthenticator({ tokens: t.tokens, secrets: t.secrets, revoked: t.revoked, users, guard, clock: t.clock, audit: t.audit });
    expect((await other.authenticate(token, '192.0.2.9')).kind).toBe('token');
    await t.check.execute();
    expect((await other.authenticate(token, '192.0.2.9')).kind).toBe('invalid_token');
    expect(t.audit.events).toContainEqual(expect.objectContaining({ event: 'token_refused', reason: 'revoked', username: 'ivy' }));
  });
});
