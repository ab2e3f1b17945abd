import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HmacTokenSecrets } from '../../../src/adapters/crypto/hmac-token-secrets';
import { InMemoryAccessTokens } from '../../../src/adapters/state/memory/in-memory-access-tokens';
import { InMemoryRevokedSessions } from '../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import { TOKENS } from '../../../src/composition/tokens';
import { tokenRevocationId, type AccessTokenRecord } from '../../../src/domain/access-token';
import { basic, hashOf, TEST_SECRET } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

// Issue 32: a machine passes forward auth with an access token, under the same rules as its owner.
const dir = mkdtempSync(join(tmpdir(), 'portcullis-tokens-'));
const rulesFile = join(dir, 'access.yaml');
writeFileSync(
  rulesFile,
  `
default_policy: allow_authenticated
apps:
  wiki:
    domain: [wiki.example.test]
  ci:
    domain: [ci.example.test]
  vault:
    domain: [vault.example.test]
    tokens: deny
  admin:
    domain: [admin.example.test]
    require_second_factor: true
  deploy:
    domain: [deploy.example.test]
    require_second_factor: true
    tokens: allow
  ops:
    domain: [ops.example.test]
    oauth: { groups: [ops] }
`,
);

const secrets = new HmacTokenSecrets(TEST_SECRET);
const store = new InMemoryAccessTokens();
const revocations = new InMemoryRevokedSessions(new SystemClock());
const DAY = 24 * 3600 * 1000;

async function tokenFor(username: string, options: Partial<AccessTokenRecord> = {}): Promise<{ token: string; record: AccessTokenRecord }> {
  const { token, hash } = secrets.issue();
  const record: AccessTokenRecord = {
    id: `t${Math.random().toString(36).slice(2, 10)}`,
    hash,
    username,
    name: 'ci',
    apps: null,
    createdAt: Date.now(),
    expiresAt: Date.now() + DAY,
    lastUsedAt: null,
    revokedAt: null,
    ...options,
  };
  await store.add(record);
  return { token, record };
}

function ask(gw: RunningGateway, host: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${gw.url}/api/auth/traefik`, {
    headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-uri': '/', accept: 'text/html', ...headers },
    redirect: 'manual',
  });
}

describe('forward auth with an access token', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway(
      { USERS: `alice:${hashOf('alice-pw')},bob:${hashOf('bob-pw')}`, ACCESS_CONFIG: rulesFile, LOGIN_MAX_RETRIES: '3' },
      { [TOKENS.AccessTokens]: store, [TOKENS.RevokedSessions]: revocations },
    );
  });
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes with Authorization: Bearer and with Portcullis-Token, as its owner', async () => {
    const { token } = await tokenFor('alice');
    for (const headers of [{ authorization: `Bearer ${token}` }, { 'portcullis-token': token }] as Record<string, string>[]) {
      const res = await ask(gw, 'wiki.example.test', headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('alice');
      expect(res.headers.get('remote-email')).toBe('alice@example.test');
    }
  });

  it('answers an unknown, malformed or oversized token 401 invalid_token with a Bearer challenge, never a redirect', async () => {
    const unknown = secrets.issue().token;
    for (const value of [unknown, 'pct_short', `pct_${'a'.repeat(9000)}`, '']) {
      const res = await ask(gw, 'wiki.example.test', { 'portcullis-token': value, 'x-forwarded-for': '198.51.100.7' });
      expect(res.status).toBe(401);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="portcullis", error="invalid_token"');
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('invalid_token');
      expect(body.message).not.toContain('pct_');
    }
  });

  it('refuses a token presented twice (both headers, or a repeated header), even a good one', async () => {
    const { token } = await tokenFor('alice');
    const both = await ask(gw, 'wiki.example.test', { authorization: `Bearer ${token}`, 'portcullis-token': token });
    expect(both.status).toBe(401);
  });

  it('leaves another Bearer token alone: the request is anonymous, as without it', async () => {
    const res = await ask(gw, 'wiki.example.test', { authorization: 'Bearer eyJhbGciOi.the-apps-own.token', accept: 'application/json' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('a token decides over a session cookie that came along', async () => {
    const res = await ask(gw, 'wiki.example.test', { 'portcullis-token': secrets.issue().token, cookie: 'portcullis-session=whatever' });
    expect(res.status).toBe(401);
  });

  it('passes only the applications a scoped token names: 403 token_scope elsewhere', async () => {
    const { token } = await tokenFor('alice', { apps: ['ci'] });
    expect((await ask(gw, 'ci.example.test', { 'portcullis-token': token })).status).toBe(200);
    const elsewhere = await ask(gw, 'wiki.example.test', { 'portcullis-token': token });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('location')).toBeNull();
    expect(((await elsewhere.json()) as { code: string }).code).toBe('token_scope');
    // A host of no named application is outside every scope.
    expect((await ask(gw, 'other.example.test', { 'portcullis-token': token })).status).toBe(403);
  });

  it('is refused by an application that says tokens: deny, and by one that requires a second factor unless it says tokens: allow', async () => {
    const { token } = await tokenFor('alice');
    expect((await ask(gw, 'vault.example.test', { 'portcullis-token': token })).status).toBe(403);
    expect((await ask(gw, 'admin.example.test', { 'portcullis-token': token })).status).toBe(403);
    expect((await ask(gw, 'deploy.example.test', { 'portcullis-token': token })).status).toBe(200);
  });

  it("applies the owner's own rules: a group the owner lacks is still missing", async () => {
    const { token } = await tokenFor('alice');
    const res = await ask(gw, 'ops.example.test', { 'portcullis-token': token });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('forbidden');
  });

  it('stops passing once revoked (the replicated revocation), expired, or its account is gone', async () => {
    const { token, record } = await tokenFor('alice');
    expect((await ask(gw, 'wiki.example.test', { 'portcullis-token': token })).status).toBe(200);
    // What revoking does: the record is marked, and the revocation every replica checks is written.
    await store.revoke('alice', record.id, Date.now());
    await revocations.revoke(tokenRevocationId(record.id), record.expiresAt);
    expect((await ask(gw, 'wiki.example.test', { 'portcullis-token': token })).status).toBe(401);

    const expired = await tokenFor('alice', { expiresAt: Date.now() - 1000 });
    expect((await ask(gw, 'wiki.example.test', { 'portcullis-token': expired.token })).status).toBe(401);

    const orphan = await tokenFor('mallory');
    expect((await ask(gw, 'wiki.example.test', { 'portcullis-token': orphan.token })).status).toBe(401);
  });

  it('counts wrong tokens per address: the lock comes like for passwords, and a good token still passes from elsewhere', async () => {
    const { token } = await tokenFor('bob');
    const from = { 'x-forwarded-for': '203.0.113.50' };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await ask(gw, 'wiki.example.test', { 'portcullis-token': secrets.issue().token, ...from })).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect((await ask(gw, 'wiki.example.test', { 'portcullis-token': token, 'x-forwarded-for': '203.0.113.51' })).status).toBe(200);
    // HTTP Basic still works for people: tokens are an addition.
    expect((await ask(gw, 'wiki.example.test', { authorization: basic('alice', 'alice-pw') })).status).toBe(200);
  });
});

describe('forward auth with TOKENS=false', () => {
  it('never passes a token, even a good one', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}`, TOKENS: 'false' }, { [TOKENS.AccessTokens]: store });
    try {
      const { token } = await tokenFor('alice');
      const res = await ask(gw, 'wiki.example.test', { 'portcullis-token': token });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_token');
    } finally {
      await gw.close();
    }
  });
});
