#!/usr/bin/env bash
# A quick (< 60 s) correctness check of the benchmark itself, for CI: the matching logic, the
# mock's emit log, counts that add up and 0 loss at a moderate rate for the C subscriber and
# blectld. Prints "N passed, N failed"; exits non-zero on failure. Uses .build/release, else
# .build/debug (building debug when neither is there), or BLECTL_BIN.
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
bench_binaries debug
bench_tools
rm -rf "$work/check"

python3 "$root/bench/check.py" --bin "$bin" --c-subscriber "$work/tools/c_subscriber" \
    --sock-reader "$work/tools/sock_reader" &
checker=$!
status=0
wait "$checker" || status=$?
checker=""
exit $status
