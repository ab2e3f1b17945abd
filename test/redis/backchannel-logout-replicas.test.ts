import { codeFlowAt } from '../support/backchannel-replicas';
import { LogoutRp } from '../support/logout-rp';
import { freePorts } from '../support/net';
import { oidcEnv, relyingPartyAt, ReplicaBrowser, startReplica } from '../support/oidc-replicas';
import { RedisServer } from '../support/redis-server';
import type { RunningGateway } from '../support/server';

jest.setTimeout(90_000);

/**
 * Issue 35: two replicas share one Redis and run the back-channel logout queue side by side. Logouts
 * on either, queued while the app is down, reach it once it is back: every session's token exactly
 * once, never twice although both replicas keep claiming.
 */
describe('back-channel logout on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let replicas: RunningGateway[] = [];
  let rp: LogoutRp;
  let issuer = '';

  beforeAll(async () => {
    redis = await RedisServer.start();
    const [a, b, rpPort] = await freePorts(3);
    issuer = `http://127.0.0.1:${a}`;
    rp = new LogoutRp(rpPort, { issuer: () => issuer, audience: 'app' });
    const env = { ...oidcEnv(), REDIS_URL: redis.url, OIDC_CLIENTS_APP_BACKCHANNEL_LOGOUT_URI: rp.uri, OIDC_BACKCHANNEL_LOGOUT_RETRY: '60' };
    replicas = [await startReplica(issuer, a, env), await startReplica(issuer, b, env)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await rp.down();
    await redis?.stop();
  });

  it('delivers each session’s logout token exactly once, whichever replica ended it or sends it', async () => {
    const sids: string[] = [];
    const browsers: { browser: ReplicaBrowser; replica: string }[] = [];
    for (let i = 0; i < 6; i += 1) {
      const replica = replicas[i % 2].url;
      const browser = new ReplicaBrowser(issuer, replica);
      await browser.login('alice', 'alice-pw');
      const tokens = await codeFlowAt(browser, await relyingPartyAt(issuer, replica));
      sids.push(tokens.claims()?.sid as string);
      browsers.push({ browser, replica });
    }
    // The app is down: every logout is queued and retried by both replicas.
    for (const { browser, replica } of browsers) {
      const res = await browser.fetch(`${replica}/api/logout`, { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } });
      expect(res.status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 2_500));
    await rp.up();
    await rp.waitFor(sids.length, 20_000);
    // Both replicas keep polling: nothing more arrives.
    await new Promise((r) => setTimeout(r, 3_000));
    const received = rp.received.map((r) => r.claims.sid as string);
    expect(received.sort()).toEqual([...sids].sort());
  });
});
