import { TOKENS } from '../../src/composition/tokens';
import { RecordingAuditLog } from '../support/fakes';
import { askForwardAuth, forwardedFor, loginCookie, postJson } from '../support/http';
import { RedisServer } from '../support/redis-server';
import { allReady } from '../support/replicas';
import { startGateway, type RunningGateway } from '../support/server';
import { BASE_DN, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';

jest.setTimeout(60_000);

/**
 * Issue 35 on two replicas sharing Redis, where only one checks the directory (the other has
 * LDAP_ACCOUNT_CHECK_INTERVAL=0) and the other holds the person in its cache for an hour: the
 * checking replica's revocations are what end the cookie and the access token on the other.
 */
describe('the LDAP account check on two replicas sharing Redis (real OpenLDAP, real Redis)', () => {
  const audit = new RecordingAuditLog();
  let slapd: Slapd;
  let redis: RedisServer;
  let checking: RunningGateway;
  let other: RunningGateway;

  beforeAll(async () => {
    [slapd, redis] = await Promise.all([Slapd.start(), RedisServer.start()]);
    const env = {
      REDIS_URL: redis.url,
      LDAP_ADDRESS: slapd.url,
      LDAP_BIND_DN: SERVICE_DN,
      LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
      LDAP_BASE_DN: BASE_DN,
      LDAP_TIMEOUT: '2',
      LDAP_CACHE_TTL: '3600',
    };
    checking = await startGateway({ ...env, LDAP_ACCOUNT_CHECK_INTERVAL: '1' }, { [TOKENS.AuditLog]: audit });
    other = await startGateway({ ...env, LDAP_ACCOUNT_CHECK_INTERVAL: '0' }, { [TOKENS.AuditLog]: audit });
    expect(await allReady(checking, other)).toBe(true);
  });
  afterAll(async () => {
    await Promise.all([checking?.close(), other?.close()]);
    await Promise.all([redis?.stop(), slapd?.stop()]);
  });

  const status = async (gw: RunningGateway, headers: Record<string, string>): Promise<number> =>
    (await askForwardAuth(gw, 'traefik', { ...headers, ...forwardedFor('https://app.example.test/') })).status;

  it('a person deleted from the directory is refused on the replica that does not check, within two seconds', async () => {
    await slapd.addPeople([{ uid: 'olga', password: 'olga-Pa55word', cn: 'Olga' }]);
    const cookie = await loginCookie(other, 'olga', 'olga-Pa55word');
    const created = await postJson(other, '/api/account/tokens', { name: 'ci' }, { cookie });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const bearer = { authorization: `Bearer ${token}` };
    expect(await status(other, { cookie })).toBe(200);
    expect(await status(other, bearer)).toBe(200);
    await slapd.removePeople(['olga']);
    const started = Date.now();
    while ((await status(other, { cookie })) === 200 || (await status(other, bearer)) === 200) {
      expect(Date.now() - started).toBeLessThan(2_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await status(other, { cookie })).toBe(401);
    expect(await status(other, bearer)).toBe(401);
    expect(audit.events).toContainEqual({ event: 'sessions_revoked', username: 'olga', scope: 'all', count: 1, by: 'ldap' });
  });
});
