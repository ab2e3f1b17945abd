import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Builds a gateway from the built package with `env` and lists which optional libraries got loaded. */
function loadedOptionalModules(env: Record<string, string>): string[] {
  const script = `
    const { createGateway, loadConfig } = require('./dist/src/index');
    const loaded = loadConfig({ env: ${JSON.stringify(env)} });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const gateway = createGateway(loaded.config);
    const names = ['ioredis', 'pg', 'prom-client', 'pino-pretty', 'ldapts', 'simple-oauth2', 'better-sqlite3', 'yaml', 'qrcode', 'otplib'];
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
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-modules-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are not loaded by a gateway that does not use them', () => {
    expect(loadedOptionalModules(BASE)).toEqual([]);
  });

  it('are loaded when their feature is configured: prom-client with METRICS_PORT, ioredis with REDIS_URL, pg with DATABASE_URL', () => {
    expect(loadedOptionalModules({ ...BASE, METRICS_PORT: '9464', REDIS_URL: 'redis://127.0.0.1:1' })).toEqual(['ioredis', 'prom-client']);
    expect(loadedOptionalModules({ ...BASE, DATABASE_URL: 'postgres://portcullis:pw@127.0.0.1:1/portcullis' })).toEqual(['pg']);
  });

  it('are loaded when their feature is configured: ldapts with LDAP_ADDRESS, simple-oauth2 with an OAuth provider, better-sqlite3 with DATA_DIR', () => {
    expect(loadedOptionalModules({ ...BASE, LDAP_ADDRESS: 'ldap://127.0.0.1:1', LDAP_BASE_DN: 'dc=example,dc=test' })).toEqual(['ldapts']);
    expect(loadedOptionalModules({ ...BASE, GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret', OAUTH_WHITELIST: '*@example.test' })).toEqual([
      'simple-oauth2',
    ]);
    expect(loadedOptionalModules({ ...BASE, DATA_DIR: join(dir, 'data') })).toEqual(['better-sqlite3']);
  });

  it('load yaml for ACCESS_CONFIG and for a USERS_FILE in the YAML form, not for one in the line form', () => {
    const [hash] = BASE.USERS.split(':').slice(1);
    const lines = join(dir, 'users.txt');
    writeFileSync(lines, `bob:${hash}\n`);
    const yamlUsers = join(dir, 'users.yml');
    writeFileSync(yamlUsers, `users:\n  - username: bob\n    password: "${hash}"\n`);
    const rules = join(dir, 'access.yml');
    writeFileSync(rules, 'default:\n  users:\n    allow: [alice]\n');
    expect(loadedOptionalModules({ ...BASE, USERS_FILE: lines })).toEqual([]);
    expect(loadedOptionalModules({ ...BASE, USERS_FILE: yamlUsers })).toEqual(['yaml']);
    expect(loadedOptionalModules({ ...BASE, ACCESS_CONFIG: rules })).toEqual(['yaml']);
  });
});
