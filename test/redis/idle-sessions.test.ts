import { TOKENS } from '../../src/composition/tokens';
import { hashOf } from '../support/credentials';
import { askForwardAuth, forwardedFor, loginCookie } from '../support/http';
import { RedisServer } from '../support/redis-server';
import { startReplicas, stopReplicas } from '../support/replicas';
import type { RunningGateway } from '../support/server';

const APP = 'https://app.example.test/';

/**
 * SESSION_IDLE_TIMEOUT across two replicas sharing Redis (issue 33): a use on one replica keeps the
 * session alive on the other, through the batched last-seen notes, and an unused one ends on both.
 * Both replicas read one clock the test moves; the notes' writes run on their real timer (every
 * granularity, here 2 s of an 8 s timeout).
 */
describe('idle sessions on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  let now = Date.now();
  const clock = { now: () => now };

  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b] = await startReplicas({ USERS: `alice:${hashOf('pw')}`, REDIS_URL: redis.url, SESSION_IDLE_TIMEOUT: '8' }, 2, { [TOKENS.Clock]: clock });
  });
  afterAll(() => stopReplicas([a, b], redis));

  const status = async (gw: RunningGateway, cookie: string): Promise<number> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status;
  const afterAFlush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 2_500));

  it('a session used on one replica passes on the other past the timeout since login, and ends on both once unused', async () => {
    const cookie = await loginCookie(a, 'alice', 'pw');
    now += 5_000;
    expect(await status(a, cookie)).toBe(200);
    await afterAFlush();
    // Ten seconds after login, five after its use on A: B has never seen it, asks Redis, lets it through.
    now += 5_000;
    expect(await status(b, cookie)).toBe(200);
    await afterAFlush();
    now += 8_000;
    expect([await status(a, cookie), await status(b, cookie)]).toEqual([401, 401]);
  });
});
