import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

describe('GET /api/healthcheck', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
  });
  afterAll(() => gw.close());

  it('answers 200 OK as a no-store JSON envelope', async () => {
    const res = await fetch(`${gw.url}/api/healthcheck`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 200, code: 'ok', message: 'OK' });
  });

  it('answers HEAD with the status and no body', async () => {
    const res = await fetch(`${gw.url}/api/healthcheck`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('gives a wrong method on a known path a 405 envelope with Allow', async () => {
    const res = await fetch(`${gw.url}/api/healthcheck`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await res.json()).toEqual({ status: 405, code: 'method_not_allowed', message: 'Method not allowed' });
  });

  it('gives an unknown API path a 404 envelope', async () => {
    const res = await fetch(`${gw.url}/api/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ status: 404, code: 'not_found', message: 'Not found' });
  });
});
