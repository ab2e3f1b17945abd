'use strict';
// Issue 34: accounts that keep the Argon2id hashes Authelia wrote. Two measurements:
// - `logins`: logins per second through /api/login (right password, each one a new session) for an
//   account with Authelia's default Argon2id (m=65536, t=3, p=4) next to one with bcrypt cost 10,
//   in alternating rounds. Both go through the gateway's one bounded line of hash computations.
// - `flood-argon2`: scenario 4 (cookie checks while /api/login is flooded with wrong passwords for
//   unknown names) on a gateway whose accounts are Argon2id, so every flood attempt costs an
//   Argon2id decoy check: the cookie path must keep the flood scenario's budget.
const argon2 = require('argon2');

/** Authelia's default Argon2id parameters (its configuration's `password.argon2` defaults). */
const AUTHELIA_DEFAULT = { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 };
/** Clients logging in at once: more than the hash line's slots, so its pacing is what is measured. */
const LOGIN_CONNECTIONS = 4;
/** Seconds per run at least: a few logins a second need longer runs than the forward-auth scenarios. */
const LOGIN_SECONDS = 6;

function argon2idHash(password) {
  return argon2.hash(password, AUTHELIA_DEFAULT);
}

/** Logins per second, Argon2id (Authelia's default) against bcrypt cost 10, alternating rounds. */
async function loginRates(kit) {
  const { SETTINGS, log, load, checkStatuses, median, startGateway, stopProcess, USERNAME, PASSWORD, HASH } = kit;
  // Many right logins of one account from one address: no lock may step in.
  const limits = { LOGIN_MAX_RETRIES: '1000' };
  const bcryptGateway = await startGateway('logins-bcrypt', { USERS: `${USERNAME}:${HASH}`, ...limits });
  const argonGateway = await startGateway('logins-argon2id', { USERS: `${USERNAME}:${await argon2idHash(PASSWORD)}`, ...limits });
  try {
    const request = {
      method: 'POST',
      path: '/api/login',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.20' },
      body: JSON.stringify({ username: USERNAME, password: PASSWORD }),
    };
    const targets = { bcrypt: bcryptGateway, argon2id: argonGateway };
    const rounds = [];
    for (let r = 0; r < SETTINGS.rounds; r += 1) {
      const order = r % 2 === 0 ? ['bcrypt', 'argon2id'] : ['argon2id', 'bcrypt'];
      const got = {};
      for (const kind of order) {
        const duration = Math.max(SETTINGS.durationSeconds, LOGIN_SECONDS);
        const res = await load({ url: targets[kind].url, connections: LOGIN_CONNECTIONS, duration, requests: [request] });
        checkStatuses(res, 200, `logins ${kind}`);
        got[kind] = res;
      }
      rounds.push({ ...got, ratio: got.argon2id.rate / got.bcrypt.rate });
      log(
        `  logins round ${r + 1}: argon2id ${got.argon2id.rate.toFixed(1)}/s (p50 ${got.argon2id.p50} ms), ` +
          `bcrypt 10 ${got.bcrypt.rate.toFixed(1)}/s (p50 ${got.bcrypt.p50} ms), ratio ${(got.argon2id.rate / got.bcrypt.rate).toFixed(2)}`,
      );
    }
    const side = (k) => ({
      rate: median(rounds.map((x) => x[k].rate)),
      p50: median(rounds.map((x) => x[k].p50)),
      p99: median(rounds.map((x) => x[k].p99)),
    });
    return {
      id: 'logins',
      title: 'logins per second (right password, a new session each)',
      connections: LOGIN_CONNECTIONS,
      argon2id: side('argon2id'),
      bcrypt: side('bcrypt'),
      ratio: median(rounds.map((x) => x.ratio)),
      rounds,
    };
  } finally {
    await stopProcess(bcryptGateway.child);
    await stopProcess(argonGateway.child);
  }
}

/** Scenario 4 on a gateway whose account is Argon2id: the decoy of every flood attempt is Argon2id. */
async function argon2Flood(kit) {
  const { startGateway, login, load, job, underFlood, children, USERNAME, PASSWORD, BROWSER } = kit;
  const gateway = await startGateway('flood-argon2', { USERS: `${USERNAME}:${await argon2idHash(PASSWORD)}` });
  children.push(gateway.child);
  const request = { method: 'GET', path: '/api/auth/traefik', headers: { ...BROWSER, cookie: await login(gateway) } };
  await load({ ...job(gateway, request), duration: 1 });
  // An Argon2id decoy costs several times a bcrypt one: the bounded line fills and refuses at once (503), by design.
  const s = await underFlood(gateway, request, [401, 503]);
  return { ...s, id: 'flood-argon2', title: 'cookie session during a login flood (Argon2id accounts)' };
}

/** The rows docs/benchmark.md shows for `logins`. */
function loginsTable(s, fmt) {
  return [
    `| logins | Argon2id (m=65536, t=3, p=4) | bcrypt cost 10 |`,
    '|---|---|---|',
    `| logins per second (${s.connections} clients, right password) | ${fmt(s.argon2id.rate, 1)} | ${fmt(s.bcrypt.rate, 1)} |`,
    `| p50 / p99 ms | ${fmt(s.argon2id.p50, 0)} / ${fmt(s.argon2id.p99, 0)} | ${fmt(s.bcrypt.p50, 0)} / ${fmt(s.bcrypt.p99, 0)} |`,
    `| Argon2id ÷ bcrypt | ${fmt(s.ratio, 2)} | |`,
  ];
}

module.exports = { loginRates, argon2Flood, loginsTable };
