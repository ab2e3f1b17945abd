import { RedisLoginAttempts } from '../../src/adapters/state/redis/redis-login-attempts';
import { RedisRevokedSessions } from '../../src/adapters/state/redis/redis-revoked-sessions';
import { RedisUsedOAuthFlows } from '../../src/adapters/state/redis/redis-used-oauth-flows';
import { RedisSessionIndex } from '../../src/adapters/state/redis/redis-session-index';
import { sessionIndexContract } from '../contract/ports/session-index.contract';
import { RedisAccessTokens } from '../../src/adapters/state/redis/redis-access-tokens';
import type { AccessTokenRecord } from '../../src/domain/access-token';
import { accessTokensContract } from '../contract/ports/access-tokens.contract';
import type { ContractEnv } from '../contract/ports/harness';
import { RedisUsedTotpSteps } from '../../src/adapters/state/redis/redis-used-totp-steps';
import { RedisPasskeyCredentials } from '../../src/adapters/state/redis/redis-passkey-credentials';
import { passkeyCredentialsContract } from '../contract/ports/passkey-credentials.contract';
import { silentLogger } from '../support/loggers';
import { loginAttemptsContract } from '../contract/ports/login-attempts.contract';
import { revokedSessionsContract } from '../contract/ports/revoked-sessions.contract';
import { usedOAuthFlowsContract } from '../contract/ports/used-oauth-flows.contract';
import { usedTotpStepsContract } from '../contract/ports/used-totp-steps.contract';
import { FixedClock } from '../support/fakes';
import { RedisServer } from '../support/redis-server';
import { sharedRedis } from './support/shared-redis';
import { eventually } from '../support/wait';

const { connect, connectTo, perTest } = sharedRedis('t');

loginAttemptsContract('RedisLoginAttempts', async (env) => new RedisLoginAttempts(await perTest(env)));
revokedSessionsContract('RedisRevokedSessions', async (env) => {
  const store = new RedisRevokedSessions(await perTest(env), env.clock, silentLogger);
  store.start();
  // Before its first sync the store refuses to answer (tested below); the contract is about a loaded one.
  if (!(await eventually(async () => store.hasLoaded()))) throw new Error('revocations never loaded');
  return store;
});
usedTotpStepsContract('RedisUsedTotpSteps', async (env) => new RedisUsedTotpSteps(await perTest(env), env.clock));
usedOAuthFlowsContract('RedisUsedOAuthFlows', async (env) => new RedisUsedOAuthFlows(await perTest(env), env.clock));
passkeyCredentialsContract('RedisPasskeyCredentials', async (env) => new RedisPasskeyCredentials(await perTest(env)));
// Redis expires the entries on its own clock: the clock-moving test is not registered.
sessionIndexContract('RedisSessionIndex', async (env) => new RedisSessionIndex(await perTest(env), env.clock), { followsClock: false });
// Reopened: a second connection with the first one's prefix, as another replica or a restarted gateway.
const tokenPrefixes = new WeakMap<ContractEnv, string>();
accessTokensContract(
  'RedisAccessTokens',
  async (env) => {
    const connection = await perTest(env);
    tokenPrefixes.set(env, connection.prefix);
    return new RedisAccessTokens(connection);
  },
  { reopen: async (env) => new RedisAccessTokens(await connect(tokenPrefixes.get(env))) },
);

describe('Redis stores shared by two replicas', () => {
  it('lets exactly one of two replicas claim the same TOTP step', async () => {
    const clock = new FixedClock();
    const prefix = 'shared-totp:';
    const [a, b] = [new RedisUsedTotpSteps(await connect(prefix), clock), new RedisUsedTotpSteps(await connect(prefix), clock)];
    const results = await Promise.all([a.claim('alice', 7, clock.now() + 90_000), b.claim('alice', 7, clock.now() + 90_000)]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('lets exactly one of two replicas complete the same OAuth flow', async () => {
    const clock = new FixedClock();
    const prefix = 'shared-oauth:';
    const [a, b] = [new RedisUsedOAuthFlows(await connect(prefix), clock), new RedisUsedOAuthFlows(await connect(prefix), clock)];
    const results = await Promise.all([a.use('flow-x', clock.now() + 600_000), b.use('flow-x', clock.now() + 600_000)]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('grants no more attempts than the limit between two replicas, and both see the lock', async () => {
    const prefix = 'shared-lock:';
    const [a, b] = [new RedisLoginAttempts(await connect(prefix)), new RedisLoginAttempts(await connect(prefix))];
    const now = Date.UTC(2026, 0, 1);
    const limit = [{ key: 'account:x', maxFailures: 2 }];
    const results = await Promise.all([a, b, a, b].map((replica) => replica.reserve(limit, now, 60_000)));
    expect(results.filter((r) => r.granted)).toHaveLength(2);
    expect(results.filter((r) => r.granted && r.locksUntil[0] > 0)).toHaveLength(1);
    expect(await a.lockedUntil('account:x', now)).toBe(now + 60_000);
    expect(await b.lockedUntil('account:x', now)).toBe(now + 60_000);
  });

  it('pushes a revocation made on one replica to the other without a request to Redis', async () => {
    const clock = new FixedClock();
    const prefix = 'shared-revoked:';
    const a = new RedisRevokedSessions(await connect(prefix), clock, silentLogger);
    const b = new RedisRevokedSessions(await connect(prefix), clock, silentLogger);
    a.start();
    b.start();
    expect(await eventually(async () => a.isSynced() && b.isSynced())).toBe(true);
    await a.revoke('s-42', clock.now() + 60_000);
    expect(await eventually(() => b.isRevoked('s-42'))).toBe(true);
  });

  it('refuses to say a session is unrevoked, and is not ready, until it has loaded the shared set', async () => {
    const clock = new FixedClock();
    const prefix = 'shared-unloaded:';
    const a = new RedisRevokedSessions(await connect(prefix), clock, silentLogger);
    a.start();
    await a.revoke('s-elsewhere', clock.now() + 60_000);
    const late = new RedisRevokedSessions(await connect(prefix), clock, silentLogger);
    await expect(late.isRevoked('s-elsewhere')).rejects.toMatchObject({ name: 'StateStoreUnavailableError' });
    await expect(late.isRevoked('s-other')).rejects.toMatchObject({ name: 'StateStoreUnavailableError' });
    await expect(late.check()).rejects.toThrow('revocations not loaded');
    late.start();
    expect(await eventually(async () => late.hasLoaded())).toBe(true);
    await expect(late.check()).resolves.toBeUndefined();
    expect(await late.isRevoked('s-elsewhere')).toBe(true);
    expect(await late.isRevoked('s-other')).toBe(false);
  });

  it('loads the revocations made before it started', async () => {
    const clock = new FixedClock();
    const prefix = 'shared-late:';
    const a = new RedisRevokedSessions(await connect(prefix), clock, silentLogger);
    a.start();
    await a.revoke('s-early', clock.now() + 60_000);
    const late = new RedisRevokedSessions(await connect(prefix), clock, silentLogger);
    late.start();
    expect(await eventually(async () => late.isSynced())).toBe(true);
    expect(await late.isRevoked('s-early')).toBe(true);
  });

  it('gives every key a TTL and keeps all keys under the prefix', async () => {
    const c = await connect('ttl-check:');
    const clock = new FixedClock();
    await new RedisLoginAttempts(c).reserve([{ key: 'account:t', maxFailures: 5 }], clock.now(), 60_000);
    await new RedisUsedTotpSteps(c, clock).claim('t', 1, clock.now() + 90_000);
    const revoked = new RedisRevokedSessions(c, clock, silentLogger);
    await revoked.revoke('s-t', clock.now() + 60_000);
    const keys = await c.client.keys('*');
    const ours = keys.filter((k) => k.startsWith('ttl-check:'));
    expect(ours.sort()).toEqual(['ttl-check:attempts:account:t', 'ttl-check:revoked', 'ttl-check:totp:t']);
    for (const k of ours) {
      const ttl = await c.client.pttl(k);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(90_000);
    }
  });
});

describe('RedisSessionIndex accounts', () => {
  it('also names the accounts of sessions registered before the accounts set existed (found once, by a scan)', async () => {
    const c = await connect('older-sessions:');
    const now = Date.now();
    // What an earlier version's registration left: the session's hash and its account's set, no accounts set.
    await c.client.hset('older-sessions:sessions:s:a1', { u: 'olga', m: 'password', a: '', ip: '192.0.2.1', s: now, l: now, e: now + 3_600_000 });
    await c.client.hset('older-sessions:sessions:s:b1', { u: 'boris', m: 'password', a: '', ip: '192.0.2.1', s: now, l: now, e: now - 1_000 });
    const index = new RedisSessionIndex(c, { now: () => now });
    expect(await index.accounts()).toEqual(['olga']);
    // Registered afterwards: in the set as before, the older one still there.
    await index.register({
      id: 'c1',
      username: 'Carl',
      method: 'password',
      userAgent: '',
      address: '192.0.2.1',
      startedAt: now,
      expiresAt: now + 60_000,
      lastSeenAt: now,
    });
    expect((await index.accounts()).sort()).toEqual(['carl', 'olga']);
  });
});

describe('RedisAccessTokens keys', () => {
  const token = (username: string, i: number, at: number): AccessTokenRecord => ({
    id: `t-${i}`,
    hash: `h-${username}-${i}`,
    username,
    name: `token ${i}`,
    apps: null,
    createdAt: at - 1_000,
    expiresAt: at + i,
    lastUsedAt: null,
    revokedAt: null,
  });

  it('keeps tokens under the prefix, and leaves no key behind once prune has forgotten them all, past one chunk', async () => {
    const c = await connect('tokens-keys:');
    const tokens = new RedisAccessTokens(c);
    const at = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 520; i += 1) await tokens.add(token(i % 2 === 0 ? 'alice' : 'bob', i, at));
    const ours = async (): Promise<string[]> => (await c.client.keys('tokens-keys:*')).sort();
    expect((await ours()).filter((k) => !k.startsWith('tokens-keys:token:'))).toEqual([
      'tokens-keys:tokens:forget',
      'tokens-keys:tokens:u:alice',
      'tokens-keys:tokens:u:bob',
    ]);
    expect(await tokens.revoke('alice', 't-0', at - 10)).toBe(true);
    await tokens.prune(at + 10);
    // Expired at `at + i` for i < 10 (and t-0 revoked before): forgotten; the rest kept.
    expect(await tokens.list('alice')).toHaveLength(255);
    await tokens.prune(at + 600);
    expect(await ours()).toEqual([]);
  });
});

describe('Redis stores while Redis is down', () => {
  it('fail closed for locks and TOTP claims, answer revocations from memory, and recover by themselves', async () => {
    const own = await RedisServer.start();
    const c = await connectTo(own.target, 'down:');
    const clock = new FixedClock();
    const attempts = new RedisLoginAttempts(c);
    const steps = new RedisUsedTotpSteps(c, clock);
    const revoked = new RedisRevokedSessions(c, clock, silentLogger);
    revoked.start();
    expect(await eventually(async () => revoked.hasLoaded())).toBe(true);
    await revoked.revoke('before', clock.now() + 60_000);

    await own.kill();
    await expect(attempts.lockedUntil('account:a', clock.now())).rejects.toMatchObject({ name: 'StateStoreUnavailableError' });
    await expect(steps.claim('a', 1, clock.now() + 90_000)).rejects.toMatchObject({ name: 'StateStoreUnavailableError' });
    await expect(new RedisUsedOAuthFlows(c, clock).use('f', clock.now() + 1000)).rejects.toMatchObject({ name: 'StateStoreUnavailableError' });
    expect(await revoked.isRevoked('before')).toBe(true);
    await revoked.revoke('during', clock.now() + 60_000);
    expect(await revoked.isRevoked('during')).toBe(true);

    await own.up();
    await c.ready(10_000);
    expect(await eventually(async () => revoked.isSynced(), 10_000)).toBe(true);
    expect(await attempts.lockedUntil('account:a', clock.now())).toBe(0);
    // The restarted Redis was empty; the replica gave back what it knew.
    expect(await c.client.zscore('down:revoked', 'before')).not.toBeNull();
    expect(await c.client.zscore('down:revoked', 'during')).not.toBeNull();
    await c.close();
    await own.stop();
  });
});
