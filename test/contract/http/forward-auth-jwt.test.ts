import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashOf } from '../../support/credentials';
import { issuerKey, TestJwtIssuer, unsignedJwt, type IssuerKey } from '../../support/jwt-issuer';
import { startGateway, type RunningGateway } from '../../support/server';

// Issue 32: a workload's JWT from a configured issuer passes forward auth as `<id>:<claim>`, under the rules.
const AUDIENCE = 'https://auth.example.test';
const dir = mkdtempSync(join(tmpdir(), 'portcullis-jwt-'));
const rulesFile = join(dir, 'access.yaml');
writeFileSync(
  rulesFile,
  `
default_policy: allow_authenticated
apps:
  deploy:
    domain: [deploy.example.test]
    users: { allow: ["ci:repo:x"] }
  ops:
    domain: [ops.example.test]
    oauth: { groups: [ops] }
  admin:
    domain: [admin.example.test]
    require_second_factor: true
`,
);

function ask(gw: RunningGateway, host: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${gw.url}/api/auth/traefik`, {
    headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-uri': '/', accept: 'text/html', ...headers },
    redirect: 'manual',
  });
}

describe('forward auth with a workload JWT', () => {
  let gw: RunningGateway;
  let issuer: TestJwtIssuer;
  let key: IssuerKey;
  beforeAll(async () => {
    issuer = await new TestJwtIssuer().start();
    key = await issuerKey('k1', 'ES256');
    issuer.published = [key];
    gw = await startGateway({
      USERS: `alice:${hashOf('alice-pw')}`,
      ACCESS_CONFIG: rulesFile,
      JWT_ISSUERS_CI_ISSUER: issuer.url,
      JWT_ISSUERS_CI_AUDIENCE: AUDIENCE,
      JWT_ISSUERS_CI_GROUPS_CLAIM: 'groups',
    });
  });
  afterAll(async () => {
    await gw.close();
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const jwt = (claims: Record<string, unknown> = {}): Promise<string> => issuer.sign(key, { sub: 'repo:x', aud: AUDIENCE, groups: ['ops'], ...claims });

  it('passes as <id>:<claim> with its groups, at users.allow and oauth.groups, again at once', async () => {
    const token = await jwt();
    for (let i = 0; i < 2; i += 1) {
      const res = await ask(gw, 'deploy.example.test', { authorization: `Bearer ${token}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('ci:repo:x');
      expect(res.headers.get('remote-groups')).toBe('ops');
    }
    expect((await ask(gw, 'ops.example.test', { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('refuses another workload where the rules name this one, and one without the group, with a plain 403', async () => {
    const other = await jwt({ sub: 'repo:y', groups: [] });
    for (const host of ['deploy.example.test', 'ops.example.test']) {
      const res = await ask(gw, host, { authorization: `Bearer ${other}` });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
    // A JWT proves no second factor.
    expect((await ask(gw, 'admin.example.test', { authorization: `Bearer ${await jwt()}` })).status).toBe(403);
  });

  it('answers 401 invalid_token with the Bearer challenge for a JWT of the issuer that does not verify, never naming it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const refused = [
      await jwt({ exp: now - 120 }),
      await jwt({ aud: 'https://elsewhere.example.test' }),
      await jwt({ nbf: now + 600 }),
      unsignedJwt({ iss: issuer.url, sub: 'repo:x', aud: AUDIENCE, exp: now + 600 }),
      `${(await jwt()).slice(0, -10)}`,
      await jwt({ pad: 'x'.repeat(6000) }),
    ];
    for (const token of refused) {
      const res = await ask(gw, 'deploy.example.test', { authorization: `Bearer ${token}`, cookie: 'portcullis-session=whatever' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="portcullis", error="invalid_token"');
      const body = await res.text();
      expect(body).not.toContain(token.split('.')[1]);
    }
  });

  it('leaves any other Bearer value to the application: the request is judged as if it were absent', async () => {
    const foreign = await jwt({ iss: 'https://elsewhere.example.test' });
    for (const authorization of [`Bearer ${foreign}`, 'Bearer opaque-app-token', 'Bearer a.b']) {
      const res = await ask(gw, 'deploy.example.test', { authorization });
      expect(res.status).toBe(302);
    }
  });
});
