'use strict';
// The proxy scenarios of `npm run bench` (issue 20): the whole path a user feels, client → proxy →
// gateway → proxy → app, through real nginx and caddy configured from the shipped examples, in
// front of a bare app (./app.js). For cookie, Basic, the 302 of a browser without a session and
// the 401 of an API client it reports, alternating rounds, the median of the per-round ratios:
//   (a) protected ÷ unprotected: the same proxy and app, the auth hop switched off;
//   (b) gateway ÷ bare auth server: the same proxy configuration asking ./bare-auth.js, which
//       answers the bytes the gateway gave to the same subrequest (recorded through that proxy
//       first). The proxy's own ceiling: (b) = 1 means the gateway costs nothing the proxy notices.
// Every answer's status is checked in every run, and before the rounds the final answers through
// the gateway and through the bare auth server are compared (status, Location, body, and the
// identity that reached the app).
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startNginx, startCaddy } = require('./proxies');

const APP_HOST = 'app.bench.test';
const AUTH_HOST = 'auth.bench.test';
const PATH = '/dashboard?tab=1';
const HTML = 'text/html,application/xhtml+xml,*/*;q=0.8';

/** The four cases of issue 20, as a client sends them to the proxy. */
function cases(cookie, basic) {
  const base = { host: APP_HOST, 'user-agent': 'bench' };
  return [
    { key: 'cookie', title: 'cookie session', expected: 200, headers: { ...base, accept: HTML, cookie } },
    { key: 'basic', title: 'HTTP Basic', expected: 200, headers: { ...base, accept: 'application/json', authorization: basic } },
    { key: 'browser', title: 'browser without session (302)', expected: 302, headers: { ...base, accept: HTML } },
    { key: 'api', title: 'API client without credentials (401)', expected: 401, headers: { ...base, accept: 'application/json' } },
  ];
}

const CLOCK_TICKS = 100; // USER_HZ on Linux
function cpuOf(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
    } catch {
      // gone
    }
  }
  return total;
}

function startForked(file, name) {
  const child = fork(path.join(__dirname, file), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (m) => resolve({ name, child, pid: child.pid, port: m.port, url: `http://127.0.0.1:${m.port}` }));
  });
}

async function startBareAuth(name) {
  const bare = await startForked('bare-auth.js', name);
  bare.record = (from) =>
    new Promise((resolve) => {
      bare.child.once('message', resolve);
      bare.child.send({ type: 'record', from });
    });
  bare.connections = () =>
    new Promise((resolve) => {
      bare.child.once('message', (m) => resolve(m.connections));
      bare.child.send({ type: 'count' });
    });
  bare.recorded = () =>
    new Promise((resolve, reject) => {
      bare.child.once('message', (m) => (m.type === 'recorded' ? resolve(m) : reject(new Error(`${name}: ${m.message}`))));
    });
  return bare;
}

/**
 * Runs the proxy scenarios wanted (`proxy-nginx`, `proxy-caddy`) and returns their summaries.
 * `kit` hands in run.js's own helpers, so the load generator, status checks and gateway start are
 * the same as for the other scenarios.
 */
async function proxyScenarios(kit, wanted) {
  const { SETTINGS, log, load, probe, checkStatuses, median, freePort, startGateway, stopProcess, login, USERNAME, PASSWORD, HASH } = kit;
  const rounds = SETTINGS.proxyRounds;
  const duration = SETTINGS.proxyDurationSeconds;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portcullis-bench-proxy-'));
  const children = [];
  const results = [];
  // An interrupted bench must not leave proxies and servers behind (nginx's master stops its worker on SIGTERM).
  const onSignal = () => {
    for (const c of children) c.kill('SIGTERM');
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const app = await startForked('app.js', 'app');
    children.push(app.child);
    const forwardAuthPort = await freePort();
    const gateway = await startGateway('proxy', { FORWARD_AUTH_PORT: String(forwardAuthPort), APP_URL: `https://${AUTH_HOST}` });
    children.push(gateway.child);
    const forwardAuthUrl = `http://127.0.0.1:${forwardAuthPort}`;
    // BENCH_BEFORE: the other build's gateway behind its own copy of each shipped configuration,
    // alternated in the same rounds, so a change on the path is measured before and after in one run.
    let before = null;
    if (SETTINGS.before !== null) {
      const port = await freePort();
      const g = await startGateway(
        'proxy-before',
        { FORWARD_AUTH_PORT: String(port), APP_URL: `https://${AUTH_HOST}` },
        path.join(SETTINGS.before, 'src', 'main.js'),
      );
      children.push(g.child);
      before = { gateway: g, forwardAuthPort: port, forwardAuthUrl: `http://127.0.0.1:${port}`, gatewayPort: Number(new URL(g.url).port) };
    }
    const cookie = await login(gateway);
    const basic = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`;
    const all = cases(cookie, basic).filter((c) => SETTINGS.proxyCases === null || SETTINGS.proxyCases.includes(c.key));

    const bareAuth = async (name) => {
      const b = await startBareAuth(name);
      children.push(b.child);
      return b;
    };
    const proxy = async (start, options) => {
      const p = await start({
        dir: path.join(dir, options.name),
        port: await freePort(),
        appHost: APP_HOST,
        appPort: app.port,
        authHost: AUTH_HOST,
        gatewayPort: Number(new URL(gateway.url).port),
        ...options,
      });
      children.push(p.child);
      return p;
    };

    /** One load run through `target.proxy`, with the CPU time the proxy and the auth server spent per answer. */
    const run = async (target, request) => {
      const authPids = target.auth === null ? [] : [target.auth.pid];
      const p0 = cpuOf(target.proxy.pids());
      const a0 = cpuOf(authPids);
      const app0 = cpuOf([app.pid]);
      const counted = target.auth !== null && typeof target.auth.connections === 'function';
      const c0 = counted ? await target.auth.connections() : 0;
      const res = await load({
        url: target.proxy.url,
        connections: target.connections ?? SETTINGS.connections,
        duration: target.duration ?? duration,
        requests: [request],
      });
      const n = Math.max(1, res.total);
      res.proxyCpuUs = ((cpuOf(target.proxy.pids()) - p0) * 1e6) / n;
      res.authCpuUs = target.auth === null ? 0 : ((cpuOf(authPids) - a0) * 1e6) / n;
      // The whole chain but the load generator: what one answer costs the machine.
      res.chainCpuUs = res.proxyCpuUs + res.authCpuUs + ((cpuOf([app.pid]) - app0) * 1e6) / n;
      // New connections from the proxy to the auth server per answer (bare auth servers count them).
      res.authConnections = counted ? ((await target.auth.connections()) - c0) / n : NaN;
      return res;
    };

    /** The final answer through a proxy, for the before-the-rounds comparison. */
    const ask = (target, c) => probe(target.proxy.url, { path: PATH, headers: c.headers });
    // nginx puts its own port into the original URL it hands the auth server (and so into a login
    // redirect's Location): each proxy's port is read as the same placeholder.
    const portless = (text, t) => (text ?? '').replace(new RegExp(`(:|%3A)${new URL(t.proxy.url).port}\\b`, 'gi'), ':PORT');
    const sameAnswer = (a, ta, b, tb) =>
      a.status === b.status &&
      portless(a.headers.location, ta) === portless(b.headers.location, tb) &&
      a.headers['x-seen-user'] === b.headers['x-seen-user'] &&
      portless(a.body.toString('latin1'), ta) === portless(b.body.toString('latin1'), tb);

    /**
     * One case through one proxy: every target alternately (order flipped every round). Targets:
     * `open` (unprotected), and per configuration a gateway-backed and a bare-backed one (and the
     * BENCH_BEFORE gateway behind the shipped one).
     */
    const measureCase = async (proxyName, c, configs, open, plain = null) => {
      const id = `proxy-${proxyName}-${c.key}`;
      // Record the gateway's answer through each bare-backed proxy, then check both answer alike.
      for (const cfg of configs) {
        const bare = cfg.bare;
        await bare.auth.record(forwardAuthUrl);
        const recorded = bare.auth.recorded();
        const viaBare = await ask(bare, c);
        const rec = await recorded;
        const viaGateway = await ask(cfg.gateway, c);
        if (viaGateway.status !== c.expected) throw new Error(`${id} ${cfg.gateway.name}: answered ${viaGateway.status}, expected ${c.expected}`);
        if (!sameAnswer(viaGateway, cfg.gateway, viaBare, bare)) {
          const show = (a) =>
            JSON.stringify({ status: a.status, location: a.headers.location, user: a.headers['x-seen-user'], body: a.body.toString('latin1').slice(0, 200) });
          throw new Error(`${id}: through ${bare.name} the answer differs from the gateway's: ${show(viaBare)} vs ${show(viaGateway)}`);
        }
        if (cfg.before !== undefined) {
          const viaBefore = await ask(cfg.before, c);
          if (viaBefore.status !== c.expected) throw new Error(`${id} ${cfg.before.name}: answered ${viaBefore.status}, expected ${c.expected}`);
        }
        bare.recordedAnswer = rec;
        log(
          `  ${id}: ${bare.name} answers like the gateway did to ${rec.method} ${rec.path}: ${rec.status}, ${Object.keys(rec.headers).length} headers, ${rec.bodyLength}-byte body`,
        );
      }
      const targets = [open, ...(plain === null ? [] : [plain]), ...configs.flatMap((cfg) => [cfg.gateway, cfg.bare, ...(cfg.before ? [cfg.before] : [])])];
      const request = { method: 'GET', path: PATH, headers: c.headers };
      const perRound = [];
      for (let r = 0; r < rounds; r += 1) {
        const order = r % 2 === 0 ? targets : [...targets].reverse();
        const got = new Map();
        for (const t of order) {
          const res = await run(t, request);
          checkStatuses(res, t === open || t === plain ? 200 : c.expected, `${id} ${t.name}`);
          if (res.total === 0) throw new Error(`${id} ${t.name}: no answer in ${duration} s`);
          got.set(t, res);
        }
        perRound.push(got);
        const parts = targets.map((t) => `${t.name} ${got.get(t).rate.toFixed(0)}`);
        const ratios = configs.map(
          (cfg) =>
            `${cfg.label} (a) ${(got.get(cfg.gateway).rate / got.get(open).rate).toFixed(2)} (b) ${(got.get(cfg.gateway).rate / got.get(cfg.bare).rate).toFixed(2)}` +
            ` (CPU ${(got.get(open).chainCpuUs / got.get(cfg.gateway).chainCpuUs).toFixed(2)} / ${(got.get(cfg.bare).chainCpuUs / got.get(cfg.gateway).chainCpuUs).toFixed(2)})` +
            (cfg.before ? `, before the change (b) ${(got.get(cfg.before).rate / got.get(cfg.bare).rate).toFixed(2)}` : ''),
        );
        if (plain !== null)
          ratios.push(
            `unprotected ÷ plain keep-alive ${(got.get(open).rate / got.get(plain).rate).toFixed(2)}, shipped ÷ plain ${(got.get(configs[0].gateway).rate / got.get(plain).rate).toFixed(2)}`,
          );
        log(`  ${id} round ${r + 1}: ${parts.join(', ')} req/s; ${ratios.join('; ')}`);
      }
      const side = (t) => ({
        rate: median(perRound.map((g) => g.get(t).rate)),
        p50: median(perRound.map((g) => g.get(t).p50)),
        p99: median(perRound.map((g) => g.get(t).p99)),
        proxyCpuUs: median(perRound.map((g) => g.get(t).proxyCpuUs)),
        authCpuUs: median(perRound.map((g) => g.get(t).authCpuUs)),
        chainCpuUs: median(perRound.map((g) => g.get(t).chainCpuUs)),
        authConnections: median(perRound.map((g) => g.get(t).authConnections)),
      });
      const ratio = (a, b) => median(perRound.map((g) => g.get(a).rate / g.get(b).rate));
      // The same ratio read from CPU time per answer (b's ÷ a's): steadier than req/s on a shared machine.
      const cpuRatio = (a, b) => median(perRound.map((g) => g.get(b).chainCpuUs / g.get(a).chainCpuUs));
      return {
        id,
        proxy: proxyName,
        case: c.key,
        title: `${proxyName}: ${c.title}`,
        expected: c.expected,
        open: side(open),
        // The plain keep-alive proxy: what the shipped server (auth off, and with its auth hop) costs against it.
        plain:
          plain === null
            ? undefined
            : {
                side: side(plain),
                open: ratio(open, plain),
                cpuOpen: cpuRatio(open, plain),
                shipped: ratio(configs[0].gateway, plain),
                cpuShipped: cpuRatio(configs[0].gateway, plain),
              },
        configs: configs.map((cfg) => ({
          label: cfg.label,
          shipped: cfg.shipped === true,
          gateway: side(cfg.gateway),
          bare: side(cfg.bare),
          a: ratio(cfg.gateway, open),
          b: ratio(cfg.gateway, cfg.bare),
          cpuA: cpuRatio(cfg.gateway, open),
          cpuB: cpuRatio(cfg.gateway, cfg.bare),
          recorded: cfg.bare.recordedAnswer,
          before: cfg.before
            ? { side: side(cfg.before), a: ratio(cfg.before, open), b: ratio(cfg.before, cfg.bare), cpuB: cpuRatio(cfg.before, cfg.bare) }
            : undefined,
        })),
        extra: [],
        rounds,
        durationSeconds: duration,
      };
    };

    const warm = async (targets, c) => {
      for (const t of targets)
        await load({ url: t.proxy.url, connections: SETTINGS.connections, duration: 1, requests: [{ method: 'GET', path: PATH, headers: c.headers }] });
    };

    if (wanted('proxy-nginx')) {
      log(`proxy scenarios: nginx ${SETTINGS.proxyRounds} rounds of ${duration} s, one worker, shipped examples/nginx`);
      const target = (p, auth, label, extra = {}) => ({ name: p.name, proxy: p, auth, label, ...extra });
      const open = target(await proxy(startNginx, { name: 'nginx-unprotected', forwardAuthUrl, variant: 'unprotected' }), null, 'unprotected');
      const plain = target(await proxy(startNginx, { name: 'nginx-plain-keepalive', forwardAuthUrl, variant: 'plain' }), null, 'plain keep-alive proxy');
      const configs = [];
      const configFor = async (variant, label, shipped) => {
        const bare = await bareAuth(`bare-auth-${variant}`);
        configs.push({
          label,
          shipped,
          gateway: target(await proxy(startNginx, { name: `nginx-${variant}-gateway`, forwardAuthUrl, variant }), gateway, label),
          bare: target(await proxy(startNginx, { name: `nginx-${variant}-bare`, forwardAuthUrl: bare.url, variant }), bare, label),
          ...(shipped && before !== null
            ? {
                before: target(
                  await proxy(startNginx, { name: `nginx-${variant}-before`, forwardAuthUrl: before.forwardAuthUrl, gatewayPort: before.gatewayPort, variant }),
                  before.gateway,
                  label,
                ),
              }
            : {}),
        });
      };
      await configFor('shipped', 'shipped template (issue 20 shape)', true);
      // Before and after in one run: the shape before issue 20 as a bench-only variant of the shipped template.
      await configFor('previous', 'before issue 20: GET, no keepalive pool (bench variant)', false);

      // nginx's own auth_basic with the gateway's bcrypt hash: what people use instead for headless clients.
      const htpasswd = path.join(dir, 'htpasswd');
      fs.writeFileSync(htpasswd, `${USERNAME}:${HASH}\n`, { mode: 0o644 });
      // Run as root (CI containers), nginx's worker switches to an unprivileged user: it must reach the file.
      fs.chmodSync(dir, 0o755);
      const authBasicPort = await freePort();
      const authBasic = await proxy(startNginx, {
        name: 'nginx-auth-basic',
        port: authBasicPort,
        appHost: 'unused.bench.test',
        forwardAuthUrl,
        variant: 'unprotected',
        extraServers: [
          [
            'server {',
            `    listen 127.0.0.1:${authBasicPort};`,
            `    server_name ${APP_HOST};`,
            '    location / {',
            '        auth_basic "bench";',
            `        auth_basic_user_file ${htpasswd};`,
            '        proxy_set_header Authorization "";',
            `        proxy_pass http://127.0.0.1:${app.port};`,
            '    }',
            '}',
            '',
          ].join('\n'),
        ],
      });
      // Each request costs a bcrypt (cost 10) in nginx's one worker, which blocks it: nginx reads
      // every waiting request and checks its password before it serves any upstream answer, so with
      // 50 connections the first answer comes after 50 bcrypts. Measured once after the Basic
      // rounds, with fewer connections and a longer run; the difference is three orders of magnitude.
      const authBasicTarget = { ...target(authBasic, null, 'nginx auth_basic, same bcrypt hash (no cache)'), connections: 4, duration: SETTINGS.quick ? 5 : 8 };

      await warm([configs[0].gateway, ...(configs[0].before ? [configs[0].before] : []), ...(configs[1] ? [configs[1].gateway] : [])], all[0]);
      for (const c of all) {
        const summary = await measureCase('nginx', c, configs, open, plain);
        if (c.key === 'basic') {
          // nginx really checks the bcrypt hash: a wrong password is refused, the right one passes.
          const wrong = { ...c.headers, authorization: `Basic ${Buffer.from(`${USERNAME}:wrong-${PASSWORD}`).toString('base64')}` };
          const refused = await probe(authBasic.url, { path: PATH, headers: wrong });
          const passed = await probe(authBasic.url, { path: PATH, headers: c.headers });
          if (refused.status !== 401 || passed.status !== 200)
            throw new Error(`nginx auth_basic: wrong password ${refused.status}, right one ${passed.status}`);
          const res = await run(authBasicTarget, { method: 'GET', path: PATH, headers: c.headers });
          checkStatuses(res, 200, `${summary.id} ${authBasicTarget.name}`);
          if (res.total === 0) throw new Error(`${summary.id} ${authBasicTarget.name}: no answer in ${authBasicTarget.duration} s`);
          const shipped = summary.configs[0].gateway;
          summary.extra.push({
            label: authBasicTarget.label,
            side: {
              rate: res.rate,
              p50: res.p50,
              p99: res.p99,
              proxyCpuUs: res.proxyCpuUs,
              chainCpuUs: res.chainCpuUs,
              connections: authBasicTarget.connections,
              seconds: authBasicTarget.duration,
            },
            vsGateway: res.rate / shipped.rate,
            vsOpen: res.rate / summary.open.rate,
          });
          log(
            `  ${summary.id}: nginx auth_basic ${res.rate.toFixed(1)} req/s (p50 ${res.p50} ms, ${authBasicTarget.connections} connections, ${authBasicTarget.duration} s), ${(res.proxyCpuUs / 1000).toFixed(1)} ms of nginx CPU per request`,
          );
        }
        results.push(summary);
      }
    }

    if (wanted('proxy-caddy')) {
      log(`proxy scenarios: caddy ${SETTINGS.proxyRounds} rounds of ${duration} s, shipped examples/caddy/Caddyfile`);
      const caddyOptions = (name, authPort, extra = {}) => ({
        name,
        authHost: AUTH_HOST,
        gatewayPort: Number(new URL(gateway.url).port),
        forwardAuthHostPort: `127.0.0.1:${authPort}`,
        ...extra,
      });
      const target = (p, auth, label, extra = {}) => ({ name: p.name, proxy: p, auth, label, ...extra });
      const open = target(await proxy(startCaddy, caddyOptions('caddy-unprotected', forwardAuthPort, { unprotected: true })), null, 'unprotected');
      const configs = [];
      const configFor = async (variant, label, shipped) => {
        const bare = await bareAuth(`bare-auth-caddy-${variant}`);
        configs.push({
          label,
          shipped,
          gateway: target(await proxy(startCaddy, caddyOptions(`caddy-${variant}-gateway`, forwardAuthPort, { variant })), gateway, label),
          bare: target(await proxy(startCaddy, caddyOptions(`caddy-${variant}-bare`, bare.port, { variant })), bare, label),
          ...(shipped && before !== null
            ? {
                before: target(
                  await proxy(startCaddy, caddyOptions(`caddy-${variant}-before`, before.forwardAuthPort, { gatewayPort: before.gatewayPort, variant })),
                  before.gateway,
                  label,
                ),
              }
            : {}),
        });
      };
      await configFor('shipped', 'shipped Caddyfile', true);
      // Before and after in one run: the shipped file without its `Prefer: return=minimal` line (a 2xx with a body).
      await configFor('previous', 'before: no Prefer header, the 2xx with its body (bench variant)', false);
      await warm([configs[0].gateway, ...(configs[0].before ? [configs[0].before] : []), configs[1].gateway], all[0]);
      for (const c of all) results.push(await measureCase('caddy', c, configs, open));
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    for (const c of children.reverse()) await stopProcess(c);
    // BENCH_KEEP_DIR=1 keeps the proxies' configurations and logs for a look after the run.
    if (process.env.BENCH_KEEP_DIR === '1') log(`proxy scenarios: configurations and logs kept in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const s of results) {
    const shipped = s.configs.find((cfg) => cfg.shipped);
    const checks = [];
    if (s.proxy === 'nginx') checks.push({ text: '(a) ≥ 0.50', pass: shipped.a >= 0.5 });
    checks.push({ text: '(b) ≥ 0.90', pass: shipped.b >= 0.9 });
    s.budget = { text: checks.map((k) => k.text).join(', '), pass: checks.every((k) => k.pass), checks };
  }
  return results;
}

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** The "Through the proxy" table for docs/benchmark.md and the console. */
function proxyTable(results) {
  const lines = [
    '| proxy, case | configuration | gateway req/s (p99 ms) | bare auth req/s (new connections per answer) | unprotected req/s | (a) protected ÷ unprotected (CPU) | (b) gateway ÷ bare auth (CPU) | chain CPU µs/answer: gateway / bare / unprotected | budget |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of results) {
    for (const cfg of s.configs) {
      const verdict = cfg.shipped ? s.budget.checks.map((k) => `${k.text} ${k.pass ? 'pass' : 'FAIL'}`).join(', ') : '(variant: no budget)';
      lines.push(
        `| ${s.title} | ${cfg.label} | ${fmt(cfg.gateway.rate)} (${fmt(cfg.gateway.p99, 1)}) | ${fmt(cfg.bare.rate)} (${fmt(cfg.bare.authConnections, 2)}) | ${fmt(s.open.rate)} | ${fmt(cfg.a, 2)} (${fmt(cfg.cpuA, 2)}) | ${fmt(cfg.b, 2)} (${fmt(cfg.cpuB, 2)}) | ${fmt(cfg.gateway.chainCpuUs)} / ${fmt(cfg.bare.chainCpuUs)} / ${fmt(s.open.chainCpuUs)} | ${verdict} |`,
      );
      if (cfg.before !== undefined) {
        const b = cfg.before;
        lines.push(
          `| ${s.title} | ${cfg.label}, gateway before the change (BENCH_BEFORE) | ${fmt(b.side.rate)} (${fmt(b.side.p99, 1)}) | | | ${fmt(b.a, 2)} | ${fmt(b.b, 2)} (${fmt(b.cpuB, 2)}) | ${fmt(b.side.chainCpuUs)} / – / – | (before: no budget) |`,
        );
      }
    }
    if (s.plain !== undefined) {
      const p = s.plain;
      lines.push(
        `| ${s.title} | plain keep-alive proxy to the same app (reference: no auth, no header rewriting) | ${fmt(p.side.rate)} (${fmt(p.side.p99, 1)}) | | ${fmt(s.open.rate)} | unprotected ÷ plain ${fmt(p.open, 2)} (${fmt(p.cpuOpen, 2)}); shipped ÷ plain ${fmt(p.shipped, 2)} (${fmt(p.cpuShipped, 2)}) | | – / – / ${fmt(p.side.chainCpuUs)} | |`,
      );
    }
    for (const x of s.extra) {
      lines.push(
        `| ${s.title} | ${x.label} (once, ${x.side.connections} connections, ${x.side.seconds} s) | ${fmt(x.side.rate, 1)} (${fmt(x.side.p99, 0)}) | | ${fmt(s.open.rate)} | ${fmt(x.vsOpen, 3)} | ${fmt(x.vsGateway, 3)} ÷ gateway through the shipped template | ${fmt(x.side.chainCpuUs)} / – / – | |`,
      );
    }
  }
  return lines.join('\n');
}

module.exports = { proxyScenarios, proxyTable };
