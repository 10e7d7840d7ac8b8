#!/bin/sh
# Installs the Debian packages named as arguments when any is missing.
# As root it runs apt-get; otherwise it says what to install and fails.
set -eu
missing=""
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing="$missing $package"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages:$missing" >&2
    echo "install them with: sudo apt-get install$missing" >&2
    exit 1
fi
echo "installing:$missing"
# Update the package lists only when there are none yet (a fresh machine).
if [ -z "$(find /var/lib/apt/lists -name '*Packages*' 2>/dev/null | head -n 1)" ]; then
    apt-get update -q
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
