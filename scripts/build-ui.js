// Builds the login UI (ui/) into dist/ui: esbuild bundles and minifies the TypeScript and the CSS
// into content-hashed files under assets/, so the gateway can cache them for a year; index.html
// is rewritten to point at them and assets.json lists them for the server.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { basename, join, relative } = require('node:path');
const esbuild = require('esbuild');

const root = join(__dirname, '..');
const source = join(root, 'ui');
const out = join(root, 'dist', 'ui');
const assetsDir = join(out, 'assets');

async function main() {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(assetsDir, { recursive: true });

  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [join(source, 'src', 'main.ts'), join(source, 'app.css')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['chrome109', 'firefox115', 'safari15.4'],
    entryNames: '[name].[hash]',
    outdir: assetsDir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });

  // index.html names each asset by its plain name; map those to the hashed files.
  const renames = new Map();
  for (const [file, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint === undefined) continue;
    const built = basename(file);
    const plain = built.replace(/\.[A-Z0-9]+\.(js|css)$/, '.$1');
    renames.set(plain, built);
  }
  for (const file of ['icon.svg']) {
    const body = readFileSync(join(source, file));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
    const built = file.replace(/\.([a-z0-9]+)$/, `.${hash}.$1`);
    writeFileSync(join(assetsDir, built), body);
    renames.set(file, built);
  }

  let html = readFileSync(join(source, 'index.html'), 'utf8');
  for (const [plain, built] of renames) {
    const ref = `/assets/${plain}`;
    if (!html.includes(ref)) throw new Error(`ui/index.html does not reference ${ref}`);
    html = html.replace(ref, `/assets/${built}`);
  }
  writeFileSync(join(out, 'index.html'), html);
  const names = [...renames.values()].sort();
  writeFileSync(join(out, 'assets.json'), `${JSON.stringify(names)}\n`);
  console.log(`ui: ${names.join(', ')} -> ${relative(root, out)}`);
}

main().catch((e) => {
  console.error(`ui build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
