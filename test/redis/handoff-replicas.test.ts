import { RedisServer } from '../support/redis-server';
import { eventually } from '../support/wait';
import { hashOf } from '../support/credentials';
import { tempDataDir } from '../support/data-dir';
import { hostRequest, pathOf, setCookieValue } from '../support/host-request';
import { startReplicas, stopReplicas } from '../support/replicas';
import { startGateway, type RunningGateway } from '../support/server';

/** Issue 17: the hand-off code lives in the shared store, so any replica redeems what another issued. */
const PRIMARY = 'https://auth.example.test';
const OTHER = 'https://auth.other.test';
const TARGET = 'https://app.other.test/inbox';
const APP_URL = `${PRIMARY},${OTHER}`;
const USERS = `alice:${hashOf('pw')}`;

async function loginOn(gw: RunningGateway): Promise<string> {
  const res = await hostRequest(gw.url, PRIMARY, '/api/login', { method: 'POST', body: JSON.stringify({ email: 'alice', password: 'pw' }) });
  return `portcullis-session=${setCookieValue(res, 'portcullis-session')}`;
}

/** Start on `starter`, issue on `issuer`: the redeem path and the browser's state cookie. */
async function issueCode(starter: RunningGateway, issuer: RunningGateway, session: string): Promise<{ redeemPath: string; state: string }> {
  const started = await hostRequest(starter.url, OTHER, `/api/handoff/start?redirect_uri=${encodeURIComponent(TARGET)}`);
  const state = `__Host-portcullis-handoff=${setCookieValue(started, '__Host-portcullis-handoff')}`;
  const issued = await hostRequest(issuer.url, PRIMARY, pathOf(started.location ?? ''), { cookie: session });
  expect(issued.status).toBe(302);
  return { redeemPath: pathOf(issued.location ?? ''), state };
}

const passes = async (gw: RunningGateway, cookie: string, host: string): Promise<boolean> =>
  (await fetch(`${gw.url}/api/auth/traefik`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-uri': '/', cookie } }))
    .status === 200;

describe('the hand-off on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b] = await startReplicas({ APP_URL, USERS, REDIS_URL: redis.url });
  });
  afterAll(() => stopReplicas([a, b], redis));

  it('redeems on one replica a code issued on the other, once; a logout there ends the session on both domains and replicas', async () => {
    const session = await loginOn(a);
    const { redeemPath, state } = await issueCode(b, a, session);
    const redeemed = await hostRequest(b.url, OTHER, redeemPath, { cookie: state });
    expect([redeemed.status, redeemed.location]).toEqual([302, TARGET]);
    const secondary = `portcullis-session=${setCookieValue(redeemed, 'portcullis-session')}`;
    expect(await passes(a, secondary, 'app.other.test')).toBe(true);
    // The replay, on either replica.
    expect((await hostRequest(a.url, OTHER, redeemPath, { cookie: state })).status).toBe(400);
    expect((await hostRequest(b.url, OTHER, redeemPath, { cookie: state })).status).toBe(400);

    const out = await hostRequest(b.url, OTHER, '/api/logout', { method: 'POST', body: '{}', cookie: secondary });
    expect(out.status).toBe(200);
    expect(await eventually(async () => !(await passes(a, session, 'app.example.test')))).toBe(true);
    expect(await passes(b, secondary, 'app.other.test')).toBe(false);
  });
});

describe('the hand-off across a restart on the embedded store', () => {
  it('redeems after a restart a code issued before it, once', async () => {
    const data = tempDataDir();
    try {
      const first = await startGateway({ APP_URL, USERS, DATA_DIR: data.dir });
      let issued: { redeemPath: string; state: string };
      try {
        const session = await loginOn(first);
        issued = await issueCode(first, first, session);
      } finally {
        await first.close();
      }
      const second = await startGateway({ APP_URL, USERS, DATA_DIR: data.dir });
      try {
        const redeemed = await hostRequest(second.url, OTHER, issued.redeemPath, { cookie: issued.state });
        expect([redeemed.status, redeemed.location]).toEqual([302, TARGET]);
        expect((await hostRequest(second.url, OTHER, issued.redeemPath, { cookie: issued.state })).status).toBe(400);
      } finally {
        await second.close();
      }
    } finally {
      data.remove();
    }
  });
});
