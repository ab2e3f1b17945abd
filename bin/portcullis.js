#!/usr/bin/env node
// The `portcullis` command and `npm start`: runs the built gateway in this very process. No child
// process on purpose: the signal a supervisor sends (systemd, docker stop, npm forwarding Ctrl-C or
// SIGTERM) reaches the gateway itself, which then shuts down gracefully; nothing is left orphaned.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'src', 'main.js');
if (!existsSync(main)) {
  // A checkout whose build never ran (`npm ci --ignore-scripts`, or `--omit=dev` without a dist/ from
  // elsewhere): one line that says what to do, not a module-not-found stack trace. Exit code 1: the
  // command could not be carried out (see "Exit codes" in the README).
  process.stderr.write(
    'portcullis: not built: dist/src/main.js is missing. Run "npm run build" (npm ci and npm install do it when the dev dependencies are installed).\n',
  );
  process.exit(1);
}
require(main);
