#!/usr/bin/env bash
# Installs what the security suite needs from Debian's packages: nginx and caddy (through
# e2e-setup.sh) and Flask for Python 3 (python3-flask), the second prefix-routing upstream.
# Skips what is present. Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/apt.sh
bash scripts/e2e-setup.sh

if python3 -c 'import flask' >/dev/null 2>&1; then
  echo "security-setup: python3 with Flask is present"
  exit 0
fi
use_sudo_unless_root
echo "security-setup: installing python3-flask"
apt_install python3 python3-flask
echo "security-setup: done ($(python3 -c 'import importlib.metadata as m; print("flask", m.version("flask"))'))"
