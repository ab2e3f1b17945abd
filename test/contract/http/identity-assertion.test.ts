import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentSigningKey } from '../../../src/adapters/crypto/signing-key-set';
import { generateSigningKeySet } from '../../../src/composition/oidc-keys';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import { Sha256SubjectIdentifiers } from '../../../src/adapters/crypto/sha256-subject-identifiers';
import { identityAssertionsOf } from '../../../src/composition/identity-assertions';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf } from '../../support/credentials';
import { verifyRs256 } from '../../support/jwt';
import { silentLogger } from '../../support/loggers';
import { waitFor } from '../../support/wait';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';

/**
 * `response.assertion: true` on the real gateway over real sockets: the forward-auth answer carries
 * `Remote-Assertion`, an RS256 JWT verifiable against the provider's JWKS (the public halves of the
 * key set), only for the applications that ask, never copied from the request.
 */
const dir = mkdtempSync(join(tmpdir(), 'portcullis-assertion-'));
const rulesFile = join(dir, 'access.yaml');
const APP_URL = 'https://auth.example.test';
const KEY_SET = generateSigningKeySet();
const JWKS = { keys: [currentSigningKey(KEY_SET).publicJwk] };
const SUBJECTS = new Sha256SubjectIdentifiers();
const SUB_ALICE = SUBJECTS.subjectOf('username', 'alice');

const RULES = `
default_policy: allow_authenticated
apps:
  wiki:
    domain: [wiki.example.test, "*.wiki.example.test"]
    path: { allow: ["^/public/"] }
    response:
      headers: { X-Team: wiki }
      assertion: true
  blog:
    domain: blog.example.test
`;

type Proxy = 'traefik' | 'nginx' | 'caddy';

function ask(gw: RunningGateway, proxy: Proxy, host: string, headers: Record<string, string> = {}, uri = '/page'): Promise<Response> {
  const h: Record<string, string> = { accept: 'application/json', ...headers };
  if (proxy === 'nginx') h['x-original-url'] = `https://${host}${uri}`;
  else Object.assign(h, { 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-uri': uri });
  return fetch(`${gw.url}/api/auth/${proxy}`, { headers: h, redirect: 'manual' });
}

async function login(gw: RunningGateway): Promise<string> {
  const res = await fetch(`${gw.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'alice', password: 'pw' }),
  });
  expect(res.status).toBe(200);
  return `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value}`;
}

const USERS = `alice:${hashOf('pw')}`;

afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BASIC = `Basic ${Buffer.from('alice:pw').toString('base64')}`;

describe('forward auth with a signed identity assertion (response.assertion)', () => {
  let gw: RunningGateway;
  let cookie: string;

  beforeAll(async () => {
    writeFileSync(rulesFile, RULES);
    const assertions = identityAssertionsOf({ appUrl: APP_URL }, SUBJECTS, new SystemClock(), silentLogger, async () => KEY_SET);
    gw = await startGateway({ APP_URL, USERS, ACCESS_CONFIG: rulesFile }, { [TOKENS.IdentityAssertions]: assertions });
    cookie = await login(gw);
  });
  afterAll(async () => {
    await gw.close();
  });

  describe.each(['traefik', 'nginx', 'caddy'] as const)('through %s', (proxy) => {
    it('answers an application that asks with Remote-Assertion: iss APP_URL, aud its host, the account subject, e-mail, groups, exp within five minutes', async () => {
      // The first of these requests waits while the signer reads its key.
      const res = await ask(gw, proxy, 'wiki.example.test', { cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('alice');
      expect(res.headers.get('x-team')).toBe('wiki');
      const { header, claims } = verifyRs256(res.headers.get('remote-assertion') ?? '', JWKS);
      expect(header.alg).toBe('RS256');
      expect(claims).toMatchObject({
        iss: APP_URL,
        aud: 'wiki.example.test',
        sub: SUB_ALICE,
        email: 'alice@example.test',
        preferred_username: 'alice',
        groups: [],
      });
      const now = Math.floor(Date.now() / 1000);
      expect(claims.exp as number).toBeGreaterThan(now + 60);
      expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(300);
    });

    it('sends no assertion to an application that does not ask, even when the request brings one', async () => {
      const res = await ask(gw, proxy, 'blog.example.test', { cookie, 'remote-assertion': 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJyb290In0.' });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('alice');
      expect(res.headers.get('remote-assertion')).toBeNull();
    });

    it('never takes the assertion from the request: a forged one is replaced by the signed one', async () => {
      const forged = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJyb290In0.';
      const res = await ask(gw, proxy, 'wiki.example.test', { cookie, 'remote-assertion': forged });
      expect(res.status).toBe(200);
      const sent = res.headers.get('remote-assertion') ?? '';
      expect(sent).not.toContain(forged);
      expect(verifyRs256(sent, JWKS).claims.sub).toBe(SUB_ALICE);
    });

    it('names the exact host asked for as the audience, per host of the application', async () => {
      const res = await ask(gw, proxy, 'eu.wiki.example.test', { cookie });
      expect(verifyRs256(res.headers.get('remote-assertion') ?? '', JWKS).claims.aud).toBe('eu.wiki.example.test');
    });

    it('gives nothing to an anonymous request: refused, or let through a public path without an assertion', async () => {
      const refused = await ask(gw, proxy, 'wiki.example.test', { 'remote-assertion': 'forged' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('remote-assertion')).toBeNull();
      const open = await ask(gw, proxy, 'wiki.example.test', { 'remote-assertion': 'forged' }, '/public/readme');
      expect(open.status).toBe(200);
      expect(open.headers.get('remote-assertion')).toBeNull();
    });

    it('asserts an HTTP Basic caller with the same subject as a login on the page', async () => {
      const res = await ask(gw, proxy, 'wiki.example.test', { authorization: BASIC });
      expect(res.status).toBe(200);
      expect(verifyRs256(res.headers.get('remote-assertion') ?? '', JWKS).claims.sub).toBe(SUB_ALICE);
    });
  });

  it('signs once per identity and application: repeated requests get the same token', async () => {
    const a = await ask(gw, 'caddy', 'wiki.example.test', { cookie });
    const b = await ask(gw, 'traefik', 'wiki.example.test', { cookie });
    expect(a.headers.get('remote-assertion')).not.toBeNull();
    expect(b.headers.get('remote-assertion')).toBe(a.headers.get('remote-assertion'));
  });

  // ADR 0040: an answer with an assertion is remembered per token, and the signer reuses a token for
  // minutes; the rules' headers are part of the answer too, so a reload must reach the next one.
  it('follows a reload of the rules at once, while the token stays the same: new headers, then a refusal', async () => {
    const before = await ask(gw, 'caddy', 'wiki.example.test', { cookie, prefer: 'return=minimal' });
    expect(before.headers.get('x-team')).toBe('wiki');
    try {
      writeFileSync(rulesFile, RULES.replace('X-Team: wiki', 'X-Team: wiki-2'));
      await waitFor(
        async () => (await ask(gw, 'caddy', 'wiki.example.test', { cookie, prefer: 'return=minimal' })).headers.get('x-team') === 'wiki-2',
        'the new header',
      );
      const after = await ask(gw, 'caddy', 'wiki.example.test', { cookie, prefer: 'return=minimal' });
      expect(after.headers.get('remote-assertion')).toBe(before.headers.get('remote-assertion'));
      writeFileSync(rulesFile, RULES.replace('domain: [wiki.example.test', 'users: { block: [alice] }\n    domain: [wiki.example.test'));
      await waitFor(async () => (await ask(gw, 'caddy', 'wiki.example.test', { cookie })).status === 403, 'the block to refuse alice');
    } finally {
      writeFileSync(rulesFile, RULES);
      await waitFor(async () => (await ask(gw, 'caddy', 'wiki.example.test', { cookie })).headers.get('x-team') === 'wiki', 'the first rules back');
    }
  }, 20_000);
});

describe('forward auth when the signing key cannot be read', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    writeFileSync(join(dir, 'broken.yaml'), RULES);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('refuses with 503 rather than pass the request without its assertion, and other applications still work', async () => {
    const broken = identityAssertionsOf({ appUrl: APP_URL }, SUBJECTS, new SystemClock(), silentLogger, async () => '{"keys":[]}');
    gw = await startGateway({ APP_URL, USERS, ACCESS_CONFIG: join(dir, 'broken.yaml') }, { [TOKENS.IdentityAssertions]: broken });
    const cookie = await login(gw);
    const res = await ask(gw, 'caddy', 'wiki.example.test', { cookie });
    expect(res.status).toBe(503);
    expect(res.headers.get('remote-user')).toBeNull();
    expect(await res.json()).toMatchObject({ code: 'store_unavailable' });
    expect((await ask(gw, 'caddy', 'blog.example.test', { cookie })).status).toBe(200);
  });
});
