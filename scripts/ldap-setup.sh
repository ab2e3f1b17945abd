#!/usr/bin/env bash
# Installs OpenLDAP's server binary (slapd) and client tools from Debian's packages, for the LDAP
# test suite. Only the binaries are wanted: the package's own configuration and its system service
# are suppressed (the tests start a throwaway slapd of their own on a free loopback port).
set -euo pipefail

# openssl makes the suite's throwaway CA and certificates (StartTLS and ldaps:// tests).
if [ -x /usr/sbin/slapd ] && [ -x /usr/sbin/slapadd ] && [ -f /etc/ldap/schema/inetorgperson.schema ] && command -v openssl >/dev/null 2>&1; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "ldap-setup: slapd is missing and installing it needs root (apt-get install slapd ldap-utils)" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
# Tell slapd's maintainer scripts to create no directory of their own (no questions asked, no database).
echo "slapd slapd/no_configuration boolean true" | $SUDO debconf-set-selections

# Keep invoke-rc.d from starting a system slapd during the install; restore whatever policy existed.
POLICY=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
  created_policy=1
fi
cleanup() { if [ "$created_policy" = 1 ]; then $SUDO rm -f "$POLICY"; fi; }
trap cleanup EXIT

$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends slapd ldap-utils openssl >/dev/null

# Should a system service have started anyway, stop it: the tests never use it.
if [ -f /run/slapd/slapd.pid ] && command -v service >/dev/null 2>&1; then
  $SUDO service slapd stop >/dev/null 2>&1 || true
fi

/usr/sbin/slapd -VV 2>&1 | head -n 1
