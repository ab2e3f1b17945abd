import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as client from 'openid-client';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { verifyRs256 } from '../../support/jwt';
import { APP_CLIENT_ENV, APP_SECRET, CALLBACK, discoverClient, loggedInBrowser, pkceAuthorization, startOidcGateway } from '../../support/oidc-gateway';
import { runCli } from '../../support/process';

// Each start loads oidc-provider and generates or reads keys: allow for a few.
jest.setTimeout(120_000);

type Jwks = { keys: { kid: string }[] };

/**
 * `portcullis oidc keys` on the embedded store: the gateway stopped (it holds the file's lock), the
 * command run against the same DATA_DIR, the next start signs with and publishes what it left.
 * (Redis and PostgreSQL run the same code on their SigningKeys adapters: test/redis, test/postgres.)
 */
describe('portcullis oidc keys on the embedded store', () => {
  const data = tempDataDir('portcullis-oidc-keys');
  const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS: `nobody:${hashOf('unused')}`, DATA_DIR: data.dir };
  afterAll(() => data.remove());

  /** Starts the gateway on DATA_DIR, signs one ID token, reads the JWKS, stops. */
  async function startSignAndStop(): Promise<{ idToken: string; jwks: Jwks }> {
    const gw = await startOidcGateway({ ...APP_CLIENT_ENV, DATA_DIR: data.dir });
    try {
      const app = await discoverClient(gw.url, 'app', APP_SECRET);
      const { url, verifier, state } = await pkceAuthorization(app, CALLBACK);
      const done = await (await loggedInBrowser(gw.url)).follow(url.toString());
      const tokens = await client.authorizationCodeGrant(app, done.url, { pkceCodeVerifier: verifier, expectedState: state });
      const jwks = (await (await fetch(app.serverMetadata().jwks_uri as string)).json()) as Jwks;
      return { idToken: tokens.id_token as string, jwks };
    } finally {
      await gw.close();
    }
  }
  const headerKid = (token: string): string => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')).kid;
  const kids = (jwks: Jwks): string[] => jwks.keys.map((k) => k.kid);

  it('rotates: the new key signs after the restart, the old one stays published until retired', async () => {
    const first = await startSignAndStop();
    const oldKid = headerKid(first.idToken);
    expect(kids(first.jwks)).toEqual([oldKid]);
    expect((await runCli(['oidc', 'keys', 'list'], { env })).stdout).toBe(`${oldKid}  RS256  signs\n`);

    const rotated = await runCli(['oidc', 'keys', 'rotate'], { env });
    expect(rotated.code).toBe(0);
    const newKid = /^(\S+) {2}RS256 {2}signs$/m.exec(rotated.stdout)?.[1] as string;
    expect(newKid).not.toBe(oldKid);
    expect(rotated.stdout).toContain(`${oldKid}  RS256  published\n`);
    expect(rotated.stdout).not.toMatch(/"d"|PRIVATE/);

    const second = await startSignAndStop();
    expect(headerKid(second.idToken)).toBe(newKid);
    expect(kids(second.jwks)).toEqual([newKid, oldKid]);
    // A token the old key signed before the rotation still verifies against the published set.
    expect(verifyRs256(first.idToken, second.jwks as never).header.kid).toBe(oldKid);

    const refused = await runCli(['oidc', 'keys', 'retire', newKid], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is the key that signs');
    expect(await runCli(['oidc', 'keys', 'retire', oldKid], { env })).toMatchObject({ code: 0 });

    const third = await startSignAndStop();
    expect(kids(third.jwks)).toEqual([newKid]);
    expect(() => verifyRs256(first.idToken, third.jwks as never)).toThrow(/no key/);
  });

  it('adds a key that is published but does not sign until promoted', async () => {
    const added = await runCli(['oidc', 'keys', 'add'], { env });
    expect(added.code).toBe(0);
    const next = /^(\S+) {2}RS256 {2}published$/m.exec(added.stdout)?.[1] as string;
    const before = await startSignAndStop();
    expect(kids(before.jwks)).toContain(next);
    expect(headerKid(before.idToken)).not.toBe(next);
    expect(await runCli(['oidc', 'keys', 'promote', next], { env })).toMatchObject({ code: 0 });
    expect(headerKid((await startSignAndStop()).idToken)).toBe(next);
  });

  it('refuses what it cannot do, in one line each', async () => {
    expect((await runCli(['oidc', '--help'], { env })).stdout).toContain('portcullis oidc keys rotate');
    expect(await runCli(['oidc', 'keys', 'retire'], { env })).toMatchObject({ code: 2 });
    expect(await runCli(['oidc', 'keys', 'shred'], { env })).toMatchObject({ code: 2 });
    expect(await runCli(['oidc', 'keys', 'promote', 'nope'], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining('no key nope') });
    const pem = join(data.dir, 'signing.pem');
    writeFileSync(pem, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const fileKeys = await runCli(['oidc', 'keys', 'rotate'], { env: { ...env, OIDC_SIGNING_KEY_FILE: pem } });
    expect(fileKeys).toMatchObject({ code: 1, stderr: expect.stringContaining('rotate by editing that file') });
  });
});
