import { pbkdf2Sync, randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import bcrypt from 'bcrypt';
import { NativePasswordHasher } from '../../../src/adapters/crypto/native-password-hasher';
import { PasswordHasherBusyError, type PasswordHasher } from '../../../src/application/ports/password-hasher';
import { hashedClientPlaceholder } from '../../../src/composition/oidc';
import { TOKENS } from '../../../src/composition/tokens';
import { optionalModules } from '../../../src/composition/optional-modules';
import { TEST_SECRET } from '../../support/credentials';
import { authorize, codeFlow, loggedInBrowser, startOidcGateway, tokenRequest, APP_CLIENT_ENV, discoverClient } from '../../support/oidc-gateway';
import type { RunningGateway } from '../../support/server';

/**
 * Issue 34: clients imported from Authelia keep only a hash of their secret
 * (OIDC_CLIENTS_<ID>_CLIENT_SECRET_HASH). The app sends the secret itself; the gateway checks it
 * against the hash, and never accepts the placeholder secret the library holds for such a client.
 */
const PBK_SECRET = 'pbkdf2-client-secret-0123456789-0123456789';
const ARG_SECRET = 'argon2-client-secret-0123456789-0123456789';
const PBK_CB = 'https://pbk.example.test/cb';
const ARG_CB = 'https://arg.example.test/cb';

/** The secret as Authelia's `crypto hash generate pbkdf2 --variant sha512` writes it (adapted base64). */
function pbkdf2Sha512(secret: string, iterations: number): string {
  const ab64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '').replace(/\+/g, '.');
  const salt = randomBytes(16);
  return `$pbkdf2-sha512$${iterations}$${ab64(salt)}$${ab64(pbkdf2Sync(secret, salt, iterations, 64, 'sha512'))}`;
}

type Form = Record<string, string>;
const errorOf = async (res: Response): Promise<string> => ((await res.json()) as { error: string }).error;

describe('OpenID Connect clients configured with a hashed secret', () => {
  jest.setTimeout(90_000);
  let gw: RunningGateway & { dir: string };
  let pbk: client.Configuration;
  let arg: client.Configuration;

  beforeAll(async () => {
    const argon2 = optionalModules.argon2();
    // Authelia's default Argon2id parameters (64 MiB, 3 passes, 4 lanes), in its m,t,p order.
    const argHash = (await argon2.hash(ARG_SECRET, { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 })).replace(
      /m=(\d+),p=(\d+),t=(\d+)/,
      'm=$1,t=$3,p=$2',
    );
    gw = await startOidcGateway({
      ...APP_CLIENT_ENV,
      OIDC_CLIENTS_PBK_CLIENT_ID: 'pbk',
      OIDC_CLIENTS_PBK_CLIENT_SECRET_HASH: pbkdf2Sha512(PBK_SECRET, 310_000),
      OIDC_CLIENTS_PBK_REDIRECT_URIS: PBK_CB,
      OIDC_CLIENTS_ARG_CLIENT_ID: 'arg',
      OIDC_CLIENTS_ARG_CLIENT_SECRET_HASH: argHash,
      OIDC_CLIENTS_ARG_REDIRECT_URIS: ARG_CB,
      OIDC_CLIENTS_ARG_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post',
    });
    pbk = await discoverClient(gw.url, 'pbk', PBK_SECRET);
    arg = await client.discovery(new URL(gw.url), 'arg', ARG_SECRET, client.ClientSecretPost(ARG_SECRET), { execute: [client.allowInsecureRequests] });
  });
  afterAll(() => gw?.close());

  const tokenEndpoint = (): string => pbk.serverMetadata().token_endpoint as string;
  const posted = (form: Form): Promise<Response> =>
    fetch(tokenEndpoint(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  async function codeOf(config: client.Configuration, redirectUri: string): Promise<Form> {
    const { callback, verifier } = await authorize(await loggedInBrowser(gw.url), config, redirectUri);
    return { grant_type: 'authorization_code', code: callback.searchParams.get('code') as string, redirect_uri: redirectUri, code_verifier: verifier };
  }

  it('gives a PBKDF2-SHA512 client (client_secret_basic) its tokens for the right secret, through a relying-party library, refresh included', async () => {
    const tokens = await codeFlow(await loggedInBrowser(gw.url), pbk, PBK_CB, { scope: 'openid email offline_access', prompt: 'consent' });
    expect(tokens.claims()?.aud).toBe('pbk');
    expect(tokens.claims()?.email).toBe('alice@example.test');
    const refreshed = await client.refreshTokenGrant(pbk, tokens.refresh_token as string);
    expect(typeof refreshed.access_token).toBe('string');
  });

  it('refuses the PBKDF2 client a wrong secret and the placeholder the library holds for it, and the code then still works', async () => {
    const form = await codeOf(pbk, PBK_CB);
    const placeholder = hashedClientPlaceholder(TEST_SECRET, 'pbk');
    for (const secret of [`${PBK_SECRET}x`, PBK_SECRET.slice(0, -1), placeholder, 'x']) {
      const res = await tokenRequest(pbk, 'pbk', secret, form);
      expect(res.status).toBe(401);
      expect(await errorOf(res)).toBe('invalid_client');
    }
    // Its registered way only: the right secret in the form is refused too.
    const viaForm = await posted({ ...form, client_id: 'pbk', client_secret: PBK_SECRET });
    expect(await errorOf(viaForm)).toBe('invalid_client');
    expect((await tokenRequest(pbk, 'pbk', PBK_SECRET, form)).status).toBe(200);
  });

  it('gives an Argon2id client (client_secret_post) its tokens for the right secret', async () => {
    const tokens = await codeFlow(await loggedInBrowser(gw.url), arg, ARG_CB);
    expect(tokens.claims()?.aud).toBe('arg');
  });

  it('refuses the Argon2id client a wrong secret, the placeholder and the right secret sent the other way', async () => {
    const form = await codeOf(arg, ARG_CB);
    for (const secret of [`${ARG_SECRET}x`, hashedClientPlaceholder(TEST_SECRET, 'arg')]) {
      const res = await posted({ ...form, client_id: 'arg', client_secret: secret });
      expect(res.status).toBe(401);
      expect(await errorOf(res)).toBe('invalid_client');
    }
    expect(await errorOf(await tokenRequest(arg, 'arg', ARG_SECRET, form))).toBe('invalid_client');
    const ok = await posted({ ...form, client_id: 'arg', client_secret: ARG_SECRET });
    expect(ok.status).toBe(200);
    expect(typeof ((await ok.json()) as { id_token?: unknown }).id_token).toBe('string');
  });

  it('keeps a client with a plain secret as it was', async () => {
    const app = await discoverClient(gw.url, 'app', APP_CLIENT_ENV.OIDC_CLIENTS_APP_CLIENT_SECRET);
    const tokens = await codeFlow(await loggedInBrowser(gw.url), app);
    expect(tokens.claims()?.aud).toBe('app');
  });
});

describe('a hashed client secret when the hash checks are overloaded', () => {
  jest.setTimeout(90_000);
  const BEE_SECRET = 'bcrypt-client-secret-0123456789-0123456789';
  const BEE_CB = 'https://bee.example.test/cb';
  let gw: RunningGateway & { dir: string };
  let bee: client.Configuration;
  let busy = false;

  beforeAll(async () => {
    const beeHash = await bcrypt.hash(BEE_SECRET, 4);
    const real = new NativePasswordHasher({ argon2: optionalModules.argon2 });
    // The real hasher, except that the client's check is refused as a full line refuses it while `busy`.
    const hasher: PasswordHasher = {
      verify: (password, hash, requester) =>
        busy && hash === beeHash ? Promise.reject(new PasswordHasherBusyError()) : real.verify(password, hash, requester),
      hash: (password) => real.hash(password),
      verifyDecoy: (password, requester) => real.verifyDecoy(password, requester),
    };
    gw = await startOidcGateway(
      { ...APP_CLIENT_ENV, OIDC_CLIENTS_BEE_CLIENT_ID: 'bee', OIDC_CLIENTS_BEE_CLIENT_SECRET_HASH: beeHash, OIDC_CLIENTS_BEE_REDIRECT_URIS: BEE_CB },
      { [TOKENS.PasswordHasher]: hasher },
    );
    bee = await discoverClient(gw.url, 'bee', BEE_SECRET);
  });
  afterAll(() => gw?.close());

  it('checks a bcrypt hash, and answers temporarily_unavailable (503), not invalid_client, while the line is full', async () => {
    const { callback, verifier } = await authorize(await loggedInBrowser(gw.url), bee, BEE_CB);
    const form = { grant_type: 'authorization_code', code: callback.searchParams.get('code') as string, redirect_uri: BEE_CB, code_verifier: verifier };
    expect(await errorOf(await tokenRequest(bee, 'bee', `${BEE_SECRET}x`, form))).toBe('invalid_client');
    busy = true;
    const refused = await tokenRequest(bee, 'bee', BEE_SECRET, form);
    expect(refused.status).toBe(503);
    expect(await errorOf(refused)).toBe('temporarily_unavailable');
    busy = false;
    expect((await tokenRequest(bee, 'bee', BEE_SECRET, form)).status).toBe(200);
  });
});
