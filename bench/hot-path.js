'use strict';
// The forward-auth handler's own cost, without sockets: microseconds per request for each kind
// of answer (CPU time), in-process, against fake request/response objects. Far less sensitive to a busy
// machine than the HTTP benchmark, so it shows small changes the HTTP numbers drown in noise.
// `node bench/hot-path.js` after `npm run build`; HOT_PATH_ITERATIONS (default 200000) per sample,
// HOT_PATH_CASES a comma list of cases (cookie, basic, token, jwt, unauth-api, unauth-browser), HOT_PATH_FORWARDED_FOR
// an X-Forwarded-For value to send with each. The jwt case's issuer (bench/jwt-issuer.js) is configured in the
// gateway of every case, so they are measured on the same gateway; its key set is read once, at the first jwt request.
const { STATUSES, pathsRulesFile, benchAccessToken, benchHash, benchGateway, benchSessionToken, caseHeaders } = require('./forward-auth-cases');
const { startJwtIssuer } = require('./jwt-issuer');
const fs = require('node:fs');
const path = require('node:path');

const ITERATIONS = Number(process.env.HOT_PATH_ITERATIONS || 200_000);
const SAMPLES = Number(process.env.HOT_PATH_SAMPLES || 5);

async function main() {
  // Nothing else holds the event loop open while the first Basic request waits for its check.
  const keepAlive = setInterval(() => undefined, 1000);
  const hash = benchHash(10);
  // Under valgrind (bench/instructions.js) a run outlasts the default 60 s: the Basic cache
  // entry would expire and a bcrypt would be counted as part of the cached path.
  // HOT_PATH_CASES: a comma list of the cases to run (e.g. `basic` under `node --cpu-prof`).
  const only = process.env.HOT_PATH_CASES ? process.env.HOT_PATH_CASES.split(',') : null;
  // Builds without workload JWTs would refuse the JWT_ISSUERS_ settings: no jwt case there.
  const issuer = (only === null || only.includes('jwt')) && jwtSupported() ? await startJwtIssuer() : null;
  // HOT_PATH_RULES: `rules` loads bench/access-rules.yml, `paths` the same with scenario 1d's paths entries (issue 33).
  const rulesFile = path.join(__dirname, 'access-rules.yml');
  const rules = process.env.HOT_PATH_RULES;
  const gateway = benchGateway(hash, {
    ...(rules === 'rules' ? { ACCESS_CONFIG: rulesFile } : rules === 'paths' ? { ACCESS_CONFIG: pathsRulesFile(rulesFile) } : {}),
    ...(process.env.HOT_PATH_BASIC_CACHE_TTL ? { BASIC_CACHE_TTL: process.env.HOT_PATH_BASIC_CACHE_TTL } : {}),
    ...(issuer === null ? {} : issuer.env),
  });
  // The raw listener when the build has one; else the first Koa middleware (forward auth) with a minimal context.
  const handle =
    typeof gateway.listener === 'function'
      ? (req, res) => gateway.listener(req, res)
      : (req, res) => gateway.app.middleware[0]({ req, res, respond: true }, async () => undefined);
  // HOT_PATH_FORWARDED_FOR: an X-Forwarded-For on every request, as a proxy in front sends it (the
  // peer, 127.0.0.1, is a trusted proxy by default, so the gateway reads the header).
  const forwardedFor = process.env.HOT_PATH_FORWARDED_FOR;
  const session = benchSessionToken(hash);
  const headers = caseHeaders(
    session,
    forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    await benchAccessToken(gateway, session),
    issuer === null ? null : issuer.jwt,
  );
  const cases = Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, { headers: h, status: STATUSES[name] }]));

  const socket = { remoteAddress: '127.0.0.1' };
  const results = {};
  for (const [name, c] of Object.entries(cases)) {
    if (only !== null && !only.includes(name)) continue;
    let status = 0;
    const res = {
      headersSent: false,
      writeHead(s) {
        status = s;
        return this;
      },
      end() {},
      destroy() {},
    };
    const req = { url: '/api/auth/traefik', method: 'GET', headers: c.headers, socket };
    // The first Basic request pays its bcrypt here, the first jwt request its key set and signature check.
    await handle(req, res);
    if (status !== c.status) throw new Error(`${name}: answered ${status}, expected ${c.status}`);
    const samples = [];
    for (let s = 0; s < SAMPLES; s += 1) {
      // CPU time, not wall time: on a shared machine the wall clock mostly measures the neighbours.
      const t0 = process.cpuUsage();
      for (let i = 0; i < ITERATIONS; i += 1) await handle(req, res);
      const t = process.cpuUsage(t0);
      samples.push((t.user + t.system) / ITERATIONS);
    }
    samples.sort((a, b) => a - b);
    results[name] = { bestUs: samples[0], medianUs: samples[Math.floor(samples.length / 2)] };
    process.stdout.write(`${name.padEnd(16)} ${samples[0].toFixed(2)} µs best, ${samples[Math.floor(samples.length / 2)].toFixed(2)} µs median\n`);
  }
  if (issuer !== null && issuer.hits.jwks > 1) throw new Error(`jwt: the key set was read ${issuer.hits.jwks} times, expected once`);
  clearInterval(keepAlive);
  process.exit(0);
}

/** Whether the build knows workload JWTs (JWT_ISSUERS_<ID>_…, issue 32). */
function jwtSupported() {
  const dist = path.resolve(process.env.HOT_PATH_DIST || path.join(__dirname, '..', 'dist', 'src'));
  return fs.existsSync(path.join(dist, 'adapters', 'jwt', 'jose-jwt-verifier.js'));
}

main().catch((e) => {
  process.stderr.write(`hot-path failed: ${e.message}\n`);
  process.exit(2);
});
