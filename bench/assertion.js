'use strict';
// Scenario 1c: a cookie session on an application whose access rule asks for a signed identity
// assertion (`response.assertion: true`, issue 15): the answer carries a Remote-Assertion JWT.
// The gateway signs once per identity and application and reuses the token until a minute
// before it expires, so the hot path should cost about what scenario 1b costs: this measures it.
const path = require('node:path');

const RULES = path.join(__dirname, 'assertion-rules.yml');

/** Runs the scenario with the kit of run.js; returns the scenario row (compare()'s shape). */
async function assertionScenario(kit, bare) {
  const { startGateway, login, probe, load, job, compare, children, BROWSER } = kit;
  const gateway = await startGateway('assertion', { ACCESS_CONFIG: RULES });
  children.push(gateway.child);
  const cookie = await login(gateway);
  const request = { method: 'GET', path: '/api/auth/traefik', headers: { ...BROWSER, cookie } };
  // The first request waits while the gateway reads its signing key; then every answer must carry the token.
  const first = await probe(gateway.url, request);
  const token = first.headers['remote-assertion'];
  if (first.status !== 200 || typeof token !== 'string' || token.split('.').length !== 3) {
    throw new Error(`assertion scenario: expected 200 with Remote-Assertion, got ${first.status} ${JSON.stringify(first.headers)}`);
  }
  await load({ ...job(gateway, request), duration: 1 });
  return compare('cookie-assertion', 'cookie session, allowed, signed assertion (response.assertion)', gateway, bare, request, 200);
}

module.exports = { assertionScenario };
