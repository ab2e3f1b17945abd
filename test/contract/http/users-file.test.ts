import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashOf } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { waitFor } from '../../support/wait';

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
      .map(
        (u) =>
          `  - username: ${u.name}\n    password: "${hash}"\n    name: ${u.name.toUpperCase()}\n    groups: [${(u.groups ?? []).join(', ')}]\n    disabled: ${u.disabled === true}\n`,
      )
      .join('')}`;
  }
  async function login(name: string): Promise<string> {
    const res = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, password: 'pw' }),
    });
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
    await waitFor(async () => (await forwardAuth(bob)).status === 401, 'the removed account refused', 8000);
    expect((await forwardAuth(alice)).status).toBe(401);
    const res = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'pw' }),
    });
    expect(res.status).toBe(401);
    expect((await forwardAuth(await login('carol'))).status).toBe(200);
  });
});

describe('USERS_FILE: sessions follow the account as the file says it is now', () => {
  const oldHash = hashOf('old-pw');
  const newHash = hashOf('new-pw');
  let dir: string;
  let path: string;
  let gw: RunningGateway;

  type Entry = { name: string; hash: string; groups: string[]; display?: string };
  const write = (users: Entry[]): void =>
    writeFileSync(
      path,
      `users:\n${users
        .map(
          (u) =>
            `  - username: ${u.name}\n    password: "${u.hash}"\n    name: ${u.display ?? u.name}\n    email: ${u.name}@corp.example.test\n    groups: [${u.groups.join(', ')}]\n`,
        )
        .join('')}`,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-gw-users-fresh-'));
    path = join(dir, 'users.yaml');
    write([
      { name: 'alice', hash: oldHash, groups: ['admins', 'staff'] },
      { name: 'bob', hash: oldHash, groups: ['staff'] },
    ]);
    gw = await startGateway({ USERS_FILE: path });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function login(name: string, password: string): Promise<string> {
    const res = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, password }),
    });
    expect(res.status).toBe(200);
    return `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value ?? ''}`;
  }
  const forwardAuth = (cookie: string): Promise<Response> =>
    fetch(`${gw.url}/api/auth/traefik`, {
      headers: { cookie, accept: 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' },
    });

  it("refuses a session made with the old password once the file's password changed, and lets the new one in", async () => {
    const old = await login('alice', 'old-pw');
    const bob = await login('bob', 'old-pw');
    expect((await forwardAuth(old)).status).toBe(200);
    write([
      { name: 'alice', hash: newHash, groups: ['admins', 'staff'] },
      { name: 'bob', hash: oldHash, groups: ['staff'] },
    ]);
    await waitFor(async () => (await forwardAuth(old)).status === 401, 'the old session refused', 8000);
    expect(((await (await fetch(`${gw.url}/api/user`, { headers: { cookie: old } })).json()) as { isLoggedIn: boolean }).isLoggedIn).toBe(false);
    // Another account's sessions are untouched by the change.
    expect((await forwardAuth(bob)).status).toBe(200);
    const fresh = await login('alice', 'new-pw');
    expect((await forwardAuth(fresh)).status).toBe(200);
  }, 20_000);

  it('passes the current groups, name and e-mail upstream after a reload, with no new login', async () => {
    const bob = await login('bob', 'old-pw');
    expect((await forwardAuth(bob)).headers.get('remote-groups')).toBe('staff');
    write([
      { name: 'alice', hash: newHash, groups: ['admins'] },
      { name: 'bob', hash: oldHash, groups: ['ops'], display: 'Robert' },
    ]);
    await waitFor(async () => (await forwardAuth(bob)).headers.get('remote-groups') === 'ops', 'the new group in the header', 8000);
    const res = await forwardAuth(bob);
    expect(res.status).toBe(200);
    expect(res.headers.get('remote-name')).toBe('Robert');
    expect(res.headers.get('remote-email')).toBe('bob@corp.example.test');
    write([
      { name: 'alice', hash: newHash, groups: ['admins'] },
      { name: 'bob', hash: oldHash, groups: [] },
    ]);
    await waitFor(async () => !(await forwardAuth(bob)).headers.has('remote-groups'), 'the group header gone', 8000);
    expect((await forwardAuth(bob)).status).toBe(200);
  }, 20_000);
});

// ADR 0040: HTTP Basic rides two caches (verified headers, ADR 0017; the answer per account version
// and proxy), and neither may outlive a change in the file.
describe('USERS_FILE: a cached Basic header follows the file', () => {
  let dir: string;
  let path: string;
  let gw: RunningGateway;
  // One hash per password: a group change keeps the credential, so the Basic cache still vouches for the header.
  const hashes: Record<string, string> = { 'old-pw': hashOf('old-pw'), 'new-pw': hashOf('new-pw') };
  const write = (groups: string, password: string): void =>
    writeFileSync(path, `users:\n  - username: carol\n    password: "${hashes[password]}"\n    email: carol@corp.example.test\n    groups: [${groups}]\n`);
  const basic = (password: string): Promise<Response> =>
    fetch(`${gw.url}/api/auth/caddy`, {
      headers: {
        authorization: `Basic ${Buffer.from(`carol:${password}`).toString('base64')}`,
        accept: 'application/json',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'app.example.test',
        'x-forwarded-uri': '/',
      },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-gw-users-basic-'));
    path = join(dir, 'users.yaml');
    write('staff', 'old-pw');
    gw = await startGateway({ USERS_FILE: path });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the new groups with the same header, and refuses it once the password changed', async () => {
    expect((await basic('old-pw')).status).toBe(200);
    expect((await basic('old-pw')).headers.get('remote-groups')).toBe('staff');
    write('ops', 'old-pw');
    await waitFor(async () => (await basic('old-pw')).headers.get('remote-groups') === 'ops', 'the new group with the same header', 8000);
    write('ops', 'new-pw');
    await waitFor(async () => (await basic('old-pw')).status === 401, 'the old password refused', 8000);
    const fresh = await basic('new-pw');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('remote-groups')).toBe('ops');
  }, 30_000);
});
