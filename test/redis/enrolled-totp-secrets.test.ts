import { AesGcmTotpSecretSealer } from '../../src/adapters/crypto/aes-gcm-totp-secret-sealer';
import { RedisEnrolledTotpSecrets } from '../../src/adapters/state/redis/redis-enrolled-totp-secrets';
import { StateStoreUnavailableError } from '../../src/application/ports/state-store-unavailable';
import { enrolledTotpSecretsContract, untilLoaded } from '../contract/ports/enrolled-totp-secrets.contract';
import { basic, hashOf, TEST_SECRET } from '../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson } from '../support/http';
import { silentLogger } from '../support/loggers';
import { RedisServer } from '../support/redis-server';
import { startReplicas, stopReplicas } from '../support/replicas';
import type { RunningGateway } from '../support/server';
import { enrolTotp } from '../support/totp-enrolment';
import { eventually } from '../support/wait';
import { sharedRedis } from './support/shared-redis';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const sealer = new AesGcmTotpSecretSealer(TEST_SECRET);
const { connect, perTest } = sharedRedis('e');

function loaded(store: RedisEnrolledTotpSecrets): Promise<RedisEnrolledTotpSecrets> {
  store.start();
  return untilLoaded(store);
}

enrolledTotpSecretsContract('RedisEnrolledTotpSecrets', async (env) => loaded(new RedisEnrolledTotpSecrets(await perTest(env), sealer, silentLogger)));

describe('RedisEnrolledTotpSecrets across replicas', () => {
  it('fails closed until its first load: it cannot tell an account without a second factor from one set up elsewhere', async () => {
    const store = new RedisEnrolledTotpSecrets(await connect(), sealer, silentLogger);
    expect(() => store.secretOf('alice')).toThrow(StateStoreUnavailableError);
    await expect(store.check()).rejects.toThrow();
  });

  it('an enrolment or a removal on one replica reaches the other’s memory, and a replica started later loads it; Redis holds it sealed', async () => {
    const prefix = 'e-replicas:';
    const a = await loaded(new RedisEnrolledTotpSecrets(await connect(prefix), sealer, silentLogger));
    const b = await loaded(new RedisEnrolledTotpSecrets(await connect(prefix), sealer, silentLogger));
    expect(await a.enrol('alice', SECRET)).toBe(true);
    expect(await eventually(async () => b.secretOf('alice') === SECRET)).toBe(true);
    const later = await loaded(new RedisEnrolledTotpSecrets(await connect(prefix), sealer, silentLogger));
    expect(later.secretOf('alice')).toBe(SECRET);
    const raw = await connect(prefix);
    expect(await raw.client.hget(`${prefix}totp:enrolled`, 'alice')).not.toContain(SECRET);
    expect(await b.remove('alice', SECRET)).toBe(true);
    expect(await eventually(async () => a.secretOf('alice') === null && later.secretOf('alice') === null)).toBe(true);
  });
});

/** The whole path on two gateways sharing one Redis: set up on one, enforced on the other. */
describe('self-enrolled TOTP on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  const users = `alice:${hashOf('alice-pw')}`;

  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b] = await startReplicas({ USERS: users, REDIS_URL: redis.url });
  });
  afterAll(() => stopReplicas([a, b], redis));

  it('after a set-up on replica A, replica B asks for the code at the password login and refuses HTTP Basic', async () => {
    const basicOnB = (): Promise<Response> =>
      askForwardAuth(b, 'traefik', { authorization: basic('alice', 'alice-pw'), ...forwardedFor('https://app.example.test/') });
    expect((await basicOnB()).status).toBe(200);
    const other = await loginCookie(b, 'alice', 'alice-pw');
    await enrolTotp(a, await loginCookie(a, 'alice', 'alice-pw'), 'alice-pw');
    expect(await eventually(async () => (await basicOnB()).status === 401)).toBe(true);
    expect(await expectEnvelope(await postJson(b, '/api/login', { email: 'alice', password: 'alice-pw' }), 200)).toMatchObject({ totpPending: 'true' });
    expect((await askForwardAuth(b, 'traefik', { cookie: other, ...forwardedFor('https://app.example.test/') })).status).not.toBe(200);
  });
});
