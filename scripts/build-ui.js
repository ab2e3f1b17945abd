// Builds the login UI (ui/) into dist/ui: esbuild bundles and minifies the TypeScript and the CSS
// into content-hashed files under assets/, so the gateway can cache them for a year; index.html
// is rewritten to point at them and assets.json lists them for the server. Every message catalog
// but English (bundled as the fallback) becomes its own hashed file, fetched only by the pages shown
// in that language; index.html lists them (name, direction, file) in a meta element the page reads.
const { createHash } = require('node:crypto');
const { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
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

  const locales = {};
  for (const file of readdirSync(join(source, 'locales'))
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const tag = file.slice(0, -'.json'.length);
    const catalog = JSON.parse(readFileSync(join(source, 'locales', file), 'utf8'));
    const entry = { name: catalog._language, dir: catalog._direction === 'rtl' ? 'rtl' : 'ltr' };
    if (tag !== 'en') {
      // Minified: the file a visitor fetches carries no whitespace.
      const body = Buffer.from(JSON.stringify(catalog));
      const built = `locale-${tag}.${createHash('sha256').update(body).digest('hex').slice(0, 10)}.json`;
      writeFileSync(join(assetsDir, built), body);
      renames.set(`locale-${tag}`, built);
      entry.href = `/assets/${built}`;
    }
    locales[tag] = entry;
  }

  let html = readFileSync(join(source, 'index.html'), 'utf8');
  const marker = '<meta name="portcullis-locales" content="{}" />';
  if (!html.includes(marker)) throw new Error('ui/index.html has no locale list to fill');
  // An attribute, escaped as one: the list is data, and the page carries no inline script at all.
  const attribute = JSON.stringify(locales).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  html = html.replace(marker, marker.replace('{}', attribute));
  for (const [plain, built] of renames) {
    if (plain.startsWith('locale-')) continue;
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
