#!/usr/bin/env bash
# Installs what the end-to-end suite needs from Debian's packages: nginx, caddy and chromium (and
# openssl, which makes the self-signed certificates, gettext-base's envsubst, which renders the
# nginx examples, and zbar-tools, whose zbarimg decodes the QR codes of `portcullis totp enroll`).
# Skips the install when all three are present. Needs root (or sudo) for apt-get.
# The suite starts its own nginx and caddy as child processes; the packages' system services are
# neither needed nor started by this script.
set -euo pipefail

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

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

echo "e2e-setup: installing ${missing[*]}"
# Other jobs on the machine may hold the dpkg lock for a while: wait for it rather than fail.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
export DEBIAN_FRONTEND=noninteractive
# Do not start the packages' own services (nginx would grab port 80); the suite runs its own.
policy_created=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  policy_created=1
fi
cleanup() { if [ -n "$policy_created" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi; }
trap cleanup EXIT

$SUDO apt-get "${APT_OPTS[@]}" update -qq
$SUDO apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}" fonts-dejavu-core >/dev/null
echo "e2e-setup: done ($(nginx -v 2>&1); caddy $(caddy version 2>/dev/null | cut -d' ' -f1); $(/usr/bin/chromium --version 2>/dev/null))"
