#!/usr/bin/env python3
"""CPU per advertisement, family by family (issue 34; docs/benchmarks.md).

For every format blectl-mock's `--advertiser-formats` knows (or `--formats LIST`), one
bench/profile.py run under callgrind: SENSORS advertising sensors of that format only, each
advertising every INTERVAL, instrumented for SECONDS, the encrypted ones with the mock's keys
configured (the history on, committing as shipped); then (unless `--no-counts`) a short run
with no profiler (`--profiler counts`: CPU time and heap allocations, COUNT_SENSORS sensors
every COUNT_INTERVAL for COUNT_SECONDS, the history's commits kept out of the window).
Prints a table: format, advertisements blectld read, readings, measurements lost,
instructions per advertisement (deterministic: the figure to compare), allocations and µs of
CPU per advertisement outside callgrind (timing: the machine's load moves it). A format that
lost measurements, gave no reading or failed is listed as such, and the script exits 1. `--jobs N` measures
N formats at once: instructions and allocations do not depend on the machine's load, but the
µs of CPU are then taken beside other runs (a rough figure; --jobs 1 for the timing).

    bench/advert_families.py --bin .build/release --sock-reader /tmp/blectl-bench/tools/sock_reader \\
        --alloc-counter /tmp/blectl-bench/tools/alloc_counter.so [--formats LIST] [--json FILE]

Standard library only; every process is started and stopped by bench/profile.py.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def mock_formats(bin_dir: str) -> list:
    """Every format blectl-mock's --advertiser-formats takes, in its order (from its usage error)."""
    result = subprocess.run([os.path.join(bin_dir, "blectl-mock"), "--advertiser-formats", "?"],
                            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    found = re.search(r"--advertiser-formats takes (.*), not '\?'", result.stdout + result.stderr)
    if not found:
        raise SystemExit("advert families: blectl-mock did not list its advertiser formats")
    return found.group(1).split(", ")


def profile(args, fmt: str, profiler: str, sensors: int, interval: str, seconds: float, directory: str) -> dict:
    """One bench/profile.py run for `fmt`: its figures, or {"error": …} when it failed."""
    os.makedirs(directory, exist_ok=True)
    out = os.path.join(directory, f"{profiler}.json")
    command = [sys.executable, os.path.join(HERE, "profile.py"), "--blectld", os.path.join(args.bin, "blectld"),
               "--bin", args.bin, "--sock-reader", args.sock_reader, "--profiler", profiler, "--top", "1",
               "--advertisers", str(sensors), "--interval", interval, "--seconds", str(seconds),
               "--formats", fmt, "--json", out]
    if profiler == "counts":
        # The history's commits (every 5 s) out of the short window, as in bench/guard.py: 0 or 1
        # of them in it would move the allocations per advertisement by several.
        command += ["--alloc-counter", args.alloc_counter, "--setting", "history_commit_interval = 1h"]
    try:
        # Its own scratch directory: profile.py clears $BENCH_WORK/profile, and runs may overlap (--jobs).
        env = dict(os.environ, BENCH_WORK=os.path.join(directory, profiler))
        result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    except subprocess.TimeoutExpired:
        return {"error": "timed out"}
    with open(os.path.join(directory, f"{profiler}.log"), "w") as f:
        f.write(result.stdout + result.stderr)
    if result.returncode != 0 or not os.path.exists(out):
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {result.returncode}: {last}"}
    with open(out) as f:
        return json.load(f)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="directory with release blectld and blectl-mock")
    parser.add_argument("--sock-reader", required=True)
    parser.add_argument("--alloc-counter", help="bench/alloc_counter.c as a shared object (for the counts run)")
    parser.add_argument("--formats", help="comma-separated (default: every format blectl-mock knows)")
    parser.add_argument("--sensors", type=int, default=20)
    parser.add_argument("--interval", default="1s")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--count-sensors", type=int, default=100)
    parser.add_argument("--count-interval", default="250ms")
    parser.add_argument("--count-seconds", type=float, default=4.0)
    parser.add_argument("--no-counts", action="store_true", help="callgrind only")
    parser.add_argument("--jobs", type=int, default=1,
                        help="formats measured at once (the counts do not depend on the load; the µs of CPU do)")
    parser.add_argument("--json", help="write the raw figures here")
    args = parser.parse_args()
    if not args.no_counts and not args.alloc_counter:
        parser.error("the counts run needs --alloc-counter (or --no-counts)")
    formats = args.formats.split(",") if args.formats else mock_formats(args.bin)
    work = os.path.join(bench.WORK, "families")
    results = {fmt: {} for fmt in formats}

    def measure(fmt: str) -> None:
        bench.log(f"{fmt}: callgrind, {args.sensors} sensors every {args.interval}, {args.seconds:g} s")
        results[fmt]["callgrind"] = profile(args, fmt, "callgrind", args.sensors, args.interval, args.seconds,
                                            os.path.join(work, fmt))
        if not args.no_counts:
            bench.log(f"{fmt}: counts, {args.count_sensors} sensors every {args.count_interval}, "
                      f"{args.count_seconds:g} s")
            results[fmt]["counts"] = profile(args, fmt, "counts", args.count_sensors, args.count_interval,
                                             args.count_seconds, os.path.join(work, fmt))

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(measure, formats))

    commit = bench.commit_of(os.path.dirname(HERE))
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Advertisements per family, blectld at {commit}, {date}: callgrind with {args.sensors} sensors every "
          f"{args.interval} for {args.seconds:g} s"
          + ("" if args.no_counts else f"; CPU and allocations without it, {args.count_sensors} sensors every "
             f"{args.count_interval} for {args.count_seconds:g} s") + "\n")
    print("| format | advertisements read | readings | lost | instructions per advertisement "
          "| allocations per advertisement | µs CPU per advertisement |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    failed = []
    for fmt, entry in results.items():
        grind, counts = entry["callgrind"], entry.get("counts", {})
        problems = [f"{name}: {run['error']}" for name, run in entry.items() if "error" in run]
        problems += [f"{name}: {run['lost']} lost" for name, run in entry.items() if run.get("lost")]
        problems += [f"{name}: nothing read" for name, run in entry.items()
                     if "error" not in run and not run.get("advertisements")]
        problems += [f"{name}: {run['advertisements']} advertisements read, no reading" for name, run in entry.items()
                     if run.get("advertisements") and not run.get("readings")]
        if problems:
            failed.append(f"{fmt} ({'; '.join(problems)})")
        def cell(run, key, form):
            return form.format(run[key]) if key in run else "–"

        counts_lost = f" / {counts['lost']}" if "lost" in counts else ""  # the counts run's too
        print(f"| {fmt} | {cell(grind, 'advertisements', '{:,}')} | {cell(grind, 'readings', '{:,}')} "
              f"| {cell(grind, 'lost', '{}')}{counts_lost} "
              f"| {cell(grind, 'instructions', '{:,.0f}')} | {cell(counts, 'allocations', '{:.1f}')} "
              f"| {cell(counts, 'cpu_us', '{:.0f}')} |")
    if failed:
        print("\nfailed or lost: " + "; ".join(failed))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"commit": commit, "date": date, "options": vars(args), "formats": results}, f, indent=1)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
