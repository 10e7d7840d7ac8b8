#!/usr/bin/env bash
# The history store's figures (docs/history.md), without make: append cost on the hub's
# thread, commit time per 5 s batch at 200 thermometers x 10 Hz, bytes per day of one
# thermometer at one reading per 5 s, and what one hour of it writes (bytes from
# /proc/PID/io, fsync and write calls counted by strace when it is installed).
#
#   bench/store_bench.sh [DIR]      DIR: where the scratch databases go (default /var/tmp,
#                                   a real disk: tmpfs would hide the fsyncs)
#
# Builds the release history-store-tool. Run it on a quiet machine for the timings.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
dir=${1:-/var/tmp}
mkdir -p "$dir"

cd "$root"
swift build -c release --product history-store-tool >&2
tool="$(swift build -c release --show-bin-path)/history-store-tool"

echo "history store at $(git rev-parse --short HEAD) on $(df --output=source,fstype "$dir" | tail -1 | tr -s ' ')"
"$tool" bench "$dir"
"$tool" bench "$dir" --part hour --commit-every 12   # history_commit_interval = 60 s

if command -v strace >/dev/null; then
    trace=$(mktemp)
    trap 'rm -f "$trace"' EXIT
    # The hour again under strace -c ("% time seconds usecs/call calls errors syscall"),
    # counted over the whole run: the hour's commits plus creating the file and closing it.
    # SQLite writes with pwrite64 only; fsync/fdatasync are the flushes that reach the card.
    for every in 1 12; do
        strace -f -c -e trace=fsync,fdatasync,pwrite64 -o "$trace" \
            "$tool" bench "$dir" --part hour --commit-every "$every" >/dev/null
        awk -v name="one_thermometer_5s_commit_every_$((every * 5))s" \
            '$NF ~ /^(fsync|fdatasync|pwrite64)$/ { print "syscalls_per_hour_" name "_" $NF, $4, "calls" }' "$trace"
    done
else
    echo "(strace not installed: no fsync count; apt-get install strace)"
fi
