// The Dockerfile's build, without a Docker engine (none runs in our CI): copies the build context
// as .dockerignore lets it through, performs each stage's COPY and RUN steps in a temp directory
// (absolute image paths mapped under it), then starts the final stage's CMD with its ENV, runs its
// HEALTHCHECK command against it, and stops it with SIGTERM as `docker stop` would.
//
//   node scripts/docker-free-build.js [--node-dir DIR] [--out DIR]
//
// --node-dir: a Node installation (DIR/bin/node, DIR/include/node) to build and run with, so the
// Node of the Dockerfile's base image is the one used (.ci/run passes the current LTS); native
// modules are compiled against its headers. Default: the Node running this script.
// --out: where to build (kept); default a temp directory, removed at the end.
//
// What it cannot show (and says so): the base image itself, apt-get steps (skipped: this machine
// has python3, make and g++), USER (files are not chowned; the process runs as whoever runs this),
// VOLUME and EXPOSE. test/unit/dockerfile.test.ts checks those lines' content instead.
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { dirname, join, resolve } = require('node:path');
const { contextFiles, readRepository, splitFlags } = require('./dockerfile');

const root = join(__dirname, '..');
const argv = process.argv.slice(2);
const option = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const nodeDir = option('--node-dir') === undefined ? null : resolve(option('--node-dir'));
const keep = option('--out') !== undefined;
const out = keep ? resolve(option('--out')) : mkdtempSync(join(tmpdir(), 'portcullis-docker-free-'));
const say = (line) => console.log(`docker-free build: ${line}`);
const fail = (line) => {
  console.error(`docker-free build: FAILED: ${line}`);
  process.exitCode = 1;
};

const pathEnv = nodeDir === null ? process.env.PATH : `${join(nodeDir, 'bin')}:${process.env.PATH}`;
// A native module (better-sqlite3) is compiled against the headers of the Node that runs it.
// Packages come from npm's cache when it has them (CI's own npm ci filled it): the same lock file, fewer round trips.
const baseEnv = { ...process.env, PATH: pathEnv, npm_config_prefer_offline: 'true', ...(nodeDir === null ? {} : { npm_config_nodedir: nodeDir }) };
const nodeBin = nodeDir === null ? process.execPath : join(nodeDir, 'bin', 'node');

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Runs a JSON exec-form command (CMD, HEALTHCHECK CMD) with `env`; node is the chosen Node. */
const execForm = (args) => {
  const list = JSON.parse(args);
  if (!Array.isArray(list) || list.length === 0) throw new Error(`not an exec-form command: ${args}`);
  return list[0] === 'node' ? [nodeBin, ...list.slice(1)] : list;
};

async function main() {
  const { stages, ignore } = readRepository(root);
  const context = join(out, 'context');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(context, { recursive: true });
  const files = contextFiles(root, ignore);
  for (const file of files) cpSync(join(root, file), join(context, file));
  say(`context: ${files.length} files (as .dockerignore allows), node ${spawnSync(nodeBin, ['--version']).stdout.toString().trim()}`);

  const stageRoots = new Map();
  let final = null;
  for (const stage of stages) {
    const stageRoot = join(out, 'stages', stage.name);
    mkdirSync(stageRoot, { recursive: true });
    stageRoots.set(stage.name, stageRoot);
    const inImage = (p, workdir) => (p.startsWith('/') ? join(stageRoot, p) : join(workdir, p));
    let workdir = stageRoot;
    const env = {};
    let healthcheck = null;
    let cmd = null;
    say(`stage ${stage.name} (FROM ${stage.image})`);
    for (const ins of stage.instructions) {
      const { flags, rest } = splitFlags(ins.args);
      switch (ins.keyword) {
        case 'WORKDIR':
          workdir = inImage(rest, workdir);
          mkdirSync(workdir, { recursive: true });
          break;
        case 'ENV': {
          const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(rest);
          if (m === null) throw new Error(`line ${ins.line}: ENV must be NAME=value`);
          env[m[1]] = m[2];
          break;
        }
        case 'COPY': {
          const parts = rest.split(/\s+/);
          const dest = parts.pop();
          const from = flags.from === undefined ? context : stageRoots.get(flags.from);
          if (from === undefined) throw new Error(`line ${ins.line}: no stage ${flags.from}`);
          const target = inImage(dest, workdir);
          for (const source of parts) {
            const src = flags.from === undefined ? join(context, source) : join(from, source);
            if (!existsSync(src))
              throw new Error(`line ${ins.line}: COPY ${source}: not in the ${flags.from === undefined ? 'context' : `stage ${flags.from}`}`);
            // A directory's contents go into the target; files into it when it ends in "/" or there are several.
            const into = dest.endsWith('/') || parts.length > 1 ? join(target, source.split('/').pop()) : target;
            mkdirSync(dirname(into), { recursive: true });
            cpSync(src, into, { recursive: true });
          }
          break;
        }
        case 'RUN': {
          if (/^apt-get\b/.test(rest)) {
            say(`  skipped (system packages; present on this machine): RUN ${rest.slice(0, 70)}...`);
            break;
          }
          if (/(^|\s)\//.test(rest)) throw new Error(`line ${ins.line}: RUN with an absolute path cannot run outside the image: ${rest}`);
          say(`  RUN ${rest}`);
          const r = spawnSync('sh', ['-c', rest], { cwd: workdir, env: { ...baseEnv, ...env }, stdio: 'inherit' });
          if (r.status !== 0) throw new Error(`line ${ins.line}: RUN ${rest} exited ${r.status}`);
          break;
        }
        case 'HEALTHCHECK': {
          const m = /^CMD\s+(\[.*\])$/.exec(rest);
          if (m === null) throw new Error(`line ${ins.line}: HEALTHCHECK must be CMD [exec form]`);
          healthcheck = m[1];
          break;
        }
        case 'CMD':
          cmd = rest;
          break;
        case 'USER':
        case 'EXPOSE':
        case 'VOLUME':
        case 'ARG':
          say(`  not applied here: ${ins.keyword} ${rest}`);
          break;
        default:
          throw new Error(`line ${ins.line}: ${ins.keyword} is not understood by this script`);
      }
    }
    final = { workdir, env, healthcheck, cmd, stageRoot };
  }
  return final;
}

async function runFinal(final) {
  const { workdir, env, healthcheck, cmd } = final;
  if (cmd === null || healthcheck === null) return fail('the final stage needs a CMD and a HEALTHCHECK');
  const devOnly = ['typescript', 'esbuild', 'jest', 'eslint'].filter((p) => existsSync(join(workdir, 'node_modules', p)));
  if (devOnly.length > 0) fail(`dev dependencies in the final stage: ${devOnly.join(', ')}`);
  for (const absent of ['src', 'test', 'ui', '.git']) if (existsSync(join(workdir, absent))) fail(`${absent}/ is in the final stage`);

  const containerEnv = { PATH: pathEnv, HOME: workdir, ...env };
  // An account made with the image's own CLI, as an operator would (docker run --rm portcullis portcullis user add).
  const add = spawnSync(nodeBin, ['bin/portcullis.js', 'user', 'add', 'alice', '--plain', '--password-stdin', '--cost', '4'], {
    cwd: workdir,
    env: containerEnv,
    input: 'docker-free-password\n',
  });
  if (add.status !== 0) return fail(`portcullis user add exited ${add.status}: ${add.stderr}`);
  const port = await freePort();
  const runEnv = {
    ...containerEnv,
    APP_URL: 'http://localhost',
    SECRET: randomBytes(48).toString('base64'),
    USERS: add.stdout.toString().trim(),
    PORT: String(port),
    ADDRESS: '127.0.0.1',
  };
  const [command, ...args] = execForm(cmd);
  say(`  CMD ${cmd} (PORT ${port})`);
  const gateway = spawn(command, args, { cwd: workdir, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  gateway.stdout.on('data', (d) => (output += d));
  gateway.stderr.on('data', (d) => (output += d));
  const exited = new Promise((res) => gateway.once('exit', (code, signal) => res(code ?? signal)));
  const deadline = Date.now() + 30_000;
  while (!output.includes('portcullis listening') && Date.now() < deadline && gateway.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  if (!output.includes('portcullis listening')) {
    gateway.kill('SIGKILL');
    return fail(`the gateway did not start:\n${output}`);
  }
  const health = () => {
    const [hc, ...hcArgs] = execForm(healthcheck);
    return spawnSync(hc, hcArgs, { cwd: workdir, env: runEnv, timeout: 5000 }).status;
  };
  const up = health();
  if (up === 0) say('  HEALTHCHECK: healthy (exit 0)');
  else fail(`HEALTHCHECK exited ${up} against the running gateway`);
  if (existsSync(join(workdir, 'data', 'portcullis.db'))) say('  state in ./data (the VOLUME) as documented');
  else fail('no portcullis.db in ./data');
  gateway.kill('SIGTERM');
  const code = await exited;
  if (code === 0) say('  SIGTERM (docker stop): graceful, exit 0');
  else fail(`SIGTERM: the gateway exited ${code}\n${output}`);
  const down = health();
  if (down !== 0) say(`  HEALTHCHECK after stop: unhealthy (exit ${down}), as it must be`);
  else fail('HEALTHCHECK still says healthy with the gateway stopped');
}

main()
  .then(async (final) => {
    if (final !== null) await runFinal(final);
    if (process.exitCode === undefined || process.exitCode === 0) say('OK');
  })
  .catch((e) => fail(e.message))
  .finally(() => {
    if (!keep) rmSync(out, { recursive: true, force: true });
  });
