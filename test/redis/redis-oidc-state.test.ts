import { AesGcmSigningKeys, SigningKeysUnreadableError } from '../../src/adapters/crypto/aes-gcm-signing-keys';
import { RedisOidcArtifacts } from '../../src/adapters/state/redis/redis-oidc-artifacts';
import { RedisSigningKeys } from '../../src/adapters/state/redis/redis-signing-keys';
import { oidcArtifactsContract } from '../contract/ports/oidc-artifacts.contract';
import { signingKeysContract } from '../contract/ports/signing-keys.contract';
import { sharedRedis } from './support/shared-redis';

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters';

const { connect, perTest } = sharedRedis('oidc');

// Expiry runs on Redis's own clock (PEXPIRE): the clock-moving tests are replaced by the real-time ones below.
oidcArtifactsContract('RedisOidcArtifacts', async (env) => new RedisOidcArtifacts(await perTest(env)), { followsClock: false });
signingKeysContract('RedisSigningKeys', async (env) => new RedisSigningKeys(await perTest(env)));
signingKeysContract('AesGcmSigningKeys over RedisSigningKeys', async (env) => new AesGcmSigningKeys(new RedisSigningKeys(await perTest(env)), SECRET));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('RedisOidcArtifacts key layout', () => {
  it('forgets a record, and its uid lookup, once its TTL has passed on the server', async () => {
    const store = new RedisOidcArtifacts(await connect());
    await store.save('Interaction', 'i-1', { uid: 'u-1' }, 1);
    expect(await store.findByUid('Interaction', 'u-1')).toEqual({ uid: 'u-1' });
    await sleep(1_100);
    expect(await store.find('Interaction', 'i-1')).toBeUndefined();
    expect(await store.findByUid('Interaction', 'u-1')).toBeUndefined();
  });

  it('gives every key a TTL except records saved without one, and consume keeps the TTL', async () => {
    const prefix = 'oidc-ttl:';
    const c = await connect(prefix);
    const store = new RedisOidcArtifacts(c);
    await store.save('AuthorizationCode', 'c-1', { grantId: 'g-1', uid: 'u-1' }, 60);
    await store.consume('AuthorizationCode', 'c-1', 1_700_000_000);
    await store.save('RefreshToken', 'r-1', { grantId: 'g-1' }, 1_209_600);
    const ttl = async (key: string): Promise<number> => c.client.pttl(`${prefix}${key}`);
    expect(await ttl('oidc:AuthorizationCode:c-1')).toBeGreaterThan(55_000);
    expect(await ttl('oidc:AuthorizationCode:c-1')).toBeLessThanOrEqual(60_000);
    expect(await ttl('oidc-uid:AuthorizationCode:u-1')).toBeGreaterThan(55_000);
    // The grant's set outlives its longest member, so revocation still finds the refresh token.
    expect(await ttl('oidc-grant:g-1')).toBeGreaterThan(1_200_000_000);
    await store.save('Grant', 'g-1', { grantId: 'g-1' }, undefined);
    expect(await ttl('oidc:Grant:g-1')).toBe(-1);
    expect(await ttl('oidc-grant:g-1')).toBe(-1);
  });

  it('keeps a long grant set alive when a shorter-lived member is added later', async () => {
    const prefix = 'oidc-grant-ttl:';
    const c = await connect(prefix);
    const store = new RedisOidcArtifacts(c);
    await store.save('RefreshToken', 'r-1', { grantId: 'g-2' }, 1_209_600);
    await store.save('AccessToken', 'a-1', { grantId: 'g-2' }, 60);
    expect(await c.client.pttl(`${prefix}oidc-grant:g-2`)).toBeGreaterThan(1_200_000_000);
  });

  it('lets two replicas share records: saved on one, consumed on the other, revoked from either', async () => {
    const prefix = 'oidc-shared:';
    const [a, b] = [new RedisOidcArtifacts(await connect(prefix)), new RedisOidcArtifacts(await connect(prefix))];
    await a.save('AuthorizationCode', 'code-1', { grantId: 'g-9', accountId: 'alice' }, 60);
    await a.save('RefreshToken', 'rt-1', { grantId: 'g-9' }, 3600);
    expect(await b.find('AuthorizationCode', 'code-1')).toEqual({ grantId: 'g-9', accountId: 'alice' });
    await b.consume('AuthorizationCode', 'code-1', 1_700_000_000);
    expect(await a.find('AuthorizationCode', 'code-1')).toEqual({ grantId: 'g-9', accountId: 'alice', consumed: 1_700_000_000 });
    await b.revokeByGrantId('g-9');
    expect(await a.find('RefreshToken', 'rt-1')).toBeUndefined();
  });
});

describe('RedisSigningKeys shared by replicas', () => {
  it('stores one key set when several replicas create it at the same moment', async () => {
    const prefix = 'oidc-keys-race:';
    const replicas = await Promise.all(Array.from({ length: 4 }, async () => new AesGcmSigningKeys(new RedisSigningKeys(await connect(prefix)), SECRET)));
    const sets = await Promise.all(replicas.map((r, i) => r.getOrCreate(() => JSON.stringify({ keys: [{ kid: `replica-${i}` }] }))));
    expect(new Set(sets).size).toBe(1);
  });

  it('keeps the set sealed in Redis, and refuses it under another SECRET', async () => {
    const prefix = 'oidc-keys-sealed:';
    const c = await connect(prefix);
    await new AesGcmSigningKeys(new RedisSigningKeys(c), SECRET).getOrCreate(() => JSON.stringify({ keys: [{ kid: 'k', d: 'PRIVATE-d' }] }));
    const raw = await c.client.get(`${prefix}oidc-signing-keys`);
    expect(raw).toMatch(/^k1\./);
    expect(raw).not.toContain('PRIVATE-d');
    const wrong = new AesGcmSigningKeys(new RedisSigningKeys(c), 'another-secret-of-at-least-thirty-two-chars');
    await expect(wrong.getOrCreate(() => 'never')).rejects.toBeInstanceOf(SigningKeysUnreadableError);
  });
});
