#!/usr/bin/env bash
# Installs the system packages cargo-tso needs (LLVM 19 and clang-19) on Debian 12,
# plus any extra package names given as arguments (the test suite adds csmith and
# chromium).
# As root it installs them; otherwise it prints the exact command to run.
set -euo pipefail
PKGS="clang-19 llvm-19-dev libpolly-19-dev zlib1g-dev libzstd-dev $*"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then exit 0; fi
if [ "$(id -u)" -eq 0 ]; then
  echo "cargo-tso setup: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "cargo-tso needs these Debian packages:$missing" >&2
  echo "Install them with:" >&2
  echo "    sudo apt-get install -y$missing" >&2
  exit 1
fi
