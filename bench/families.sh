#!/usr/bin/env bash
# make bench-families: CPU per advertisement, family by family (bench/advert_families.py:
# callgrind's instructions per advertisement for every format blectl-mock knows, then CPU and
# allocations per advertisement without it; about a minute a format). Uses .build/release
# (built when missing), or BLECTL_BIN; arguments go to advert_families.py (e.g. --formats,
# --json FILE).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

bench_packages
bench_binaries release
bench_tools
rm -rf "$work/families"
exec python3 "$root/bench/advert_families.py" --bin "$bin" --sock-reader "$work/tools/sock_reader" \
    --alloc-counter "$work/tools/alloc_counter.so" "$@"
