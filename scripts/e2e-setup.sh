#!/usr/bin/env bash
# Installs what the end-to-end suite needs from Debian's packages: nginx, caddy and chromium (and
# openssl, which makes the self-signed certificates, gettext-base's envsubst, which renders the
# nginx examples, and zbar-tools, whose zbarimg decodes the QR codes of `portcullis totp enroll`).
# Skips the install when all three are present. Needs root (or sudo) for apt-get.
# The suite starts its own nginx and caddy as child processes; the packages' system services are
# neither needed nor started by this script.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

missing=()
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# envsubst renders the nginx examples (examples/nginx/render.sh).
command -v envsubst >/dev/null 2>&1 || missing+=(gettext-base)
# zbarimg decodes the QR codes of `portcullis totp enroll` (test/e2e/totp-qr.e2e.test.ts).
command -v zbarimg >/dev/null 2>&1 || missing+=(zbar-tools)

if [ ${#missing[@]} -eq 0 ]; then
  echo "e2e-setup: nginx, caddy, chromium, openssl, envsubst and zbarimg are present"
  exit 0
fi

use_sudo_unless_root
echo "e2e-setup: installing ${missing[*]}"
hold_service_starts
apt_install "${missing[@]}" fonts-dejavu-core
echo "e2e-setup: done ($(nginx -v 2>&1); caddy $(caddy version 2>/dev/null | cut -d' ' -f1); $(/usr/bin/chromium --version 2>/dev/null))"
