#!/bin/sh
# make test-oracle: blectl's advertisement decoders against Home Assistant's own parsers
# (Tests/Oracle/oracle.py). The parsers live in a virtual environment made from the pinned
# Tests/Oracle/requirements.txt under ~/.cache/blectl (XDG_CACHE_HOME), named by the
# requirements' hash: made once (about a minute from PyPI), reused after.
#   scripts/oracle.sh BLECTL_ORACLE_BINARY      ORACLE_RANDOM=N random advertisements per format
set -eu
cd "$(dirname "$0")/.."
tool=${1:?usage: scripts/oracle.sh BLECTL_ORACLE_BINARY}
requirements=Tests/Oracle/requirements.txt
stamp=$(sha256sum "$requirements" | cut -c1-12)
venv="${XDG_CACHE_HOME:-$HOME/.cache}/blectl/oracle-$stamp"
if [ ! -x "$venv/bin/python" ]; then
    scripts/install-deps.sh python3-venv
    echo "oracle: making $venv from $requirements"
    rm -rf "$venv.partial"
    mkdir -p "$(dirname "$venv")"
    /usr/bin/python3 -m venv "$venv.partial"
    # Every package is pinned in the file, dependencies included: nothing else is resolved.
    "$venv.partial/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements"
    mv "$venv.partial" "$venv"
fi
exec "$venv/bin/python" Tests/Oracle/oracle.py "$tool" --random "${ORACLE_RANDOM:-300}"
