import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cookieFrom, hashOf, startGateway, type RunningGateway } from '../../support/server';

/** Asks `probe` again every 25 ms until it returns true; fails after `ms` (the file watcher is asynchronous). */
async function eventually(probe: () => Promise<boolean>, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('USERS_FILE through the gateway', () => {
  const hash = hashOf('pw');
  let dir: string;
  let path: string;
  let gw: RunningGateway;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-gw-users-'));
    path = join(dir, 'users.yaml');
    writeFileSync(path, yaml([{ name: 'alice', groups: ['admins', 'staff'] }, { name: 'bob' }]));
    gw = await startGateway({ USERS_FILE: path, USERS: `carol:${hash}` });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function yaml(users: Array<{ name: string; groups?: string[]; disabled?: boolean }>): string {
    return `users:\n${users
      .map((u) => `  - username: ${u.name}\n    password: "${hash}"\n    name: ${u.name.toUpperCase()}\n    groups: [${(u.groups ?? []).join(', ')}]\n    disabled: ${u.disabled === true}\n`)
      .join('')}`;
  }
  async function login(name: string): Promise<string> {
    const res = await fetch(`${gw.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: name, password: 'pw' }) });
    expect(res.status).toBe(200);
    return `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value ?? ''}`;
  }
  const forwardAuth = (cookie: string): Promise<Response> =>
    fetch(`${gw.url}/api/auth/traefik`, {
      headers: { cookie, accept: 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' },
    });

  it('logs in an account of the YAML file and passes its name and groups upstream', async () => {
    const res = await forwardAuth(await login('alice'));
    expect(res.status).toBe(200);
    expect(res.headers.get('remote-user')).toBe('alice');
    expect(res.headers.get('remote-name')).toBe('ALICE');
    expect(res.headers.get('remote-groups')).toBe('admins,staff');
  });

  it('serves USERS and the file side by side', async () => {
    expect((await forwardAuth(await login('carol'))).status).toBe(200);
  });

  it('ends the sessions of an account once it is removed or disabled in the file', async () => {
    const alice = await login('alice');
    const bob = await login('bob');
    writeFileSync(path, yaml([{ name: 'alice', disabled: true }]));
    await eventually(async () => (await forwardAuth(bob)).status === 401);
    expect((await forwardAuth(alice)).status).toBe(401);
    const res = await fetch(`${gw.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'pw' }) });
    expect(res.status).toBe(401);
    expect((await forwardAuth(await login('carol'))).status).toBe(200);
  });
});
