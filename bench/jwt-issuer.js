'use strict';
// The workload JWT issuer of the bench's `jwt` cases (issue 32): an ES256 key made for the run, its
// key set served on 127.0.0.1 only, and one token signed with it. bench/run.js and bench/hot-path.js
// both configure the gateway with `env` (JWT_ISSUERS_BENCH_…) and send `Authorization: Bearer <jwt>`.
const http = require('node:http');

const AUDIENCE = 'portcullis-bench';
const SUBJECT = 'repo:bench/app:ref:refs/heads/main';
const KID = 'bench-1';

/**
 * Starts the issuer's key set server and signs one token (an hour long). Returns the token, the
 * gateway settings that name this issuer, how many times the key set was read, and `close()`.
 */
async function startJwtIssuer() {
  const { exportJWK, generateKeyPair, SignJWT } = require('jose');
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: 'ES256', use: 'sig' }] });
  const hits = { jwks: 0 };
  const server = http.createServer((req, res) => {
    if (req.url !== '/jwks') return res.writeHead(404).end();
    hits.jwks += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const now = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({ iss: url, aud: AUDIENCE, sub: SUBJECT, iat: now, exp: now + 3600 })
    .setProtectedHeader({ alg: 'ES256', kid: KID, typ: 'JWT' })
    .sign(privateKey);
  return {
    jwt,
    hits,
    env: { JWT_ISSUERS_BENCH_ISSUER: url, JWT_ISSUERS_BENCH_AUDIENCE: AUDIENCE, JWT_ISSUERS_BENCH_JWKS_URL: `${url}/jwks` },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

module.exports = { startJwtIssuer };
