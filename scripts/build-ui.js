// Copies the UI into dist/ui with content-hashed asset names, so assets can be cached for a year.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const out = join(root, 'dist', 'ui');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
let html = readFileSync(join(root, 'ui', 'index.html'), 'utf8');
const names = [];
for (const file of ['app.js', 'app.css']) {
  const body = readFileSync(join(root, 'ui', file));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  const name = file.replace('.', `.${hash}.`);
  writeFileSync(join(out, 'assets', name), body);
  html = html.replace(`/assets/${file}`, `/assets/${name}`);
  names.push(name);
}
writeFileSync(join(out, 'index.html'), html);
writeFileSync(join(out, 'assets.json'), JSON.stringify(names));
