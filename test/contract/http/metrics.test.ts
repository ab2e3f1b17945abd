import { freePort } from '../../support/net';
import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

const json = { 'Content-Type': 'application/json' };

/** The value of one sample line, e.g. `name{a="b"} 3`, or null when absent. */
function sample(text: string, name: string, labels: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`) || (labels === '' && l.startsWith(`${name} `)));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('Prometheus metrics', () => {
  let gw: RunningGateway;
  let metricsUrl: string;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}`, LOGIN_MAX_RETRIES: '2', METRICS_PORT: String(await freePort()) });
    const listening = await gw.gateway.listenMetrics(0, '127.0.0.1');
    metricsUrl = `http://127.0.0.1:${listening?.port}/metrics`;
  });
  afterAll(() => gw.close());

  it('serve forward-auth decisions by proxy and outcome, with a latency histogram', async () => {
    await fetch(`${gw.url}/api/auth/traefik`, { headers: { Accept: 'application/json' } });
    await fetch(`${gw.url}/api/auth/caddy`, { headers: { Authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` } });
    await fetch(`${gw.url}/api/auth/squid`);
    const text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'portcullis_forward_auth_decisions_total', 'proxy="traefik",outcome="unauthenticated"')).toBe(1);
    expect(sample(text, 'portcullis_forward_auth_decisions_total', 'proxy="caddy",outcome="allowed"')).toBe(1);
    expect(sample(text, 'portcullis_forward_auth_decisions_total', 'proxy="unknown",outcome="bad_request"')).toBe(1);
    expect(sample(text, 'portcullis_forward_auth_decisions_total', 'proxy="nginx",outcome="allowed"')).toBe(0);
    expect(sample(text, 'portcullis_forward_auth_duration_seconds_count', 'proxy="traefik"')).toBe(1);
  });

  it('serve login outcomes by method and count locks', async () => {
    const login = (password: string) => fetch(`${gw.url}/api/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: 'alice', password }) });
    await login('pw');
    await login('bad');
    await login('bad');
    await login('pw');
    const text = await (await fetch(metricsUrl)).text();
    expect(sample(text, 'portcullis_logins_total', 'method="password",outcome="succeeded"')).toBe(1);
    expect(sample(text, 'portcullis_logins_total', 'method="password",outcome="failed"')).toBe(2);
    expect(sample(text, 'portcullis_logins_total', 'method="password",outcome="locked"')).toBe(1);
    expect(sample(text, 'portcullis_logins_total', 'method="basic",outcome="succeeded"')).toBe(1);
    expect(sample(text, 'portcullis_login_locks_total', '')).toBe(1);
    expect(text).toContain('portcullis_http_request_duration_seconds_bucket');
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('answer only GET /metrics on the metrics port', async () => {
    const res = await fetch(metricsUrl.replace('/metrics', '/api/healthcheck'));
    expect(res.status).toBe(404);
  });

  it('are off without METRICS_PORT: no endpoint is started', async () => {
    const plain = await startGateway({ USERS: `alice:${hashOf('pw')}` });
    expect(await plain.gateway.listenMetrics(0, '127.0.0.1')).toBeNull();
    await plain.close();
  });
});
