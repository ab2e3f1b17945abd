'use strict';
// Prints the functions with the most self time in a V8 .cpuprofile (from `node --cpu-prof`),
// e.g. `node bench/profile-summary.js bench/tmp/main.cpuprofile 30`.
const fs = require('node:fs');

const [file, top = '25'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.js <file.cpuprofile> [count]\n');
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i += 1) {
  const node = byId.get(profile.samples[i]);
  const f = node.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
  self.set(key, (self.get(key) || 0) + (dt[i] || 0));
}
// Idle time says nothing about the hot path; shares are of the busy time.
self.delete('(idle)');
const total = [...self.values()].reduce((a, b) => a + b, 0);
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(top));
for (const [name, us] of rows) process.stdout.write(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${name}\n`);
