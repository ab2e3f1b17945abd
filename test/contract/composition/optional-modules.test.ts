import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Builds a gateway from the built package with `env` and lists which optional libraries got loaded. */
function loadedOptionalModules(env: Record<string, string>): string[] {
  const script = `
    const { createGateway, loadConfig } = require('./dist/src/index');
    const loaded = loadConfig({ env: ${JSON.stringify(env)} });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const gateway = createGateway(loaded.config);
    const names = ['ioredis', 'pg', 'prom-client', 'pino-pretty', 'ldapts', 'simple-oauth2'];
    const seen = names.filter((n) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + n + '/')));
    process.stdout.write(JSON.stringify(seen));
    gateway.close().then(() => process.exit(0));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
}

const BASE = {
  APP_URL: 'https://auth.example.test',
  SECRET: 'optional-modules-test-secret-0123456789',
  USERS: 'alice:$2b$04$u9nEtFTybvuI5T54lCQAi.6buTHOmat3zJsyERUVDbjOc9N0o1kdS',
  LOG_LEVEL: 'silent',
};

describe('optional feature libraries', () => {
  it('are not loaded by a gateway that does not use them', () => {
    expect(loadedOptionalModules(BASE)).toEqual([]);
  });

  it('are loaded when their feature is configured: prom-client with METRICS_PORT, ioredis with REDIS_URL, pg with DATABASE_URL', () => {
    expect(loadedOptionalModules({ ...BASE, METRICS_PORT: '9464', REDIS_URL: 'redis://127.0.0.1:1' })).toEqual(['ioredis', 'prom-client']);
    expect(loadedOptionalModules({ ...BASE, DATABASE_URL: 'postgres://portcullis:pw@127.0.0.1:1/portcullis' })).toEqual(['pg']);
  });
});
