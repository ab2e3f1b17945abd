import { hashOf, startGateway, type RunningGateway } from '../../support/server';
import { expectEnvelope } from '../../support/http';

describe('GET /api/oauth/url/:provider and /api/oauth/callback/:provider without OAuth configured', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
  });
  afterAll(() => gw.close());

  it.each(['url', 'callback'])('answers an unknown provider on %s with 400 naming the three kinds', async (kind) => {
    const body = await expectEnvelope(await fetch(`${gw.url}/api/oauth/${kind}/twitter?redirect_uri=x&code=y`, { redirect: 'manual' }), 400);
    expect(body.message).toMatch(/github/);
    expect(body.message).toMatch(/google/);
    expect(body.message).toMatch(/generic/);
  });

  it.each([
    ['url', 'github'], ['url', 'google'], ['url', 'generic'],
    ['callback', 'github'], ['callback', 'google'], ['callback', 'generic'],
  ])('answers %s for the unconfigured provider %s with 404', async (kind, provider) => {
    const body = await expectEnvelope(await fetch(`${gw.url}/api/oauth/${kind}/${provider}?redirect_uri=https%3A%2F%2Fapp.example.test%2F&code=abc`, { redirect: 'manual' }), 404);
    expect(body.message).toContain(provider);
  });

  it('answers a wrong method with 405', async () => {
    const res = await fetch(`${gw.url}/api/oauth/url/github`, { method: 'POST' });
    await expectEnvelope(res, 405);
  });

  it('answers a path with no provider with 404', async () => {
    await expectEnvelope(await fetch(`${gw.url}/api/oauth/url`), 404);
  });
});
