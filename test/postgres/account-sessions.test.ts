import { hashOf, TEST_SECRET } from '../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson } from '../support/http';
import { PostgresServer } from '../support/postgres-server';
import { runCli } from '../support/process';
import { startReplicas, stopReplicas } from '../support/replicas';
import type { RunningGateway } from '../support/server';
import { eventually } from '../support/wait';

const APP = 'https://app.example.test/';

/** The account page's sessions across two gateways on one PostgreSQL, and `portcullis sessions` while they run. */
describe('account sessions on two gateways sharing PostgreSQL', () => {
  let pg: PostgresServer;
  let url: string;
  let a: RunningGateway;
  let b: RunningGateway;
  const users = `alice:${hashOf('pw')}`;

  beforeAll(async () => {
    pg = await PostgresServer.start();
    url = pg.createDatabase('account');
    [a, b] = await startReplicas({ USERS: users, DATABASE_URL: url });
  }, 60_000);
  afterAll(() => stopReplicas([a, b], pg));

  const live = async (gw: RunningGateway, cookie: string): Promise<boolean> =>
    (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;

  it('lists the other gateway’s session, signs it out from here, and the CLI ends the rest while both run', async () => {
    const onA = await loginCookie(a, 'alice', 'pw');
    const onB = await loginCookie(b, 'alice', 'pw');
    const sessions = (await expectEnvelope(await fetch(`${b.url}/api/account`, { headers: { cookie: onB } }), 200)).sessions as Array<Record<string, unknown>>;
    expect(sessions).toHaveLength(2);
    const res = await postJson(b, '/api/account/sessions/revoke', { id: sessions.find((s) => s.current !== true)?.id }, { cookie: onB });
    expect(res.status).toBe(200);
    expect(await eventually(async () => !(await live(a, onA)))).toBe(true);
    expect(await live(a, onB)).toBe(true);

    const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS: users, DATABASE_URL: url };
    expect((await runCli(['sessions', 'list', 'alice'], { env })).stdout.trim().split('\n')).toHaveLength(1);
    expect(await runCli(['sessions', 'revoke', 'alice', '--all'], { env })).toMatchObject({ code: 0, stdout: 'revoked 1 session of alice\n' });
    expect(await eventually(async () => !(await live(a, onB)) && !(await live(b, onB)))).toBe(true);
  }, 60_000);
});
