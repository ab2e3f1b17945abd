#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, pg_ctl, postgres) are installed (Debian package
# postgresql). The tests create their own throwaway cluster (initdb into a temp dir, a free
# loopback port) and remove it; the Debian service and its default cluster are never started here.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
have_server() {
  command -v initdb >/dev/null 2>&1 && return 0
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
}
if have_server; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "PostgreSQL is missing and this is not root: install the Debian package postgresql" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# Do not start the package's own service (it would take port 5432 and a cluster of its own).
hold_service_starts
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
have_server
