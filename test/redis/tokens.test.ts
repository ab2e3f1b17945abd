import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKENS } from '../../src/composition/tokens';
import { hashOf } from '../support/credentials';
import { RecordingAuditLog } from '../support/fakes';
import { askForwardAuth, forwardedFor, loginCookie, postJson } from '../support/http';
import { RedisServer } from '../support/redis-server';
import { startReplicas, stopReplicas } from '../support/replicas';
import type { RunningGateway } from '../support/server';
import { tokensAcrossReplicas } from '../support/token-replicas';

describe('access tokens on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b] = await startReplicas({ USERS: `alice:${hashOf('pw')}`, REDIS_URL: redis.url });
  });
  afterAll(() => stopReplicas([a, b], redis));

  tokensAcrossReplicas(() => [a, b]);
});

describe('an account removed from the users file, on two replicas sharing Redis (issue 35)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-removed-'));
  const usersFile = join(dir, 'users.yml');
  const audit = new RecordingAuditLog();
  const people = (names: string[]): string => `users:\n${names.map((n) => `  - username: ${n}\n    password: "${hashOf(`${n}-pw`)}"\n`).join('')}`;
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    writeFileSync(usersFile, people(['alice', 'bob']));
    redis = await RedisServer.start();
    [a, b] = await startReplicas({ USERS_FILE: usersFile, REDIS_URL: redis.url }, 2, { [TOKENS.AuditLog]: audit });
  });
  afterAll(async () => {
    await stopReplicas([a, b], redis);
    rmSync(dir, { recursive: true, force: true });
  });

  const bearer = async (gw: RunningGateway, token: string): Promise<number> =>
    (await askForwardAuth(gw, 'traefik', { authorization: `Bearer ${token}`, ...forwardedFor('https://app.example.test/') })).status;

  it('refuses its access token (Authorization: Bearer) on both replicas as soon as they reload the file, and revokes it', async () => {
    const cookie = await loginCookie(a, 'bob', 'bob-pw');
    const created = await postJson(a, '/api/account/tokens', { name: 'ci' }, { cookie });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    expect(await bearer(a, token)).toBe(200);
    expect(await bearer(b, token)).toBe(200);
    writeFileSync(usersFile, people(['alice']));
    const started = Date.now();
    while ((await bearer(a, token)) === 200 || (await bearer(b, token)) === 200) {
      // Each replica reloads the file within a moment of the write (a file watch, debounced).
      expect(Date.now() - started).toBeLessThan(2_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await bearer(a, token)).toBe(401);
    expect(await bearer(b, token)).toBe(401);
    // Revoked, not only refused: it stays refused if the name comes back in the file.
    expect(audit.events).toContainEqual(expect.objectContaining({ event: 'token_revoked', username: 'bob', by: 'users_file' }));
    expect(audit.events).toContainEqual(expect.objectContaining({ event: 'sessions_revoked', username: 'bob', by: 'users_file' }));
    writeFileSync(usersFile, people(['alice', 'bob']));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await bearer(a, token)).toBe(401);
    expect(await bearer(b, token)).toBe(401);
  });
});
