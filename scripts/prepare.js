// npm's `prepare` step (run by `npm ci` and `npm install` in a checkout): builds the gateway once,
// at install time, so `npm start` and `npx portcullis` start the built code at once.
// Skipped, with a line saying why, where building is impossible or not wanted:
// - without the dev dependencies (`npm ci --omit=dev`): TypeScript and esbuild are not there;
//   production installs take dist/ from a build stage (see the Dockerfile);
// - without the sources (the Dockerfile installs the dependencies before copying src/, so that
//   layer is reused while only the code changes): the build runs in a later step.
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

function installed(name) {
  try {
    require.resolve(`${name}/package.json`, { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

if (!existsSync(join(root, 'src', 'main.ts'))) {
  console.log('portcullis: prepare: no sources here yet, not building (run "npm run build" once they are)');
} else if (!installed('typescript') || !installed('esbuild')) {
  console.log('portcullis: prepare: dev dependencies not installed, not building (production installs use a dist/ built elsewhere)');
} else {
  // npm_execpath is the npm running this step; fall back to the one on PATH.
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm, 'run', 'build', '--silent']] : ['npm', ['run', 'build', '--silent']];
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
