#!/bin/sh
# make flood-soak: blectld --mock under issue 25's flood for $FLOOD_SECONDS (default 300):
# 10,000 devices, 500 advertising "Thermometer" without being one, 100 of those never
# answering Connect, and one real Pi thermometer. Every 5 s it prints blectld's CPU time and
# RSS, the mock's, how long `blectl status --json` took and how many thermometers are
# connected; it fails if status takes a second or more or the real thermometer is not
# connected. Everything it started is stopped on exit.
set -eu
. "$(dirname "$0")/mock-daemon.sh"
bin=${1:-.build/release}
seconds=${FLOOD_SECONDS:-300}
dir=$(mktemp -d "${TMPDIR:-/tmp}/blectl-flood-XXXXXX")
socket="$dir/blectld.sock"
: >"$dir/blectld.conf"
export BLECTL_MOCK_OPTIONS="--notify-interval 1s --thermometers 1 --others 0 --advertisers 0 --decoys 10000 \
--fake-thermometers 500 --hanging-connects 100 --decoy-interval 10s --decoys-after 5s"

start_mock_daemon "$bin" "$dir" --log-level notice
mock=$(pgrep -P "$daemon" blectl-mock)
failed=0
elapsed=0
echo "  time  blectld cpu   rss  mock cpu    rss  status  connected"
while [ "$elapsed" -lt "$seconds" ]; do
    sleep 5
    elapsed=$((elapsed + 5))
    start=$(date +%s%N)
    status=$("$bin/blectl" --socket "$socket" status --json || echo '{}')
    took=$((($(date +%s%N) - start) / 1000000))
    connected=$(printf '%s' "$status" | grep -o '"since"' | wc -l)
    printf '%5ss  %s  %s  %5s ms  %s\n' "$elapsed" "$(ps -o cputime=,rss= -p "$daemon")" \
        "$(ps -o cputime=,rss= -p "$mock")" "$took" "$connected"
    if [ "$took" -ge 1000 ] || [ "$connected" -lt 1 ]; then failed=1; fi
done
[ "$failed" -eq 0 ] || { echo "FAILED: status took 1 s or more, or the real thermometer was not connected" >&2; exit 1; }
echo "passed"
