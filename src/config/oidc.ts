import { createPrivateKey } from 'node:crypto';
import { readClientSecretHash } from '../domain/client-secret-hash';
import { isOidcScope, OIDC_SCOPES, type OidcClient } from '../domain/oidc-client';
import type { EnvReader } from './env';
import { integer, options, text } from './option-spec';
import { cannotRead } from './unreadable-file';
import { pemBlocks } from '../domain/signing-key-set';

/** The oidc section: the OpenID Connect provider (`OIDC_*`), on when at least one client is configured. */

export const OIDC_OPTIONS = options({
  OIDC_SIGNING_KEY_FILE: {
    group: 'oidc',
    parse: text,
    fallback: undefined,
    doc: {
      default: 'a key set generated once and kept in the durable store',
      meaning:
        'PEM file of private RSA keys (2048 bits or more): the first signs ID tokens (RS256), the others stay published for verification; see [key rotation](oidc.md#signing-keys-and-rotation)',
    },
  },
  OIDC_ACCESS_TOKEN_TTL: {
    group: 'oidc',
    parse: integer(60, 86400),
    fallback: 3600,
    doc: { default: '`3600`', meaning: 'lifetime of access and ID tokens in seconds' },
  },
  OIDC_BACKCHANNEL_LOGOUT_RETRY: {
    group: 'oidc',
    parse: integer(1, 7 * 86400),
    fallback: 3600,
    doc: {
      default: '`3600`',
      meaning:
        'how long, in seconds after a session ended, a back-channel logout token is retried (backoff from 1 second to 5 minutes) for an app that does not take it; then it is given up and audited',
    },
  },
  OIDC_REFRESH_TOKEN_TTL: {
    group: 'oidc',
    parse: integer(300, 366 * 86400),
    fallback: 30 * 86400,
    doc: { default: '`2592000` (30 days)', meaning: 'lifetime of a refresh token (issued with the `offline_access` scope, rotated on every use) in seconds' },
  },
});

/** The OpenID Connect provider's configuration: on when at least one client is configured. */
export interface OidcConfig {
  /** By `<ID>` in alphabetical order; empty: the provider is off (no discovery, no `/oidc` routes). */
  readonly clients: readonly OidcClient[];
  /** OIDC_SIGNING_KEY_FILE's PEM (a private RSA key), or null: the key set in the durable store. */
  readonly signingKeyPem: string | null;
  /** What start-up logs and `config check` prints for a valid but risky set-up (plain-http redirect URIs). */
  readonly warnings: readonly string[];
}

export interface OidcSectionConfig {
  /** The OpenID Connect provider (`OIDC_*`): off when no client is configured. */
  readonly oidc: OidcConfig & {
    readonly accessTokenTtlSeconds: number;
    readonly refreshTokenTtlSeconds: number;
    /** How long a back-channel logout is retried after its session ended (OIDC_BACKCHANNEL_LOGOUT_RETRY). */
    readonly backchannelLogoutRetrySeconds: number;
  };
}

/** The clients, the signing key file and the token lifetimes. */
export function readOidc(r: EnvReader): OidcSectionConfig {
  const oidc = readOidcConfig(r.env, r.readFile);
  r.problems.push(...oidc.problems);
  return {
    oidc: {
      ...oidc.config,
      accessTokenTtlSeconds: r.option(OIDC_OPTIONS, 'OIDC_ACCESS_TOKEN_TTL'),
      refreshTokenTtlSeconds: r.option(OIDC_OPTIONS, 'OIDC_REFRESH_TOKEN_TTL'),
      backchannelLogoutRetrySeconds: r.option(OIDC_OPTIONS, 'OIDC_BACKCHANNEL_LOGOUT_RETRY'),
    },
  };
}

export const OIDC_CLIENT_PREFIX = 'OIDC_CLIENTS_';

/** The fields of `OIDC_CLIENTS_<ID>_<FIELD>`; those with `file` also read `<FIELD>_FILE`. */
export const OIDC_CLIENT_FIELDS = {
  CLIENT_ID: {},
  CLIENT_SECRET: { file: true, secret: true },
  CLIENT_SECRET_HASH: { file: true, secret: true },
  REDIRECT_URIS: {},
  POST_LOGOUT_REDIRECT_URIS: {},
  NAME: {},
  PUBLIC: {},
  ALLOWED_USERS: {},
  ALLOWED_GROUPS: {},
  TOKEN_ENDPOINT_AUTH_METHOD: {},
  SCOPES: {},
  BACKCHANNEL_LOGOUT_URI: {},
  BACKCHANNEL_LOGOUT_SESSION_REQUIRED: {},
  FRONTCHANNEL_LOGOUT_URI: {},
  FRONTCHANNEL_LOGOUT_SESSION_REQUIRED: {},
} as const satisfies Record<string, { file?: true; secret?: true }>;
export type OidcClientField = keyof typeof OIDC_CLIENT_FIELDS;

/** The documentation rows of the client pattern (docs/configuration.md, `--help`). */
export const OIDC_CLIENT_DOCS: readonly {
  readonly fields: readonly OidcClientField[];
  readonly doc: { readonly default: string; readonly meaning: string };
}[] = [
  {
    fields: ['CLIENT_ID', 'CLIENT_SECRET'],
    doc: {
      default: '—',
      meaning:
        'one relying party per `<ID>` (upper-case letters, digits, `_`): its client id, and its secret (at least 32 characters; `portcullis oidc client add <id>` makes one). Client ids must be unique',
    },
  },
  {
    fields: ['CLIENT_SECRET_HASH'],
    doc: {
      default: '—',
      meaning:
        'instead of `CLIENT_SECRET`: the secret as a hash, as Authelia keeps it: bcrypt, Argon2 (`$argon2id$`, `$argon2i$`) or PBKDF2 (`$pbkdf2$`, `$pbkdf2-sha256$`, `$pbkdf2-sha512$`, up to 2 000 000 iterations); the app keeps sending the secret itself, with `client_secret_basic` or `client_secret_post` ([hashed secrets](oidc.md#a-hashed-client-secret))',
    },
  },
  {
    fields: ['REDIRECT_URIS'],
    doc: {
      default: '— (required)',
      meaning: "the app's callback URLs, comma separated, matched exactly; plain http outside localhost is allowed with a warning",
    },
  },
  {
    fields: ['POST_LOGOUT_REDIRECT_URIS'],
    doc: { default: 'none', meaning: 'where RP-initiated logout may send the browser afterwards, comma separated, matched exactly' },
  },
  { fields: ['NAME'], doc: { default: 'the client id', meaning: 'the name the logout confirmation shows' } },
  {
    fields: ['PUBLIC'],
    doc: { default: '`false`', meaning: '`true` for an app that cannot keep a secret (single-page, mobile): no secret, PKCE (S256) required' },
  },
  {
    fields: ['ALLOWED_USERS', 'ALLOWED_GROUPS'],
    doc: {
      default: 'everyone who can log in',
      meaning:
        'usernames or e-mails / groups allowed into this app, comma separated; anyone else gets `access_denied` (audited); checked again at every refresh and userinfo request',
    },
  },
  {
    fields: ['SCOPES'],
    doc: {
      default: `\`${OIDC_SCOPES.join(' ')}\``,
      meaning:
        'the scopes this app may be granted, space or comma separated, `openid` among them; asking for another is refused with `invalid_scope` (leave out `email` / `groups` to keep those claims from it, `offline_access` to give it no refresh tokens)',
    },
  },
  {
    fields: ['BACKCHANNEL_LOGOUT_URI', 'BACKCHANNEL_LOGOUT_SESSION_REQUIRED'],
    doc: {
      default: 'none; `true`',
      meaning:
        "where the app takes [back-channel logout](oidc.md#logout-that-reaches-every-app) tokens (an absolute URL, sent from the gateway's own network), whenever a session it logged in from ends; and whether the app requires `sid` in them",
    },
  },
  {
    fields: ['FRONTCHANNEL_LOGOUT_URI', 'FRONTCHANNEL_LOGOUT_SESSION_REQUIRED'],
    doc: {
      default: 'none; `true`',
      meaning:
        'a page of the app that ends its session in the browser: the gateway loads it, with `iss` and `sid`, in a hidden frame when the person logs out ([front-channel logout](oidc.md#logout-that-reaches-every-app)); and whether the app requires `iss` and `sid`',
    },
  },
  {
    fields: ['TOKEN_ENDPOINT_AUTH_METHOD'],
    doc: { default: '`client_secret_basic`', meaning: 'or `client_secret_post`: how the app sends its secret to the token endpoint' },
  },
];

/** Shortest client secret accepted: 32 characters (`portcullis oidc client add` makes 43 of base64url). */
export const MIN_CLIENT_SECRET_LENGTH = 32;

const SUFFIXES = (Object.entries(OIDC_CLIENT_FIELDS) as [OidcClientField, { file?: true }][])
  .flatMap(([field, spec]) => [{ suffix: field, field, file: false }, ...(spec.file ? [{ suffix: `${field}_FILE`, field, file: true }] : [])])
  .sort((a, b) => b.suffix.length - a.suffix.length);

/** Reads `OIDC_CLIENTS_<ID>_<FIELD>[_FILE]`; null for any other name. */
export function oidcClientVariable(name: string): { key: string; field: OidcClientField; file: boolean } | null {
  if (!name.startsWith(OIDC_CLIENT_PREFIX)) return null;
  const rest = name.slice(OIDC_CLIENT_PREFIX.length);
  for (const { suffix, field, file } of SUFFIXES) {
    if (rest.length > suffix.length + 1 && rest.endsWith(`_${suffix}`)) return { key: rest.slice(0, -(suffix.length + 1)), field, file };
  }
  return null;
}

/** A well-formed client variable: what the unknown-option warnings accept. */
export function isOidcClientVariableName(name: string): boolean {
  const v = oidcClientVariable(name);
  return v !== null && /^[A-Z0-9]+(?:_[A-Z0-9]+)*$/.test(v.key);
}

const list = (raw: string | undefined): string[] =>
  raw === undefined
    ? []
    : raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/** A problem with one redirect URI, or null; `warn` collects the plain-http ones. */
function redirectUriProblem(label: string, uri: string, warn: (w: string) => void): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${label}: "${uri}" is not an absolute URL (e.g. https://app.example.com/oauth/callback)`;
  }
  if (!/^[a-z][a-z0-9+.-]*:/i.test(uri)) return `${label}: "${uri}" is not an absolute URL`;
  if (url.hash !== '' || uri.includes('#')) return `${label}: "${uri}" must not have a fragment (#...)`;
  if (url.username !== '' || url.password !== '') return `${label}: "${uri}" must not carry credentials`;
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname === '') return `${label}: "${uri}" has no host`;
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname))
    warn(`${label}: ${uri} is plain http outside this machine: codes and tokens for it cross the network unencrypted. Use https where you can`);
  return null;
}

/**
 * Reads every `OIDC_CLIENTS_<ID>_…` variable and OIDC_SIGNING_KEY_FILE. Every problem is reported
 * (a missing client id or redirect URI, duplicate client ids, a redirect URI that is not absolute,
 * a short secret, a public client with a secret...); problem texts never hold a secret.
 */
export function readOidcConfig(
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string,
): { config: OidcConfig; problems: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  const byKey = new Map<string, Map<OidcClientField, string>>();
  for (const [name, raw] of Object.entries(env)) {
    const v = oidcClientVariable(name);
    if (v === null || raw === undefined || raw.trim() === '') continue;
    if (!/^[A-Z0-9]+(?:_[A-Z0-9]+)*$/.test(v.key)) {
      problems.push(`${name}: the <ID> part must be upper-case letters, digits and single underscores`);
      continue;
    }
    const fields = byKey.get(v.key) ?? new Map<OidcClientField, string>();
    byKey.set(v.key, fields);
    if (fields.has(v.field)) {
      problems.push(`set either ${OIDC_CLIENT_PREFIX}${v.key}_${v.field} or ${OIDC_CLIENT_PREFIX}${v.key}_${v.field}_FILE, not both`);
      continue;
    }
    if (v.file) {
      try {
        fields.set(v.field, readFile(raw.trim()).trim());
      } catch (e) {
        problems.push(`${name}: ${cannotRead(raw.trim(), e)}`);
      }
    } else fields.set(v.field, raw.trim());
  }

  const clients: OidcClient[] = [];
  const seen = new Map<string, string>();
  for (const key of [...byKey.keys()].sort()) {
    const fields = byKey.get(key) as Map<OidcClientField, string>;
    const p = `${OIDC_CLIENT_PREFIX}${key}_`;
    const clientId = fields.get('CLIENT_ID');
    if (clientId === undefined) {
      problems.push(`${p}CLIENT_ID is required (the client id the application is configured with)`);
      continue;
    }
    if (!/^[\x21-\x7e]{1,200}$/.test(clientId)) problems.push(`${p}CLIENT_ID must be 1 to 200 printable characters without spaces`);
    const other = seen.get(clientId);
    if (other !== undefined) problems.push(`${p}CLIENT_ID "${clientId}" is also the client id of ${OIDC_CLIENT_PREFIX}${other}: client ids must be unique`);
    seen.set(clientId, key);

    const publicRaw = fields.get('PUBLIC')?.toLowerCase();
    if (publicRaw !== undefined && publicRaw !== 'true' && publicRaw !== 'false') problems.push(`${p}PUBLIC must be true or false`);
    const isPublic = publicRaw === 'true';
    const secret = fields.get('CLIENT_SECRET');
    const secretHash = fields.get('CLIENT_SECRET_HASH');
    problems.push(...secretProblems(p, key, isPublic, secret, secretHash));

    const redirectUris = list(fields.get('REDIRECT_URIS'));
    if (redirectUris.length === 0) problems.push(`${p}REDIRECT_URIS is required: the application's callback URL(s), comma separated, matched exactly`);
    const postLogout = list(fields.get('POST_LOGOUT_REDIRECT_URIS'));
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(`${p}REDIRECT_URIS`, uri, (w) => warnings.push(w));
      if (problem !== null) problems.push(problem);
    }
    for (const uri of postLogout) {
      const problem = redirectUriProblem(`${p}POST_LOGOUT_REDIRECT_URIS`, uri, (w) => warnings.push(w));
      if (problem !== null) problems.push(problem);
    }

    const method = fields.get('TOKEN_ENDPOINT_AUTH_METHOD') ?? 'client_secret_basic';
    if (method !== 'client_secret_basic' && method !== 'client_secret_post')
      problems.push(
        secretHash !== undefined && method === 'client_secret_jwt'
          ? `${p}TOKEN_ENDPOINT_AUTH_METHOD client_secret_jwt needs the plain secret (it signs with it), which ${p}CLIENT_SECRET_HASH does not hold: use client_secret_basic or client_secret_post`
          : `${p}TOKEN_ENDPOINT_AUTH_METHOD must be client_secret_basic or client_secret_post`,
      );

    const scopes = fields.has('SCOPES') ? (fields.get('SCOPES') ?? '').split(/[\s,]+/).filter((s) => s !== '') : [...OIDC_SCOPES];
    const unknownScopes = scopes.filter((s) => !isOidcScope(s));
    if (unknownScopes.length > 0) problems.push(`${p}SCOPES: unknown scope ${unknownScopes.join(', ')} (known: ${OIDC_SCOPES.join(' ')})`);
    if (!scopes.includes('openid')) problems.push(`${p}SCOPES must include openid`);

    const logout = logoutEndpoints(p, fields, (w) => warnings.push(w));
    problems.push(...logout.problems);

    clients.push({
      clientId,
      name: fields.get('NAME') ?? clientId,
      secret: isPublic || secretHash !== undefined ? null : (secret ?? ''),
      ...(isPublic || secretHash === undefined ? {} : { secretHash }),
      tokenEndpointAuthMethod: method === 'client_secret_post' ? 'client_secret_post' : 'client_secret_basic',
      redirectUris,
      postLogoutRedirectUris: postLogout,
      allowedUsers: list(fields.get('ALLOWED_USERS')).map((u) => u.toLowerCase()),
      allowedGroups: list(fields.get('ALLOWED_GROUPS')),
      scopes: [...new Set(scopes.filter(isOidcScope))],
      ...logout.client,
    });
  }

  let signingKeyPem: string | null = null;
  const keyFile = env.OIDC_SIGNING_KEY_FILE?.trim();
  if (keyFile !== undefined && keyFile !== '') {
    try {
      signingKeyPem = readFile(keyFile);
      const problem = signingKeyProblem(signingKeyPem);
      if (problem !== null) problems.push(`OIDC_SIGNING_KEY_FILE: ${problem}`);
    } catch (e) {
      problems.push(`OIDC_SIGNING_KEY_FILE: ${cannotRead(keyFile, e)}`);
    }
  }
  return { config: { clients, signingKeyPem, warnings }, problems };
}

/**
 * What is wrong with a client's secret: a confidential client has exactly one of CLIENT_SECRET (at
 * least 32 characters) and CLIENT_SECRET_HASH (a hash of a kind the gateway verifies, of bounded
 * cost); a public client has neither. Never repeats the secret or the hash.
 */
function secretProblems(p: string, key: string, isPublic: boolean, secret: string | undefined, secretHash: string | undefined): string[] {
  if (isPublic) {
    return [secret === undefined ? null : 'CLIENT_SECRET', secretHash === undefined ? null : 'CLIENT_SECRET_HASH']
      .filter((f) => f !== null)
      .map((f) => `${p}${f} is set but ${p}PUBLIC=true: a public client has no secret (it uses PKCE)`);
  }
  if (secret !== undefined && secretHash !== undefined)
    return [`${p}CLIENT_SECRET and ${p}CLIENT_SECRET_HASH are both set: give the client its secret one way, not both`];
  if (secretHash !== undefined) {
    const read = readClientSecretHash(secretHash);
    return read.ok ? [] : [`${p}CLIENT_SECRET_HASH: ${read.problem}`];
  }
  if (secret === undefined)
    return [
      `${p}CLIENT_SECRET (or ${p}CLIENT_SECRET_FILE) is required, or its hash in ${p}CLIENT_SECRET_HASH, or set ${p}PUBLIC=true for an app that cannot keep a secret`,
    ];
  if (secret.length < MIN_CLIENT_SECRET_LENGTH)
    return [`${p}CLIENT_SECRET must be at least ${MIN_CLIENT_SECRET_LENGTH} characters long ("portcullis oidc client add ${key.toLowerCase()}" makes one)`];
  return [];
}

/** A client's back- and front-channel logout URIs, as OidcClient holds them, and what is wrong with them. */
function logoutEndpoints(
  p: string,
  fields: ReadonlyMap<OidcClientField, string>,
  warn: (w: string) => void,
): { client: Pick<OidcClient, 'backchannelLogout' | 'frontchannelLogout'>; problems: string[] } {
  const problems: string[] = [];
  const client: { -readonly [K in 'backchannelLogout' | 'frontchannelLogout']?: OidcClient[K] } = {};
  for (const channel of ['BACKCHANNEL', 'FRONTCHANNEL'] as const) {
    const uri = fields.get(`${channel}_LOGOUT_URI`);
    const required = fields.get(`${channel}_LOGOUT_SESSION_REQUIRED`)?.toLowerCase();
    if (required !== undefined && required !== 'true' && required !== 'false') problems.push(`${p}${channel}_LOGOUT_SESSION_REQUIRED must be true or false`);
    if (required !== undefined && uri === undefined) problems.push(`${p}${channel}_LOGOUT_SESSION_REQUIRED is set but ${p}${channel}_LOGOUT_URI is not`);
    if (uri === undefined) continue;
    const problem = logoutUriProblem(`${p}${channel}_LOGOUT_URI`, uri, warn);
    if (problem !== null) problems.push(problem);
    client[channel === 'BACKCHANNEL' ? 'backchannelLogout' : 'frontchannelLogout'] = { uri, sessionRequired: required !== 'false' };
  }
  return { client, problems };
}

/** A logout URI is an http(s) URL without a fragment or credentials (section 2 of both logout specifications). */
function logoutUriProblem(label: string, uri: string, warn: (w: string) => void): string | null {
  const problem = redirectUriProblem(label, uri, warn);
  if (problem !== null) return problem;
  const protocol = new URL(uri).protocol;
  return protocol === 'http:' || protocol === 'https:' ? null : `${label}: "${uri}" must be an http or https URL`;
}

/** Why a PEM file cannot sign ID tokens with RS256, or null. Never repeats a key. */
export function signingKeyProblem(pem: string): string | null {
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) return 'is not a private key in PEM form';
  for (const [i, block] of blocks.entries()) {
    const which = blocks.length === 1 ? '' : ` (key ${i + 1} of ${blocks.length})`;
    try {
      const key = createPrivateKey(block);
      if (key.asymmetricKeyType !== 'rsa')
        return `must hold private RSA keys${which} (RS256 is what every relying party supports), e.g. openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`;
      if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return `the RSA key must be at least 2048 bits${which}`;
    } catch {
      return `is not a private key in PEM form${which}`;
    }
  }
  return null;
}
