import { join } from 'node:path';
import * as client from 'openid-client';
import { loadConfig } from '../../../src/composition/config';
import { createGateway, type Gateway } from '../../../src/composition/gateway';
import { TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { LogoutRp } from '../../support/logout-rp';
import { freePorts } from '../../support/net';
import { APP_CLIENT_ENV, APP_SECRET, Browser, codeFlow, discoverClient, loggedInBrowser, writeOidcPeople } from '../../support/oidc-gateway';
import { runCli } from '../../support/process';

jest.setTimeout(90_000);

/**
 * Issue 35: the queue is durable. A session ended by `portcullis sessions revoke` while the gateway
 * is stopped (the embedded store is the gateway's file) and while the app is down is told to the
 * app by the gateway once it runs again and the app is back; RP-initiated logout tells it too.
 */
describe('back-channel logout across a restart, from the CLI and from RP-initiated logout', () => {
  const temp = tempDataDir('portcullis-bcl');
  let env: Record<string, string>;
  let rp: LogoutRp;
  let url = '';
  let running: { gateway: Gateway; close: () => Promise<void> } | null = null;

  async function start(): Promise<void> {
    const loaded = loadConfig({ env });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const gateway = createGateway(loaded.config);
    const { server } = await gateway.listen(Number(env.PORT), '127.0.0.1');
    running = {
      gateway,
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await gateway.shutdown();
      },
    };
  }
  async function stop(): Promise<void> {
    await running?.close();
    running = null;
  }

  beforeAll(async () => {
    const [port, rpPort] = await freePorts(2);
    url = `http://127.0.0.1:${port}`;
    rp = new LogoutRp(rpPort, { issuer: () => url, audience: 'app' });
    env = {
      APP_URL: url,
      SECRET: TEST_SECRET,
      LOG_LEVEL: 'silent',
      ADDRESS: '127.0.0.1',
      PORT: String(port),
      USERS_FILE: writeOidcPeople(temp.dir),
      DATA_DIR: join(temp.dir, 'data'),
      ...APP_CLIENT_ENV,
      OIDC_CLIENTS_APP_BACKCHANNEL_LOGOUT_URI: rp.uri,
    };
    await start();
  });
  afterAll(async () => {
    await stop();
    await rp.down();
    temp.remove();
  });

  it('a session revoked by the CLI while the gateway and the app are down is told to the app once both run again', async () => {
    const app = await discoverClient(url, 'app', APP_SECRET);
    const browser = await loggedInBrowser(url, 'alice');
    const sid = (await codeFlow(browser, app)).claims()?.sid;
    await stop();

    const revoked = await runCli(['sessions', 'revoke', 'alice', '--all'], { env });
    expect(revoked).toMatchObject({ code: 0 });

    await rp.up();
    await start();
    const [received] = await rp.waitFor(1, 10_000);
    expect(received.claims).toMatchObject({ iss: url, aud: 'app', sid });
  });

  it('RP-initiated logout tells the app too', async () => {
    const before = rp.received.length;
    const app = await discoverClient(url, 'app', APP_SECRET);
    const browser: Browser = await loggedInBrowser(url, 'bob');
    const tokens = await codeFlow(browser, app);
    const page = await browser.fetch(client.buildEndSessionUrl(app, { id_token_hint: tokens.id_token as string }).toString());
    const html = await page.text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
    const action = /action="([^"]+)"/.exec(html)?.[1] as string;
    const done = await browser.fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `xsrf=${xsrf}&logout=yes`,
    });
    expect(done.status).toBe(303);
    const [received] = (await rp.waitFor(before + 1)).slice(before);
    expect(received.claims.sid).toBe(tokens.claims()?.sid);
    // Once only: the library's own inline delivery is off.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(rp.received.length).toBe(before + 1);
  });
});
