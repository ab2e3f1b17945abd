import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as client from 'openid-client';
import { SigningKeysUnreadableError } from '../../../src/adapters/crypto/aes-gcm-signing-keys';
import { loadConfig } from '../../../src/composition/config';
import { createGateway } from '../../../src/composition/gateway';
import { TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { freePort } from '../../support/net';
import { authorize, oidcEnv, relyingPartyAt, ReplicaBrowser, startReplica, verifiesAgainstJwks } from '../../support/oidc-replicas';

/** The provider on the embedded store (DATA_DIR, the default): a restart forgets no grant, token or key. */
describe('the OpenID Connect provider on the embedded database, across a restart', () => {
  const data = tempDataDir('portcullis-oidc-restart');
  afterAll(() => data.remove());

  it('keeps refresh tokens and the signing key: same kid in JWKS, the old ID token still verifies, the refresh token still works', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const env = { ...oidcEnv(), DATA_DIR: data.dir };

    const before = await startReplica(issuer, port, env);
    let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
    let kidsBefore: string[];
    let callback: URL;
    try {
      const browser = new ReplicaBrowser(issuer, before.url);
      await browser.login('alice', 'alice-pw');
      const rp = await relyingPartyAt(issuer, before.url);
      const flow = await authorize(browser, rp);
      callback = flow.callback;
      const { verifier, state } = flow;
      tokens = await client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier, expectedState: state });
      expect(tokens.refresh_token).toEqual(expect.any(String));
      kidsBefore = (await verifiesAgainstJwks(tokens.id_token as string, issuer, before.url)).kids;
      // A copy of the data directory holds no usable token: neither the refresh token nor the code.
      for (const file of readdirSync(data.dir)) {
        const content = readFileSync(join(data.dir, file)).toString('latin1');
        expect(content).not.toContain(tokens.refresh_token as string);
        expect(content).not.toContain(callback.searchParams.get('code') as string);
      }
    } finally {
      await before.close();
    }

    // Back on another port (APP_URL, the issuer, unchanged): no pooled connection to the old process is reused.
    const after = await startReplica(issuer, await freePort(), env);
    try {
      const jwks = await verifiesAgainstJwks(tokens.id_token as string, issuer, after.url);
      expect(jwks.kids).toEqual(kidsBefore);
      expect(jwks.verified).toBe(true);
      const rp = await relyingPartyAt(issuer, after.url);
      const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token as string);
      expect(refreshed.claims()?.sub).toBe(tokens.claims()?.sub);
      expect((await verifiesAgainstJwks(refreshed.id_token as string, issuer, after.url)).verified).toBe(true);
    } finally {
      await after.close();
    }
  }, 60_000);

  it('refuses to start under another SECRET with a clear start-up error, and keeps the stored key set', async () => {
    const dir = tempDataDir('portcullis-oidc-secret');
    try {
      const port = await freePort();
      const issuer = `http://127.0.0.1:${port}`;
      const env = { ...oidcEnv(), DATA_DIR: dir.dir };
      const first = await startReplica(issuer, port, env);
      await first.close();

      const loaded = loadConfig({
        env: { ...env, APP_URL: issuer, SECRET: `another-${TEST_SECRET}`, LOG_LEVEL: 'silent', ADDRESS: '127.0.0.1', PORT: String(port) },
      });
      if (!loaded.ok) throw new Error(loaded.problems.join('; '));
      const gateway = createGateway(loaded.config);
      try {
        await expect(gateway.start()).rejects.toBeInstanceOf(SigningKeysUnreadableError);
      } finally {
        await gateway.shutdown();
      }

      // The original SECRET still opens it: nothing was overwritten by the refused start.
      const again = await startReplica(issuer, await freePort(), env);
      await again.close();
    } finally {
      dir.remove();
    }
  }, 60_000);
});
