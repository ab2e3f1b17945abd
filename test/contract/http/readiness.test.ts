import type { ReadinessCheck } from '../../../src/application/readiness/readiness-check';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

describe('GET /api/ready and request ids', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
  });
  afterAll(() => gw.close());

  it('answers 200 Ready listing what it checked when every store answers', async () => {
    const res = await fetch(`${gw.url}/api/ready`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 200, code: 'ready', message: 'Ready', checks: { gateway: 'up' } });
  });

  it('gives a wrong method on the readiness path a 405 envelope with Allow', async () => {
    const res = await fetch(`${gw.url}/api/ready`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('returns a sane incoming X-Request-Id unchanged, on API and forward-auth answers', async () => {
    const api = await fetch(`${gw.url}/api/healthcheck`, { headers: { 'X-Request-Id': 'edge-1234.abc' } });
    const auth = await fetch(`${gw.url}/api/auth/traefik`, { headers: { 'X-Request-Id': 'edge-5678', Accept: 'application/json' } });
    expect(api.headers.get('x-request-id')).toBe('edge-1234.abc');
    expect(auth.headers.get('x-request-id')).toBe('edge-5678');
  });

  it('replaces a missing or unsafe X-Request-Id with a fresh one per request', async () => {
    const a = await fetch(`${gw.url}/api/healthcheck`, { headers: { 'X-Request-Id': 'bad id with spaces"{}' } });
    const b = await fetch(`${gw.url}/api/auth/nginx`);
    const c = await fetch(`${gw.url}/api/auth/nginx`, { headers: { 'X-Request-Id': 'x'.repeat(200) } });
    const ids = [a, b, c].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(new Set(ids).size).toBe(3);
  });
});

describe('readiness (load balancers) and health (monitoring) when a store is down', () => {
  const ldap: ReadinessCheck = { name: 'ldap', check: () => new Promise<void>(() => undefined) };
  const redis: ReadinessCheck = { name: 'redis', check: async () => Promise.reject(new Error('ECONNREFUSED')) };
  const revocations: ReadinessCheck = { name: 'revocations', gatesForwardAuth: true, check: async () => Promise.reject(new Error('not loaded')) };

  it('/api/ready stays 200 while only shared stores are down (this replica still answers forward auth), naming them as degraded', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` }, { [TOKENS.ReadinessChecks]: [redis, ldap] });
    try {
      const res = await fetch(`${gw.url}/api/ready`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 200,
        code: 'ready',
        message: 'Ready for forward auth; degraded: redis, ldap unavailable',
        checks: { redis: 'down', ldap: 'down' },
        degraded: ['redis', 'ldap'],
      });
    } finally {
      await gw.close();
    }
  });

  it('/api/health answers a 503 envelope listing every store that is down, within the probe timeout', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` }, { [TOKENS.ReadinessChecks]: [redis, ldap] });
    try {
      const res = await fetch(`${gw.url}/api/health`);
      expect(res.status).toBe(503);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({
        status: 503,
        code: 'unhealthy',
        message: 'Unhealthy: redis, ldap unavailable',
        checks: { redis: 'down', ldap: 'down' },
        down: ['redis', 'ldap'],
      });
    } finally {
      await gw.close();
    }
  });

  it('/api/ready is 503 when a check that gates forward auth is down (revocations not loaded)', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` }, { [TOKENS.ReadinessChecks]: [redis, revocations] });
    try {
      const res = await fetch(`${gw.url}/api/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        status: 503,
        code: 'not_ready',
        message: 'Not ready: redis, revocations unavailable',
        checks: { redis: 'down', revocations: 'down' },
        down: ['redis', 'revocations'],
      });
    } finally {
      await gw.close();
    }
  });

  it('/api/health is 200 healthy when every dependency answers, and accepts GET and HEAD only', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
    try {
      const res = await fetch(`${gw.url}/api/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 200, code: 'healthy', message: 'Healthy', checks: { gateway: 'up' } });
      expect((await fetch(`${gw.url}/api/health`, { method: 'POST' })).headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await gw.close();
    }
  });

  it('reports the gateway itself as down once a shutdown has begun', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
    await gw.gateway.shutdown();
    expect(await gw.gateway.useCases.checkReadiness.execute({ scope: 'forward_auth' })).toEqual({
      ok: false,
      error: { code: 'not_ready', checks: { gateway: 'down' }, down: ['gateway'] },
    });
    await gw.close();
  });
});
