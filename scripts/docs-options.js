#!/usr/bin/env node
// Regenerates the option tables of docs/configuration.md (between the options markers) from the
// option rows of src/config (one file per section, put together in src/config/options.ts).
// test/unit/config/option-docs.test.ts fails when the two differ, so run this after changing an option.
const { buildSync } = require('esbuild');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'portcullis-docs-'));
try {
  const outfile = join(dir, 'option-docs.js');
  buildSync({ entryPoints: [join(root, 'src/config/option-docs.ts')], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'error' });
  const { withOptionsDoc } = require(outfile);
  const file = join(root, 'docs/configuration.md');
  const before = readFileSync(file, 'utf8');
  const after = withOptionsDoc(before);
  if (after === before) console.log('docs/configuration.md: options up to date');
  else {
    writeFileSync(file, after);
    console.log('docs/configuration.md: options regenerated');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
