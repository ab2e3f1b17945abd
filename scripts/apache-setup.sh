#!/usr/bin/env bash
# Installs the relying party of the OpenID Connect end-to-end suite from Debian's packages: Apache 2
# and mod_auth_openidc (libapache2-mod-auth-openidc). Skips the install when both are present.
# Needs root (or sudo) for apt-get. The suite renders its own configuration and runs `apache2 -f`
# as a child process on free loopback ports; the package's system service is neither needed nor
# started by this script.
set -euo pipefail

missing=()
[ -x /usr/sbin/apache2 ] || missing+=(apache2)
[ -f /usr/lib/apache2/modules/mod_auth_openidc.so ] || missing+=(libapache2-mod-auth-openidc)

if [ ${#missing[@]} -eq 0 ]; then
  echo "apache-setup: apache2 and mod_auth_openidc are present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

echo "apache-setup: installing ${missing[*]}"
# Other jobs on the machine may hold the dpkg lock for a while: wait for it rather than fail.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
export DEBIAN_FRONTEND=noninteractive
# Do not start the package's own service (it would grab port 80); the suite runs its own.
policy_created=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  policy_created=1
fi
cleanup() { if [ -n "$policy_created" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi; }
trap cleanup EXIT

$SUDO apt-get "${APT_OPTS[@]}" update -qq
# --no-install-recommends keeps CI small: the module needs only apache2-bin and its libraries
# (libcjose, libjansson, libhiredis, libcurl), not apache2-doc or ssl-cert.
$SUDO apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "apache-setup: done ($(/usr/sbin/apache2 -v 2>/dev/null | head -1); mod_auth_openidc $(dpkg-query -W -f='${Version}' libapache2-mod-auth-openidc 2>/dev/null))"
