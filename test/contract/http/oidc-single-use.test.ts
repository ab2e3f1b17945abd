import * as client from 'openid-client';
import { tempDataDir } from '../../support/data-dir';
import { APP_SECRET, authorize, CALLBACK, codeFlow, loggedInBrowser, tokenRequest, useOidcGateway } from '../../support/oidc-gateway';

const data = tempDataDir('portcullis-oidc-single-use');
afterAll(() => data.remove());

/** The same races against the store in this process and the embedded database (where reads wait for the file). */
describe.each([
  ['in memory', {}],
  ['in the embedded database', { DATA_DIR: data.dir }],
])('one code, one refresh token: single use under concurrency (%s)', (_name, env: Record<string, string>) => {
  const oidc = useOidcGateway(env);
  const at = (n: number, form: Record<string, string>): Promise<Response[]> =>
    Promise.all(Array.from({ length: n }, () => tokenRequest(oidc.app, 'app', APP_SECRET, form)));

  it.each([1, 2, 3])('redeems one code posted 8 times at once exactly once, and revokes the grant for the replays (round %i)', async () => {
    const { callback, verifier } = await authorize(await loggedInBrowser(oidc.gw.url), oidc.app, CALLBACK);
    const form = { grant_type: 'authorization_code', code: callback.searchParams.get('code') as string, redirect_uri: CALLBACK, code_verifier: verifier };
    const answers = await at(8, form);
    const bodies = (await Promise.all(answers.map((res) => res.json()))) as { access_token?: string; error?: string }[];
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    expect(bodies.filter((b) => b.access_token === undefined).map((b) => b.error)).toEqual(Array(7).fill('invalid_grant'));
    // A replayed code means it leaked: the grant is revoked, the token the winner got with it.
    const winner = bodies.find((b) => b.access_token !== undefined)?.access_token as string;
    expect((await client.tokenIntrospection(oidc.app, winner)).active).toBe(false);
  });

  it.each([1, 2, 3])('rotates one refresh token posted 8 times at once exactly once (round %i)', async () => {
    const tokens = await codeFlow(await loggedInBrowser(oidc.gw.url), oidc.app, CALLBACK, { scope: 'openid offline_access', prompt: 'consent' });
    const answers = await at(8, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
    const bodies = (await Promise.all(answers.map((res) => res.json()))) as { refresh_token?: string; error?: string }[];
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    expect(bodies.filter((b) => b.refresh_token === undefined).map((b) => b.error)).toEqual(Array(7).fill('invalid_grant'));
  });
});
