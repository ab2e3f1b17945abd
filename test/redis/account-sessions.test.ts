import { TEST_SECRET, hashOf } from '../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson } from '../support/http';
import { runCli } from '../support/process';
import { RedisServer } from '../support/redis-server';
import { startReplicas, stopReplicas } from '../support/replicas';
import type { RunningGateway } from '../support/server';
import { eventually } from '../support/wait';

const APP = 'https://app.example.test/';

/** The account page's sessions across two replicas sharing one Redis, and `portcullis sessions` through Redis. */
describe('account sessions on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  const users = `alice:${hashOf('pw')},bob:${hashOf('pw')}`;

  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b] = await startReplicas({ USERS: users, REDIS_URL: redis.url });
  });
  afterAll(() => stopReplicas([a, b], redis));

  const live = async (gw: RunningGateway, cookie: string): Promise<boolean> =>
    (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
  const sessionsOn = async (gw: RunningGateway, cookie: string): Promise<Array<Record<string, unknown>>> =>
    (await expectEnvelope(await fetch(`${gw.url}/api/account`, { headers: { cookie } }), 200)).sessions as Array<Record<string, unknown>>;

  it('lists a session started on the other replica, and a revocation from one is refused on both', async () => {
    const onA = await loginCookie(a, 'alice', 'pw');
    const onB = await loginCookie(b, 'alice', 'pw');
    const seenFromB = await sessionsOn(b, onB);
    expect(seenFromB).toHaveLength(2);
    const other = seenFromB.find((s) => s.current !== true);
    const res = await postJson(b, '/api/account/sessions/revoke', { id: other?.id }, { cookie: onB });
    expect(res.status).toBe(200);
    expect(await eventually(async () => !(await live(a, onA)))).toBe(true);
    expect(await live(b, onA)).toBe(false);
    expect([await live(a, onB), await live(b, onB)]).toEqual([true, true]);
  });

  it('"sign out everywhere" on one replica ends the sessions made on the other', async () => {
    const onA = await loginCookie(a, 'bob', 'pw');
    const onB = await loginCookie(b, 'bob', 'pw');
    expect((await postJson(a, '/api/account/sessions/revoke', { scope: 'all' }, { cookie: onA })).status).toBe(200);
    expect(await eventually(async () => !(await live(b, onB)))).toBe(true);
    expect(await live(a, onB)).toBe(false);
  });

  it('portcullis sessions lists and revokes through Redis while both gateways run', async () => {
    const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS: users, REDIS_URL: redis.url };
    const cookie = await loginCookie(a, 'alice', 'pw');
    const listed = await runCli(['sessions', 'list', 'alice'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(1);
    const revoked = await runCli(['sessions', 'revoke', 'alice', '--all'], { env });
    expect(revoked.code).toBe(0);
    expect(await eventually(async () => !(await live(a, cookie)) && !(await live(b, cookie)))).toBe(true);
  }, 60_000);
});
