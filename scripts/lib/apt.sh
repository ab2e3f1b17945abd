# Shared by scripts/*-setup.sh (sourced, not run): installing Debian packages for a test suite.
# Each setup script decides what is missing and what it prints; these functions do the installing.

# SUDO: empty as root, else "sudo" (apt-get, tee and rm below run through it).
use_sudo_unless_root() {
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
}

# Keeps invoke-rc.d from starting the packages' own services during the install (nginx or Apache
# would grab port 80, PostgreSQL 5432): the suites start their own servers on free loopback ports.
# A policy-rc.d that already existed is left alone; one made here is removed when the script exits.
hold_service_starts() {
  policy_created=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    policy_created=1
  fi
  trap 'if [ -n "$policy_created" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi' EXIT
}

# apt_install PACKAGE...: updates the package lists and installs without recommends, quietly.
# Other jobs on the machine may hold the dpkg lock for a while: wait for it rather than fail.
apt_install() {
  local apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get "${apt_opts[@]}" update -qq
  $SUDO apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "$@" >/dev/null
}
