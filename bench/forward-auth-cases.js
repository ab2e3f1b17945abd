'use strict';
// What bench/hot-path.js and bench/http-driver.js share: the build they load (HOT_PATH_DIST, another
// build's dist/src, to compare a change with what came before), the bench account and its gateway,
// a session of it sealed offline, and the forward-auth request of each case.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const bcrypt = require('bcrypt');

const dist = path.resolve(process.env.HOT_PATH_DIST || path.join(__dirname, '..', 'dist', 'src'));
const fromDist = (file) => require(path.join(dist, file));
const { loadConfig } = fromDist('composition/config.js');
const { createGateway } = fromDist('composition/gateway.js');
const { AesGcmSessionSealer } = fromDist('adapters/crypto/aes-gcm-session-sealer.js');

const SECRET = randomBytes(32).toString('base64url');
const USERNAME = 'bench';
const PASSWORD = 'bench-password';
/** The answer each case must get. */
const STATUSES = { cookie: 200, basic: 200, token: 200, jwt: 200, 'unauth-api': 401, 'unauth-browser': 302 };

/** The bench account's bcrypt hash, of the given cost. */
const benchHash = (cost) => bcrypt.hashSync(PASSWORD, cost);

/** A gateway for the bench account (`USERS`), built from the chosen build; `env` adds or overrides settings. */
function benchGateway(hash, env = {}) {
  const loaded = loadConfig({ env: { APP_URL: 'https://auth.bench.test', SECRET, USERS: `${USERNAME}:${hash}`, LOG_LEVEL: 'warn', PORT: '0', ...env } });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return createGateway(loaded.config);
}

/**
 * The credential fingerprint a session of the bench account carries (builds whose sessions follow
 * the account's credential refuse a session without it); nothing for older builds.
 */
function credentialOf(hash) {
  let HmacCredentialFingerprints;
  try {
    ({ HmacCredentialFingerprints } = fromDist('adapters/crypto/hmac-credential-fingerprints.js'));
  } catch {
    return {};
  }
  return { credential: new HmacCredentialFingerprints(SECRET).of({ credentialVersion: hash }) };
}

/** A session cookie value of the bench account, sealed offline, valid for an hour. */
function benchSessionToken(hash) {
  const now = Date.now();
  return new AesGcmSessionSealer(SECRET).seal({
    id: 'bench-session',
    username: USERNAME,
    name: USERNAME,
    email: 'bench@bench.test',
    groups: ['admins'],
    provider: 'username',
    oauth: false,
    totp: false,
    totpPending: false,
    issuedAt: now,
    expiresAt: now + 3_600_000,
    // What the session proved (issue 33): builds before it ignore the field.
    proven: { password: now },
    ...credentialOf(hash),
  });
}

/**
 * An access token of the bench account (issue 32), made through the gateway's own use case with the
 * offline session; null for builds without access tokens (their `token` case is left out).
 */
async function benchAccessToken(gateway, sessionToken) {
  const create = gateway.useCases.tokens?.createAccessToken;
  if (create === undefined) return null;
  const result = await create.execute({ sessionToken, ip: '127.0.0.1', fromThisSite: true, name: 'bench' });
  if (!result.ok) throw new Error(`token: ${result.error.code}`);
  return result.value.token;
}

/**
 * The request headers of each case (see STATUSES); `extra` goes into every one; `accessToken` adds
 * the token case, `jwt` (a workload JWT of a configured issuer, bench/jwt-issuer.js) the jwt case.
 */
function caseHeaders(token, extra = {}, accessToken = null, jwt = null) {
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.bench.test', 'x-forwarded-uri': '/dashboard?tab=1', ...extra };
  const browser = { ...forwarded, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
  const api = { ...forwarded, accept: 'application/json' };
  return {
    cookie: { ...browser, cookie: `portcullis-session=${token}` },
    basic: { ...api, authorization: `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}` },
    ...(accessToken === null ? {} : { token: { ...api, 'portcullis-token': accessToken } }),
    ...(jwt === null ? {} : { jwt: { ...api, authorization: `Bearer ${jwt}` } }),
    'unauth-api': api,
    'unauth-browser': browser,
  };
}

/**
 * The rules of `rulesFile` (bench/access-rules.yml: scenario 1b's) with three entries on the measured application: two that the request
 * passes over (another path; a method the bench never names is still tried, as any method counts)
 * and the one that matches `/dashboard` and asks for a password proven within a day, which the
 * bench's login meets. Written next to the results, never into bench/.
 */
function pathsRulesFile(rulesFile) {
  const base = fs.readFileSync(rulesFile, 'utf8');
  const entries = [
    '    paths:',
    "      - match: '^/admin'",
    '        require: { second_factor: true, max_age: 600 }',
    "      - match: '^/api/'",
    '        methods: [POST, PUT, DELETE]',
    '        groups: [writers]',
    "      - match: '^/dashboard'",
    '        require: { login: [password, passkey], max_age: 86400 }',
  ].join('\n');
  const marker = "    ip: { block: ['203.0.113.0/24', '2001:db8:dead::/48'] }";
  if (!base.includes(marker)) throw new Error('bench/access-rules.yml changed: scenario 1d cannot place its paths entries');
  const file = path.join(os.tmpdir(), `portcullis-bench-paths-${process.pid}.yml`);
  fs.writeFileSync(file, base.replace(marker, `${marker}\n${entries}`));
  return file;
}

module.exports = { pathsRulesFile, STATUSES, benchAccessToken, benchHash, benchGateway, benchSessionToken, caseHeaders };
