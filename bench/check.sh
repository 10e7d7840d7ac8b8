#!/usr/bin/env bash
# make bench-check, for CI (about a minute, no timing judged):
# 1. the benchmark checks itself: the matching logic, the mock's emit log, counts that add
#    up and 0 loss at a moderate rate for the C subscriber and blectld, the C subscriber's
#    advertisement floor and the SQLite floor ("N passed, N failed");
# 2. the regression guard (bench/guard.py): blectld's heap allocations and system calls per
#    notification, instructions per notification (callgrind) and heap allocations per
#    advertisement (about 20 s) against bench/budget.json, failing on more than 20 % growth (5 % for the
#    allocations per notification) or a fall of
#    more than 10 % (the budget too loose), and the idle blectld --mock's RSS against its ceiling.
# Exits non-zero when either fails. Uses .build/release (built when missing), or BLECTL_BIN:
# the budget is a release build's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

checker=""
cleanup() {
    if [ -n "$checker" ] && kill -0 "$checker" 2>/dev/null; then
        kill -TERM "$checker" 2>/dev/null || true
        wait "$checker" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_packages
bench_binaries release
bench_tools
rm -rf "$work/check" "$work/guard"

# In the background, so the traps can stop it (and it its processes).
run() {
    "$@" &
    checker=$!
    wait "$checker" || status=$?
    checker=""
}

status=0
run python3 "$root/bench/check.py" --bin "$bin" --c-subscriber "$work/tools/c_subscriber" \
    --sock-reader "$work/tools/sock_reader" --sqlite-floor "$work/tools/sqlite_floor"
run python3 "$root/bench/guard.py" --bin "$bin" --sock-reader "$work/tools/sock_reader" \
    --alloc-counter "$work/tools/alloc_counter.so"
exit $status
