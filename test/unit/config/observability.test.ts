import { loadConfig } from '../../../src/composition/config';

const BASE = { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40), USERS: 'alice:$2b$04$abcdefghijklmnopqrstuu9bDhBNMCs2l5RVrXXqQ5aDwIr0zMVGa' };

describe('configuration of shared state and observability', () => {
  it('keeps state in memory and metrics off by default', () => {
    const r = loadConfig({ env: BASE });
    expect(r.ok && [r.config.redis, r.config.metricsPort, r.config.redisPrefix]).toEqual([null, null, 'portcullis:']);
  });

  it('reads REDIS_URL, REDIS_PREFIX and METRICS_PORT, also as flags', () => {
    const r = loadConfig({ env: BASE, argv: ['--redis-url', 'redis://r:6379', '--redis-prefix=pc:', '--metrics-port', '9100'] });
    expect(r.ok && r.config.redis).toMatchObject({ kind: 'standalone', host: 'r' });
    expect(r.ok && [r.config.redisPrefix, r.config.metricsPort]).toEqual(['pc:', 9100]);
  });

  it('reports a bad REDIS_URL among the other problems without echoing its password', () => {
    const r = loadConfig({ env: { ...BASE, REDIS_URL: 'redis://:topsecret@h/x', METRICS_PORT: 'lots' } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.join('\n')).toMatch(/REDIS_URL/);
    expect(r.problems.join('\n')).toMatch(/METRICS_PORT/);
    expect(r.problems.join('\n')).not.toContain('topsecret');
  });

  it('reads REDIS_URL from a file', () => {
    const r = loadConfig({ env: { ...BASE, REDIS_URL_FILE: '/run/secrets/redis' }, readFile: () => 'rediss://:pw@cache:6380\n' });
    expect(r.ok && r.config.redis).toMatchObject({ tls: true, port: 6380, password: 'pw' });
  });
});
