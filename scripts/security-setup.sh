#!/usr/bin/env bash
# Installs what the security suite needs from Debian's packages: nginx and caddy (through
# e2e-setup.sh) and Flask for Python 3 (python3-flask), the second prefix-routing upstream.
# Skips what is present. Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/e2e-setup.sh

if python3 -c 'import flask' >/dev/null 2>&1; then
  echo "security-setup: python3 with Flask is present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "security-setup: installing python3-flask"
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get "${APT_OPTS[@]}" update -qq
$SUDO apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends python3 python3-flask >/dev/null
echo "security-setup: done ($(python3 -c 'import importlib.metadata as m; print("flask", m.version("flask"))'))"
