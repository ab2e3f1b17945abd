import { askForwardAuth, forwardedFor, loginCookie, postJson } from './http';
import type { RunningGateway } from './server';
import { eventually } from './wait';

const APP = 'https://app.example.test/';

/**
 * Issue 32 on two replicas of one shared store: a token made on one passes on the other (the
 * record is read from the store on its first use there), and a token revoked on one stops on the
 * other as fast as a logout, though that replica had it in memory already.
 */
export function tokensAcrossReplicas(replicas: () => readonly [RunningGateway, RunningGateway]): void {
  const passes = async (gw: RunningGateway, token: string): Promise<boolean> =>
    (await askForwardAuth(gw, 'traefik', { 'portcullis-token': token, ...forwardedFor(APP) })).status === 200;

  it('a token made on one replica passes on the other, and once revoked on one stops on both', async () => {
    const [a, b] = replicas();
    const cookie = await loginCookie(a, 'alice', 'pw');
    const created = await postJson(a, '/api/account/tokens', { name: 'ci' }, { cookie });
    expect(created.status).toBe(201);
    const { token, id } = (await created.json()) as { token: string; id: string };
    expect(await passes(b, token)).toBe(true);
    expect(await passes(a, token)).toBe(true);
    const revoked = await postJson(a, '/api/account/tokens/revoke', { id }, { cookie });
    expect(revoked.status).toBe(200);
    expect(await passes(a, token)).toBe(false);
    expect(await eventually(async () => !(await passes(b, token)))).toBe(true);
  });
}
