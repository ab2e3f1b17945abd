#!/usr/bin/env bash
# Installs the relying party of the OpenID Connect end-to-end suite from Debian's packages: Apache 2
# and mod_auth_openidc (libapache2-mod-auth-openidc). Skips the install when both are present.
# Needs root (or sudo) for apt-get. The suite renders its own configuration and runs `apache2 -f`
# as a child process on free loopback ports; the package's system service is neither needed nor
# started by this script.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

missing=()
[ -x /usr/sbin/apache2 ] || missing+=(apache2)
[ -f /usr/lib/apache2/modules/mod_auth_openidc.so ] || missing+=(libapache2-mod-auth-openidc)

if [ ${#missing[@]} -eq 0 ]; then
  echo "apache-setup: apache2 and mod_auth_openidc are present"
  exit 0
fi

use_sudo_unless_root
echo "apache-setup: installing ${missing[*]}"
hold_service_starts
# Without recommends (apt_install) the module needs only apache2-bin and its libraries
# (libcjose, libjansson, libhiredis, libcurl), not apache2-doc or ssl-cert.
apt_install "${missing[@]}"
echo "apache-setup: done ($(/usr/sbin/apache2 -v 2>/dev/null | head -1); mod_auth_openidc $(dpkg-query -W -f='${Version}' libapache2-mod-auth-openidc 2>/dev/null))"
