'use strict';
// Machine instructions per forward-auth request, per case, counted by valgrind (callgrind): unlike
// time, an instruction count does not move when other work shares the machine, so small changes
// show even on a busy one. Each case runs `bench/hot-path.js` twice under valgrind, with FEW and
// MANY iterations; (instructions(MANY) − instructions(FEW)) ÷ (MANY − FEW) is the cost of one
// warm request (start-up, bcrypt and JIT warm-up cancel out). Needs valgrind and a build:
//
//   npm run build --silent && node bench/instructions.js
//   INSTRUCTIONS_CASES=basic INSTRUCTIONS_DIST=<other>/dist/src node bench/instructions.js
//
// INSTRUCTIONS_FEW / INSTRUCTIONS_MANY (default 20000 / 60000). About a minute per case and run.
const { execFile } = require('node:child_process');
const path = require('node:path');

const FEW = Number(process.env.INSTRUCTIONS_FEW || 20_000);
const MANY = Number(process.env.INSTRUCTIONS_MANY || 60_000);
const CASES = (process.env.INSTRUCTIONS_CASES || 'cookie,basic,unauth-api,unauth-browser').split(',');

function count(name, iterations) {
  // The longest Basic cache life: a run under valgrind outlasts the default minute (see hot-path.js).
  const env = { ...process.env, HOT_PATH_CASES: name, HOT_PATH_SAMPLES: '1', HOT_PATH_ITERATIONS: String(iterations), HOT_PATH_BASIC_CACHE_TTL: '3600' };
  if (process.env.INSTRUCTIONS_DIST) env.HOT_PATH_DIST = process.env.INSTRUCTIONS_DIST;
  const args = ['--tool=callgrind', '--smc-check=all-non-file', '--callgrind-out-file=/dev/null', process.execPath, path.join(__dirname, 'hot-path.js')];
  return new Promise((resolve, reject) => {
    execFile('valgrind', args, { env, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      const m = /Collected : (\d+)/.exec(stderr);
      if (error || m === null) reject(new Error(`${name} × ${iterations}: ${error ? error.message : 'no count'}\n${stderr.slice(-2000)}`));
      else resolve(Number(m[1]));
    });
  });
}

async function main() {
  for (const name of CASES) {
    // Both runs at once: each is one valgrind process (it serialises its own threads), and the
    // counts do not depend on what else runs.
    const [few, many] = await Promise.all([count(name, FEW), count(name, MANY)]);
    const per = (many - few) / (MANY - FEW);
    process.stdout.write(`${name.padEnd(16)} ${Math.round(per)} instructions per request\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`instructions failed: ${e.message}\n`);
  process.exit(2);
});
