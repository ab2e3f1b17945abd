import { generateKeyPairSync } from 'node:crypto';
import { configWarnings, loadConfig } from '../../../src/composition/config';
import { unknownOptionWarnings } from '../../../src/config/option-docs';
import { TEST_SECRET } from '../../support/credentials';

const SECRET32 = 'x'.repeat(32);
const base = { APP_URL: 'https://auth.example.com', SECRET: TEST_SECRET, USERS: 'alice:$2b$04$abcdefghijklmnopqrstuuVn1x3QUyb1WR6zBTBkzWz1QpXG8XHMm' };
const load = (env: Record<string, string>, files: Record<string, string> = {}) =>
  loadConfig({
    env: { ...base, ...env },
    readFile: (p) => {
      if (p in files) return files[p];
      throw new Error('ENOENT');
    },
  });
const problemsOf = (env: Record<string, string>, files: Record<string, string> = {}): string[] => {
  const loaded = load(env, files);
  return loaded.ok ? [] : loaded.problems;
};
const client = (id: string, extra: Record<string, string> = {}) => ({
  [`OIDC_CLIENTS_${id}_CLIENT_ID`]: id.toLowerCase(),
  [`OIDC_CLIENTS_${id}_CLIENT_SECRET`]: SECRET32,
  [`OIDC_CLIENTS_${id}_REDIRECT_URIS`]: `https://${id.toLowerCase()}.example.com/cb`,
  ...extra,
});

describe('OIDC_CLIENTS_<ID>_* configuration', () => {
  it('is off without clients', () => {
    const loaded = load({});
    expect(loaded.ok && loaded.config.oidc.clients).toEqual([]);
  });

  it('reads a confidential and a public client, lists and all', () => {
    const loaded = load({
      ...client('GRAFANA', {
        OIDC_CLIENTS_GRAFANA_REDIRECT_URIS: 'https://grafana.example.com/login/generic_oauth, https://g2.example.com/cb',
        OIDC_CLIENTS_GRAFANA_ALLOWED_GROUPS: 'admins,ops',
        OIDC_CLIENTS_GRAFANA_NAME: 'Grafana',
      }),
      OIDC_CLIENTS_SPA_CLIENT_ID: 'spa',
      OIDC_CLIENTS_SPA_PUBLIC: 'true',
      OIDC_CLIENTS_SPA_REDIRECT_URIS: 'http://localhost:5173/cb',
    });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config.oidc.clients).toEqual([
      {
        clientId: 'grafana',
        name: 'Grafana',
        secret: SECRET32,
        tokenEndpointAuthMethod: 'client_secret_basic',
        redirectUris: ['https://grafana.example.com/login/generic_oauth', 'https://g2.example.com/cb'],
        postLogoutRedirectUris: [],
        allowedUsers: [],
        allowedGroups: ['admins', 'ops'],
        scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
      },
      expect.objectContaining({ clientId: 'spa', secret: null, redirectUris: ['http://localhost:5173/cb'] }),
    ]);
    expect(configWarnings(loaded.config)).toEqual([]);
  });

  it('reads _SCOPES (space or comma separated), and refuses an unknown scope or a list without openid', () => {
    const loaded = load(client('NARROW', { OIDC_CLIENTS_NARROW_SCOPES: 'openid, profile openid' }));
    expect(loaded.ok && loaded.config.oidc.clients[0].scopes).toEqual(['openid', 'profile']);
    const bad = load({ ...client('A', { OIDC_CLIENTS_A_SCOPES: 'openid phone' }), ...client('B', { OIDC_CLIENTS_B_SCOPES: 'email' }) });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/OIDC_CLIENTS_A_SCOPES: unknown scope phone/),
        expect.stringMatching(/OIDC_CLIENTS_B_SCOPES must include openid/),
      ]),
    );
  });

  it('reads _BACKCHANNEL_LOGOUT_URI and _SESSION_REQUIRED (default true), the retry bound, and refuses a bad one', () => {
    const loaded = load({
      ...client('WIKI', { OIDC_CLIENTS_WIKI_BACKCHANNEL_LOGOUT_URI: 'http://wiki:8080/logout' }),
      ...client('CHAT', {
        OIDC_CLIENTS_CHAT_BACKCHANNEL_LOGOUT_URI: 'https://chat.example.com/bcl',
        OIDC_CLIENTS_CHAT_BACKCHANNEL_LOGOUT_SESSION_REQUIRED: 'false',
      }),
      ...client('PLAIN'),
      OIDC_BACKCHANNEL_LOGOUT_RETRY: '600',
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const byId = Object.fromEntries(loaded.config.oidc.clients.map((c) => [c.clientId, c.backchannelLogout]));
    expect(byId).toEqual({
      wiki: { uri: 'http://wiki:8080/logout', sessionRequired: true },
      chat: { uri: 'https://chat.example.com/bcl', sessionRequired: false },
      plain: undefined,
    });
    expect(loaded.config.oidc.backchannelLogoutRetrySeconds).toBe(600);
    const front = load({
      ...client('WIKI', { OIDC_CLIENTS_WIKI_FRONTCHANNEL_LOGOUT_URI: 'https://wiki.example.com/fcl' }),
      ...client('CHAT', {
        OIDC_CLIENTS_CHAT_FRONTCHANNEL_LOGOUT_URI: 'https://chat.example.com/fcl',
        OIDC_CLIENTS_CHAT_FRONTCHANNEL_LOGOUT_SESSION_REQUIRED: 'false',
      }),
    });
    if (!front.ok) throw new Error(front.problems.join('; '));
    expect(front.config.oidc.clients.map((c) => c.frontchannelLogout)).toEqual([
      { uri: 'https://chat.example.com/fcl', sessionRequired: false },
      { uri: 'https://wiki.example.com/fcl', sessionRequired: true },
    ]);
    expect(problemsOf(client('D', { OIDC_CLIENTS_D_FRONTCHANNEL_LOGOUT_URI: 'https://d.example.com/x#frag' }))).toEqual([
      expect.stringContaining('OIDC_CLIENTS_D_FRONTCHANNEL_LOGOUT_URI: "https://d.example.com/x#frag" must not have a fragment'),
    ]);
    expect((load(client('PLAIN')) as { config: { oidc: { backchannelLogoutRetrySeconds: number } } }).config.oidc.backchannelLogoutRetrySeconds).toBe(3600);
    expect(
      problemsOf({
        ...client('A', { OIDC_CLIENTS_A_BACKCHANNEL_LOGOUT_URI: 'wiki/logout' }),
        ...client('B', { OIDC_CLIENTS_B_BACKCHANNEL_LOGOUT_URI: 'ftp://b.example.com/x' }),
        ...client('C', { OIDC_CLIENTS_C_BACKCHANNEL_LOGOUT_SESSION_REQUIRED: 'yes' }),
        OIDC_BACKCHANNEL_LOGOUT_RETRY: '0',
      }),
    ).toEqual(
      expect.arrayContaining([
        expect.stringContaining('OIDC_CLIENTS_A_BACKCHANNEL_LOGOUT_URI: "wiki/logout" is not an absolute URL'),
        expect.stringContaining('OIDC_CLIENTS_B_BACKCHANNEL_LOGOUT_URI: "ftp://b.example.com/x" must be an http or https URL'),
        'OIDC_CLIENTS_C_BACKCHANNEL_LOGOUT_SESSION_REQUIRED must be true or false',
        'OIDC_CLIENTS_C_BACKCHANNEL_LOGOUT_SESSION_REQUIRED is set but OIDC_CLIENTS_C_BACKCHANNEL_LOGOUT_URI is not',
        expect.stringContaining('OIDC_BACKCHANNEL_LOGOUT_RETRY'),
      ]),
    );
  });

  it('reads the secret from _CLIENT_SECRET_FILE', () => {
    const env = Object.fromEntries(Object.entries(client('APP')).filter(([name]) => name !== 'OIDC_CLIENTS_APP_CLIENT_SECRET'));
    const loaded = load({ ...env, OIDC_CLIENTS_APP_CLIENT_SECRET_FILE: '/run/secrets/app' }, { '/run/secrets/app': `${SECRET32}\n` });
    expect(loaded.ok && loaded.config.oidc.clients[0].secret).toBe(SECRET32);
  });

  describe('_CLIENT_SECRET_HASH', () => {
    const PBKDF2 = '$pbkdf2-sha512$310000$ABEiM0RVZneImaq7zN3u/w$.OUuabjCrtny4s8pC5zN8geJy/npgeVsG4i1D4bOb6QRuMP/f6ZycaL26GeQhitfcYsj6.4aCRSJ0MTGQgUjlQ';
    const hashed = (id: string, extra: Record<string, string> = {}): Record<string, string> => {
      const env: Record<string, string> = { ...client(id), [`OIDC_CLIENTS_${id}_CLIENT_SECRET_HASH`]: PBKDF2 };
      delete env[`OIDC_CLIENTS_${id}_CLIENT_SECRET`];
      return { ...env, ...extra };
    };

    it('reads a hashed secret, or its _FILE, as a confidential client without a plain secret', () => {
      const loaded = load(hashed('APP', { OIDC_CLIENTS_APP_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post' }));
      expect(loaded.ok && loaded.config.oidc.clients[0]).toMatchObject({
        clientId: 'app',
        secret: null,
        secretHash: PBKDF2,
        tokenEndpointAuthMethod: 'client_secret_post',
      });
      const env = hashed('APP');
      delete env.OIDC_CLIENTS_APP_CLIENT_SECRET_HASH;
      const fromFile = load({ ...env, OIDC_CLIENTS_APP_CLIENT_SECRET_HASH_FILE: '/run/secrets/app-hash' }, { '/run/secrets/app-hash': `${PBKDF2}\n` });
      expect(fromFile.ok && fromFile.config.oidc.clients[0]).toMatchObject({ secret: null, secretHash: PBKDF2 });
      expect(unknownOptionWarnings({ ...env, OIDC_CLIENTS_APP_CLIENT_SECRET_HASH_FILE: '/x', OIDC_CLIENTS_B_CLIENT_SECRET_HASH: PBKDF2 })).toEqual([]);
    });

    it('takes bcrypt and Argon2 hashes too', () => {
      for (const hash of [`$2b$10$${'a'.repeat(53)}`, `$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`])
        expect(problemsOf(hashed('APP', { OIDC_CLIENTS_APP_CLIENT_SECRET_HASH: hash }))).toEqual([]);
    });

    it('refuses both a secret and its hash, a hash on a public client, client_secret_jwt, and a hash it cannot verify, never repeating it', () => {
      const problems = problemsOf({
        ...hashed('BOTH', { OIDC_CLIENTS_BOTH_CLIENT_SECRET: SECRET32 }),
        ...hashed('PUB', { OIDC_CLIENTS_PUB_PUBLIC: 'true' }),
        ...hashed('JWT', { OIDC_CLIENTS_JWT_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_jwt' }),
        ...hashed('SHA', { OIDC_CLIENTS_SHA_CLIENT_SECRET_HASH: '$6$rounds=5000$saltsalt$secretlookinghash' }),
        ...hashed('SLOW', { OIDC_CLIENTS_SLOW_CLIENT_SECRET_HASH: PBKDF2.replace('$310000$', '$90000000$') }),
        ...hashed('PLAIN', { OIDC_CLIENTS_PLAIN_CLIENT_SECRET_HASH: SECRET32 }),
      });
      expect(problems).toEqual([
        'OIDC_CLIENTS_BOTH_CLIENT_SECRET and OIDC_CLIENTS_BOTH_CLIENT_SECRET_HASH are both set: give the client its secret one way, not both',
        expect.stringMatching(
          /^OIDC_CLIENTS_JWT_TOKEN_ENDPOINT_AUTH_METHOD client_secret_jwt needs the plain secret .* use client_secret_basic or client_secret_post$/,
        ),
        expect.stringMatching(/^OIDC_CLIENTS_PLAIN_CLIENT_SECRET_HASH: it must be a bcrypt .* or PBKDF2/),
        'OIDC_CLIENTS_PUB_CLIENT_SECRET_HASH is set but OIDC_CLIENTS_PUB_PUBLIC=true: a public client has no secret (it uses PKCE)',
        expect.stringMatching(/^OIDC_CLIENTS_SHA_CLIENT_SECRET_HASH: a SHA-512 crypt hash cannot be verified/),
        'OIDC_CLIENTS_SLOW_CLIENT_SECRET_HASH: PBKDF2 iterations 90000000 are outside 1000 to 2000000',
      ]);
      expect(problems.join('\n')).not.toContain(SECRET32);
      expect(problems.join('\n')).not.toContain('secretlookinghash');
      expect(problems.join('\n')).not.toContain('.OUuab');
    });
  });

  it('reports every problem at once, never a secret', () => {
    const problems = problemsOf({
      ...client('A'),
      ...client('B', { OIDC_CLIENTS_B_CLIENT_ID: 'a' }),
      ...client('C', { OIDC_CLIENTS_C_CLIENT_SECRET: 'short-secret-value', OIDC_CLIENTS_C_REDIRECT_URIS: '/relative/cb' }),
      OIDC_CLIENTS_D_CLIENT_ID: 'd',
      OIDC_CLIENTS_D_REDIRECT_URIS: 'https://d.example.com/cb#frag',
      OIDC_CLIENTS_E_NAME: 'no id',
      ...client('F', { OIDC_CLIENTS_F_PUBLIC: 'true' }),
      ...client('G', { OIDC_CLIENTS_G_PUBLIC: 'maybe', OIDC_CLIENTS_G_TOKEN_ENDPOINT_AUTH_METHOD: 'private_key_jwt' }),
      OIDC_CLIENTS_H_CLIENT_ID: 'h',
      OIDC_CLIENTS_H_CLIENT_SECRET: SECRET32,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/OIDC_CLIENTS_B_CLIENT_ID "a" is also the client id of OIDC_CLIENTS_A.*unique/),
        expect.stringMatching(/OIDC_CLIENTS_C_CLIENT_SECRET must be at least 32 characters/),
        expect.stringMatching(/OIDC_CLIENTS_C_REDIRECT_URIS: "\/relative\/cb" is not an absolute URL/),
        expect.stringMatching(/OIDC_CLIENTS_D_CLIENT_SECRET \(or OIDC_CLIENTS_D_CLIENT_SECRET_FILE\) is required/),
        expect.stringMatching(/OIDC_CLIENTS_D_REDIRECT_URIS: .* must not have a fragment/),
        expect.stringMatching(/OIDC_CLIENTS_E_CLIENT_ID is required/),
        expect.stringMatching(/OIDC_CLIENTS_F_CLIENT_SECRET is set but OIDC_CLIENTS_F_PUBLIC=true/),
        expect.stringMatching(/OIDC_CLIENTS_G_PUBLIC must be true or false/),
        expect.stringMatching(/OIDC_CLIENTS_G_TOKEN_ENDPOINT_AUTH_METHOD must be/),
        expect.stringMatching(/OIDC_CLIENTS_H_REDIRECT_URIS is required/),
      ]),
    );
    expect(problems.join('\n')).not.toContain('short-secret-value');
    expect(problems.join('\n')).not.toContain(SECRET32);
  });

  it('allows a plain-http redirect URI outside localhost with a warning, and localhost without one', () => {
    const loaded = load({ ...client('LAN', { OIDC_CLIENTS_LAN_REDIRECT_URIS: 'http://nas.lan:8080/cb,http://localhost:3000/cb,http://127.0.0.1:9/cb' }) });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const warnings = configWarnings(loaded.config);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/OIDC_CLIENTS_LAN_REDIRECT_URIS: http:\/\/nas\.lan:8080\/cb is plain http/);
  });

  it('accepts OIDC_SIGNING_KEY_FILE with a private RSA key of 2048 bits or more, and refuses anything else without repeating it', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const loaded = load({ ...client('A'), OIDC_SIGNING_KEY_FILE: '/k/rsa.pem' }, { '/k/rsa.pem': rsa });
    expect(loaded.ok && loaded.config.oidc.signingKeyPem).toBe(rsa);
    expect(problemsOf({ OIDC_SIGNING_KEY_FILE: '/k/small.pem' }, { '/k/small.pem': small })).toEqual([
      'OIDC_SIGNING_KEY_FILE: the RSA key must be at least 2048 bits',
    ]);
    expect(problemsOf({ OIDC_SIGNING_KEY_FILE: '/k/ec.pem' }, { '/k/ec.pem': ec })[0]).toMatch(/must hold private RSA keys/);
    expect(problemsOf({ OIDC_SIGNING_KEY_FILE: '/k/two.pem' }, { '/k/two.pem': `${rsa}\n${small}` })).toEqual([
      'OIDC_SIGNING_KEY_FILE: the RSA key must be at least 2048 bits (key 2 of 2)',
    ]);
    expect(problemsOf({ OIDC_SIGNING_KEY_FILE: '/k/junk.pem' }, { '/k/junk.pem': 'not a key' })).toEqual([
      'OIDC_SIGNING_KEY_FILE: is not a private key in PEM form',
    ]);
    expect(problemsOf({ OIDC_SIGNING_KEY_FILE: '/k/none.pem' })).toEqual(['OIDC_SIGNING_KEY_FILE: cannot read /k/none.pem']);
  });

  it('knows its variables: no unknown-option warning for them, one for a misspelt field', () => {
    expect(
      unknownOptionWarnings({ ...client('APP'), OIDC_CLIENTS_APP_CLIENT_SECRET_FILE: '/x', OIDC_SIGNING_KEY_FILE: '/k', OIDC_REFRESH_TOKEN_TTL: '600' }),
    ).toEqual([]);
    expect(unknownOptionWarnings({ OIDC_CLIENTS_APP_REDIRECT_URL: 'https://x' })).toEqual([
      expect.stringContaining('OIDC_CLIENTS_APP_REDIRECT_URL is not a Portcullis option'),
    ]);
  });
});
