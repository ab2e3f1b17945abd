import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Builds a gateway and its app from the built package with `env`; what it loaded: optional libraries, and its own modules (paths under dist/src). */
function loadedModules(env: Record<string, string>): { libraries: string[]; own: string[] } {
  const script = `
    const { createGateway, loadConfig } = require('./dist/src/index');
    const loaded = loadConfig({ env: ${JSON.stringify(env)} });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const gateway = createGateway(loaded.config);
    // The Koa app is built as a listening gateway builds it (the OIDC provider's HTTP face with it).
    void gateway.app;
    const names = ['ioredis', 'pg', 'prom-client', 'pino-pretty', 'ldapts', 'simple-oauth2', 'better-sqlite3', 'yaml', 'qrcode', 'otplib', 'jose'];
    const files = Object.keys(require.cache);
    const libraries = names.filter((n) => files.some((k) => k.includes('/node_modules/' + n + '/')));
    const own = files.filter((k) => k.includes('/dist/src/')).map((k) => k.slice(k.indexOf('/dist/src/') + '/dist/src/'.length));
    process.stdout.write(JSON.stringify({ libraries, own }));
    gateway.close().then(() => process.exit(0));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as { libraries: string[]; own: string[] };
}

/** Which optional libraries a gateway built with `env` loaded. */
function loadedOptionalModules(env: Record<string, string>): string[] {
  return loadedModules(env).libraries;
}

/**
 * The gateway's own modules that only a feature it is not configured with needs (ADR 0015): the
 * Redis and PostgreSQL connections and state stores, the LDAP user store, the OAuth provider
 * adapters, the Prometheus metrics and the OpenID Connect provider's own code (an OIDC client).
 */
const FEATURE_MODULES: Record<string, RegExp> = {
  redis: /^adapters\/state\/redis\//,
  postgres: /^adapters\/state\/postgres\//,
  ldap: /^adapters\/users\/ldap-user-store/,
  oauthProviders: /^adapters\/providers\/(github|google|generic)-oauth-provider/,
  metrics: /^adapters\/metrics\/prometheus-metrics/,
  oidcProvider:
    /^(adapters\/oidc\/(oidc-provider-http|oidc-pages|configured-oidc-clients|artifact-oidc-accounts)|application\/oidc\/(authorize-oidc-login|find-oidc-account))\./,
  jwtIssuers: /^(adapters\/jwt\/|application\/tokens\/jwt-authenticator\.)/,
};

/** The CLI's modules for its commands other than serving (the doctor, the sessions, passkeys and OIDC keys tooling, the QR renderer). */
const CLI_COMMANDS = /^(cli\/(doctor\/|commands\/(sessions-command|passkeys-command|oidc-keys-command))|adapters\/qrcode\/qr-code)/;

/** The CLI's own modules that `dist/src/main.js` loaded, running `args` (`serve --help` and `version` print and return: no gateway starts). */
function cliModulesLoadedBy(args: string[]): string[] {
  const script = `
    const { runPortcullis } = require('./dist/src/cli/run-portcullis');
    const io = { out: () => undefined, err: () => undefined };
    runPortcullis(${JSON.stringify(args)}, {}, io).then(() => {
      const own = Object.keys(require.cache).filter((k) => k.includes('/dist/src/')).map((k) => k.slice(k.indexOf('/dist/src/') + '/dist/src/'.length));
      process.stdout.write(JSON.stringify(own.filter((f) => ${CLI_COMMANDS.toString()}.test(f))));
    });
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
}

/** Which of FEATURE_MODULES' groups a gateway built with `env` loaded any module of. */
function loadedFeatureModules(env: Record<string, string>): string[] {
  const { own } = loadedModules(env);
  return Object.keys(FEATURE_MODULES).filter((group) => own.some((file) => FEATURE_MODULES[group].test(file)));
}

const JWT_ISSUER = { JWT_ISSUERS_CI_ISSUER: 'https://token.ci.example.test', JWT_ISSUERS_CI_AUDIENCE: 'https://auth.example.test' };

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

  it('load jose with a workload JWT issuer', () => {
    expect(loadedOptionalModules({ ...BASE, ...JWT_ISSUER })).toEqual(['jose']);
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

  it("leave the gateway's own code for an unconfigured feature unloaded: Redis and PostgreSQL stores, LDAP, OAuth providers, metrics, the OIDC provider", () => {
    expect(loadedFeatureModules(BASE)).toEqual([]);
    // The bench's configuration: the embedded database in DATA_DIR.
    expect(loadedFeatureModules({ ...BASE, DATA_DIR: join(dir, 'data-own') })).toEqual([]);
  });

  it("load the gateway's own code for a configured feature with it: REDIS_URL, DATABASE_URL, LDAP_ADDRESS, an OAuth provider, METRICS_PORT, an OIDC client, a JWT issuer", () => {
    expect(loadedFeatureModules({ ...BASE, REDIS_URL: 'redis://127.0.0.1:1' })).toEqual(['redis']);
    expect(loadedFeatureModules({ ...BASE, DATABASE_URL: 'postgres://portcullis:pw@127.0.0.1:1/portcullis' })).toEqual(['postgres']);
    expect(loadedFeatureModules({ ...BASE, LDAP_ADDRESS: 'ldap://127.0.0.1:1', LDAP_BASE_DN: 'dc=example,dc=test' })).toEqual(['ldap']);
    expect(loadedFeatureModules({ ...BASE, GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret', OAUTH_WHITELIST: '*@example.test' })).toEqual([
      'oauthProviders',
    ]);
    expect(loadedFeatureModules({ ...BASE, METRICS_PORT: '9464' })).toEqual(['metrics']);
    expect(
      loadedFeatureModules({
        ...BASE,
        OIDC_CLIENTS_APP_CLIENT_ID: 'app',
        OIDC_CLIENTS_APP_CLIENT_SECRET: 'app-secret-0123456789-0123456789-abcdef',
        OIDC_CLIENTS_APP_REDIRECT_URIS: 'https://rp.example.test/callback',
      }),
    ).toEqual(['oidcProvider']);
    expect(loadedFeatureModules({ ...BASE, ...JWT_ISSUER })).toEqual(['jwtIssuers']);
  });

  it("load the CLI's doctor, sessions, passkeys and oidc keys commands only when they are run, not with serve", () => {
    expect(cliModulesLoadedBy(['serve', '--help'])).toEqual([]);
    expect(cliModulesLoadedBy(['--help'])).toEqual([]);
    expect(cliModulesLoadedBy(['doctor', '--help'])).toEqual(expect.arrayContaining(['cli/doctor/doctor-command.js']));
    expect(cliModulesLoadedBy(['sessions', '--help'])).toEqual(['cli/commands/sessions-command.js']);
    expect(cliModulesLoadedBy(['passkeys', '--help'])).toEqual(['cli/commands/passkeys-command.js']);
    expect(cliModulesLoadedBy(['oidc', 'keys', '--help'])).toEqual(['cli/commands/oidc-keys-command.js']);
  });
});
