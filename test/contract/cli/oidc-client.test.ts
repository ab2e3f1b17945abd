import { HashedClientSecrets } from '../../../src/adapters/crypto/hashed-client-secrets';
import { loadConfig } from '../../../src/composition/config';
import { TEST_SECRET } from '../../support/credentials';
import { runCli as cli } from '../../support/process';

// Each test starts a node process; on a busy two-core machine that alone can take seconds.
jest.setTimeout(60_000);

/** The `KEY=value` lines of a printed block, comments left out. */
const variables = (out: string): Record<string, string> =>
  Object.fromEntries(
    out
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

describe('portcullis oidc client add', () => {
  it('prints a client block with a new 43-character secret that the gateway accepts as it is', async () => {
    const run = await cli(['oidc', 'client', 'add', 'grafana', '--redirect-uri', 'https://grafana.example.com/login/generic_oauth', '--name', 'Grafana']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const vars = variables(run.stdout);
    expect(vars).toEqual({
      OIDC_CLIENTS_GRAFANA_CLIENT_ID: 'grafana',
      OIDC_CLIENTS_GRAFANA_CLIENT_SECRET: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      OIDC_CLIENTS_GRAFANA_REDIRECT_URIS: 'https://grafana.example.com/login/generic_oauth',
      OIDC_CLIENTS_GRAFANA_NAME: 'Grafana',
    });
    const loaded = loadConfig({
      env: { APP_URL: 'https://auth.example.com', SECRET: TEST_SECRET, USERS: 'alice:$2b$04$abcdefghijklmnopqrstuuVn1x3QUyb1WR6zBTBkzWz1QpXG8XHMm', ...vars },
    });
    expect(loaded.ok).toBe(true);
    const again = variables((await cli(['oidc', 'client', 'add', 'grafana'])).stdout);
    expect(again.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET).not.toBe(vars.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET);
  });

  it('--hashed prints the secret once, in a comment, and only its PBKDF2-SHA512 hash as a variable, which the gateway accepts and verifies', async () => {
    const run = await cli(['oidc', 'client', 'add', 'wiki', '--hashed', '--redirect-uri', 'https://wiki.example.com/cb']);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const vars = variables(run.stdout);
    expect(Object.keys(vars)).toEqual(['OIDC_CLIENTS_WIKI_CLIENT_ID', 'OIDC_CLIENTS_WIKI_CLIENT_SECRET_HASH', 'OIDC_CLIENTS_WIKI_REDIRECT_URIS']);
    const hash = vars.OIDC_CLIENTS_WIKI_CLIENT_SECRET_HASH.replace(/^'(.*)'$/, '$1');
    expect(hash).toMatch(/^\$pbkdf2-sha512\$310000\$[A-Za-z0-9./]{22}\$[A-Za-z0-9./]{86}$/);
    const secret = /the gateway keeps only its hash\): ([A-Za-z0-9_-]{43})$/m.exec(run.stdout)?.[1] as string;
    expect(secret).toBeDefined();
    expect(run.stdout).toContain(`OIDC_CLIENTS_WIKI_CLIENT_SECRET_HASH=${hash.replace(/\$/g, '$$$$')}`);
    const secrets = new HashedClientSecrets({
      verify: () => Promise.resolve(false),
      hash: () => Promise.reject(new Error('unused')),
      verifyDecoy: () => Promise.resolve(false),
    });
    await expect(secrets.verify(secret, hash)).resolves.toBe(true);
    await expect(secrets.verify(`${secret}x`, hash)).resolves.toBe(false);
    const loaded = loadConfig({
      env: {
        APP_URL: 'https://auth.example.com',
        SECRET: TEST_SECRET,
        USERS: 'alice:$2b$04$abcdefghijklmnopqrstuuVn1x3QUyb1WR6zBTBkzWz1QpXG8XHMm',
        ...vars,
        OIDC_CLIENTS_WIKI_CLIENT_SECRET_HASH: hash,
      },
    });
    expect(loaded.ok && loaded.config.oidc.clients[0]).toMatchObject({ clientId: 'wiki', secret: null, secretHash: hash });
    const both = await cli(['oidc', 'client', 'add', 'spa', '--hashed', '--public']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--public and --hashed do not go together/);
  });

  it('adds the back-channel logout URI the gateway then tells of every logout', async () => {
    const run = await cli([
      'oidc',
      'client',
      'add',
      'wiki',
      '--redirect-uri',
      'https://wiki.example.com/cb',
      '--backchannel-logout-uri',
      'http://wiki:8080/bcl',
    ]);
    expect(run.code).toBe(0);
    const vars = variables(run.stdout);
    expect(vars.OIDC_CLIENTS_WIKI_BACKCHANNEL_LOGOUT_URI).toBe('http://wiki:8080/bcl');
    const loaded = loadConfig({
      env: { APP_URL: 'https://auth.example.com', SECRET: TEST_SECRET, USERS: 'alice:$2b$04$abcdefghijklmnopqrstuuVn1x3QUyb1WR6zBTBkzWz1QpXG8XHMm', ...vars },
    });
    expect(loaded.ok && loaded.config.oidc.clients[0].backchannelLogout).toEqual({ uri: 'http://wiki:8080/bcl', sessionRequired: true });
  });

  it('prints a public client without a secret', async () => {
    const vars = variables((await cli(['oidc', 'client', 'add', 'my-spa', '--public', '--redirect-uri', 'http://localhost:5173/cb'])).stdout);
    expect(vars).toEqual({
      OIDC_CLIENTS_MY_SPA_CLIENT_ID: 'my-spa',
      OIDC_CLIENTS_MY_SPA_PUBLIC: 'true',
      OIDC_CLIENTS_MY_SPA_REDIRECT_URIS: 'http://localhost:5173/cb',
    });
  });

  it('has --help, and refuses a bad id or a missing one with exit code 2', async () => {
    expect((await cli(['oidc', 'client', 'add', '--help'])).stdout).toMatch(/^Usage: portcullis oidc client add/);
    expect((await cli(['oidc', 'client', 'add'])).code).toBe(2);
    expect((await cli(['oidc', 'client', 'add', 'bad id!'])).code).toBe(2);
    expect((await cli(['oidc', 'frob'])).code).toBe(2);
  });
});

describe('portcullis config check with OpenID Connect clients', () => {
  const env = {
    APP_URL: 'https://auth.example.com',
    SECRET: 'x'.repeat(40),
    USERS: 'alice:$2b$04$abcdefghijklmnopqrstuuVn1x3QUyb1WR6zBTBkzWz1QpXG8XHMm',
    OIDC_CLIENTS_GRAFANA_CLIENT_ID: 'grafana',
    OIDC_CLIENTS_GRAFANA_CLIENT_SECRET: 'grafana-secret-0123456789-0123456789',
    OIDC_CLIENTS_GRAFANA_REDIRECT_URIS: 'http://grafana.lan:3000/login/generic_oauth',
    OIDC_CLIENTS_GRAFANA_ALLOWED_GROUPS: 'admins',
  };

  it('sums the provider up and warns about a plain-http redirect URI outside localhost, exit code 0', async () => {
    const run = await cli(['config', 'check'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'OpenID Connect provider: issuer https://auth.example.com, discovery https://auth.example.com/.well-known/openid-configuration; clients grafana (restricted); signing key set kept in the state store',
    );
    expect(run.stderr).toContain('OIDC_CLIENTS_GRAFANA_REDIRECT_URIS: http://grafana.lan:3000/login/generic_oauth is plain http');
    expect(`${run.stdout}${run.stderr}`).not.toContain('grafana-secret-0123456789');
  });

  it('lists every client problem and exits non-zero, never showing a secret', async () => {
    const run = await cli(['config', 'check'], {
      env: {
        ...env,
        OIDC_CLIENTS_GRAFANA_CLIENT_SECRET: 'too-short-secret',
        OIDC_CLIENTS_OTHER_CLIENT_ID: 'grafana',
        OIDC_CLIENTS_OTHER_PUBLIC: 'true',
        OIDC_CLIENTS_OTHER_REDIRECT_URIS: 'cb',
      },
    });
    expect(run.code).not.toBe(0);
    const out = `${run.stdout}${run.stderr}`;
    expect(out).toContain('OIDC_CLIENTS_GRAFANA_CLIENT_SECRET must be at least 32 characters long');
    expect(out).toContain('OIDC_CLIENTS_OTHER_CLIENT_ID "grafana" is also the client id of OIDC_CLIENTS_GRAFANA');
    expect(out).toContain('OIDC_CLIENTS_OTHER_REDIRECT_URIS: "cb" is not an absolute URL');
    expect(out).not.toContain('too-short-secret');
  });
});
