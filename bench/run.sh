#!/usr/bin/env bash
# make bench: blectld against a minimal C libdbus subscriber and Bleak on the same workload
# (blectl-mock on a private dbus-daemon), in one run; prints one table. See docs/benchmarks.md.
#
#   bench/run.sh [bench.py options]     e.g. --runs 5, --scale 50, --burst 50000
#
# Environment: BENCH_WORK (scratch, default /tmp/blectl-bench), BLECTL_BIN (directory with
# blectld and blectl-mock; default .build/release, built when missing). Every process it
# starts is stopped on exit.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

orchestrator=""
cleanup() {
    if [ -n "$orchestrator" ] && kill -0 "$orchestrator" 2>/dev/null; then
        kill -TERM "$orchestrator" 2>/dev/null || true
        wait "$orchestrator" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_packages
bench_binaries release
bench_tools
bench_venv

# Last run's per-session files go; the venv and tools stay.
rm -rf "$work"/run[0-9]*

machine="$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), Linux $(uname -r)"
note "machine: $machine"
python3 "$root/bench/bench.py" --bin "$bin" --c-subscriber "$work/tools/c_subscriber" \
    --sock-reader "$work/tools/sock_reader" ${venv_python:+--python "$venv_python"} "$@" &
orchestrator=$!
status=0
wait "$orchestrator" || status=$?
orchestrator=""
# MQTT: CPU per reading on against off, and the drain of a 100,000-reading backlog
# (bench/mqtt_bench.py; BENCH_MQTT=0 skips it).
if [ "${BENCH_MQTT:-1}" != 0 ]; then
    "$root/scripts/install-deps.sh" mosquitto
    cp "$root/.build/release/blectl" "$bin/" 2>/dev/null || true
    /usr/bin/python3 "$root/bench/mqtt_bench.py" --bin "$bin" || status=$?
fi
# Advertising sensors: 200 of every format at 1 Hz through the mock (bench/advert_bench.py;
# BENCH_ADVERTS=0 skips it).
if [ "${BENCH_ADVERTS:-1}" != 0 ]; then
    cp "$root/.build/release/blectl" "$bin/" 2>/dev/null || true
    /usr/bin/python3 "$root/bench/advert_bench.py" --bin "$bin" || status=$?
fi
# Theengs Gateway against blectld: 200 BTHome and pvvx sensors at 1 Hz, both publishing to one
# mosquitto, after the C floor that only hears them (bench/theengs_bench.py; BENCH_THEENGS=0
# skips it, and so does no PyPI).
if [ "${BENCH_THEENGS:-1}" != 0 ]; then
    bench_theengs_venv
    if [ -n "$theengs_python" ]; then
        "$root/scripts/install-deps.sh" mosquitto
        "$theengs_python" "$root/bench/theengs_bench.py" --bin "$bin" --c-subscriber "$work/tools/c_subscriber" \
            --json "$work/theengs.json" --theengs "$(dirname "$theengs_python")/TheengsGateway" || status=$?
    else
        note "Theengs Gateway skipped: it could not be installed from PyPI"
    fi
fi
# SQLite alone: the history's rows inserted from C with the store's schema and settings, in
# batches of 10,000 and of 1,000: the least the store costs per reading; then the candidate
# schema 2 (bench/sqlite_floor.c; BENCH_SQLITE=0 skips it).
if [ "${BENCH_SQLITE:-1}" != 0 ]; then
    for run in "--batch 10000" "--batch 1000" "--batch 10000 --schema 2"; do
        rm -f "$work"/floor.sqlite3*
        # shellcheck disable=SC2086 # $run is options, split on purpose
        "$work/tools/sqlite_floor" --db "$work/floor.sqlite3" $run || status=$?
    done
    rm -f "$work"/floor.sqlite3*
fi
# The CLI: blectl watch (--json, then the text form) on one burst to 20 thermometers, next to
# the raw socket reader, from blectld as shipped and from blectld without the store (its
# burst rate is about twice as high) (bench/cli_watch.py; BENCH_CLI=0 skips it).
if [ "${BENCH_CLI:-1}" != 0 ]; then
    cp "$root/.build/release/blectl" "$bin/" 2>/dev/null || true
    for store in "" --store-off; do
        for plain in "" --plain; do
            python3 "$root/bench/cli_watch.py" --bin "$bin" --sock-reader "$work/tools/sock_reader" \
                ${store:+"$store"} ${plain:+"$plain"} || status=$?
        done
    done
fi
echo "Machine: $machine."
[ -n "$venv_python" ] && echo "Bleak $("$venv_python" -c 'import importlib.metadata as m; print(m.version("bleak"), "with dbus-fast", m.version("dbus-fast"))'), $("$venv_python" --version)."
[ -n "${theengs_python:-}" ] && echo "Theengs Gateway $("$theengs_python" -c 'import importlib.metadata as m; print(m.version("TheengsGateway"), "with Theengs Decoder", m.version("TheengsDecoder"), "and Bleak", m.version("bleak"))')."
exit $status
