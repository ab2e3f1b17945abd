#!/usr/bin/env bash
# Makes sure a redis-server binary is installed (Debian package). The tests start their own
# redis-server processes on free loopback ports in throwaway directories; the Debian service is
# never started here and never used.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "redis-server is missing and this is not root: install the Debian package redis-server" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# RUNLEVEL=1 tells invoke-rc.d not to start the packaged service.
RUNLEVEL=1 apt-get install -y -qq --no-install-recommends redis-server >/dev/null
# If a service manager started it anyway, stop it: nothing here talks to it.
if command -v service >/dev/null 2>&1; then service redis-server stop >/dev/null 2>&1 || true; fi
command -v redis-server >/dev/null
