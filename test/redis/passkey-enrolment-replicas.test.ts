import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_SECRET } from '../support/credentials';
import { postJson } from '../support/http';
import { runCli } from '../support/process';
import { RedisServer } from '../support/redis-server';
import { startReplicas, stopReplicas } from '../support/replicas';
import { cookieFrom, type RunningGateway } from '../support/server';
import { SoftAuthenticator } from '../support/soft-authenticator';

const APP_URL = 'https://auth.example.test';
const SAME_SITE = { 'sec-fetch-site': 'same-origin' };

/**
 * Issue 16 on two replicas sharing Redis: the CLI makes a link while the gateways run, one replica
 * redeems it, neither takes it again, and the passkey it registers is the other replica's too.
 */
describe('passkey enrolment links on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let dir: string;
  let usersFile: string;
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    redis = await RedisServer.start();
    dir = mkdtempSync(join(tmpdir(), 'portcullis-enrol-redis-'));
    usersFile = join(dir, 'users.yaml');
    writeFileSync(usersFile, 'users:\n  - username: dora\n    passkey_only: true\n');
    [a, b] = await startReplicas({ USERS_FILE: usersFile, REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await stopReplicas([a, b], redis);
    rmSync(dir, { recursive: true, force: true });
  });

  it('redeems on replica B a link the CLI made while both run, once on either replica, and B logs the person in', async () => {
    const made = await runCli(['passkeys', 'enrol', 'dora'], { env: { APP_URL, SECRET: TEST_SECRET, USERS_FILE: usersFile, REDIS_URL: redis.url } });
    expect(made.code).toBe(0);
    const code = (made.stdout.split('\n').find((l) => l.startsWith(`${APP_URL}/enrol#`)) ?? '').split('#')[1];
    const started = await postJson(b, '/api/passkeys/enrolment/options', { code }, SAME_SITE);
    expect(started.status).toBe(200);
    for (const gw of [a, b]) expect((await postJson(gw, '/api/passkeys/enrolment/options', { code }, SAME_SITE)).status).toBe(400);
    const { options } = (await started.json()) as { options: Record<string, unknown> };
    const done = await postJson(
      b,
      '/api/passkeys/enrolment',
      { name: 'Phone', response: new SoftAuthenticator(APP_URL).register(options) },
      { cookie: `portcullis-passkey-enrol=${cookieFrom(started, 'portcullis-passkey-enrol')?.value}`, ...SAME_SITE },
    );
    expect(done.status).toBe(200);
    const session = `portcullis-session=${cookieFrom(done, 'portcullis-session')?.value}`;
    // The passkey and the session are shared: replica A lists it for the session B issued.
    const listed = (await (await fetch(`${a.url}/api/passkeys`, { headers: { cookie: session } })).json()) as { passkeys: { name: string }[] };
    expect(listed.passkeys.map((p) => p.name)).toEqual(['Phone']);
  });
});
