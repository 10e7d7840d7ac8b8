#!/usr/bin/env python3
"""blectld's resident memory and CPU with one and with two adapters (issue 36: "record RSS
with 1 and 2 adapters"; "CPU per distinct measurement ≤ 1.3× one adapter's"), by
bench/guard.py's method: the release `blectld --mock` (its own bus and blectl-mock), VmRSS read
from /proc after the daemon settled, CPU (utime + stime) over the workload's window.

Each case runs `--rounds` times, alternating the adapter counts, with the same sensors:

- idle: the mock's 2 thermometers (no advertising sensor), IDLE_SECONDS after both connected
  (guard.py's idle RSS, with the mock's `--adapters N` and blectld's `--adapters auto`);
- workload: the same 2 thermometers notifying every second and 200 advertising sensors every
  second (BTHome v2 and pvvx in turn, named ATC_AD…: bench/profile.py's `--advertisers`
  workload), each adapter hearing every sensor; VmRSS and VmHWM after WORKLOAD_SECONDS, with
  the advertisements and readings blectld counted (`status`) and the CPU it used meanwhile:
  µs per reading (a distinct measurement: an adapter's copy of one is no reading) and the
  two adapters' ratio to one's, round by round.

    bench/adapters_rss.py --bin DIR [--rounds 3]

DIR holds the release blectld and blectl-mock. Standard library only.
"""

import argparse
import os
import shutil
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import guard  # noqa: E402

WORKLOAD_SECONDS = 30.0
WORKLOAD = ("--notify-interval 1s --advertisers 200 --advertiser-interval 1s --advertiser-formats bthome,pvvx "
            "--advertiser-name ATC_AD")


def measure(binaries: str, directory: str, adapters: int, workload: bool) -> dict:
    """One run: blectld --mock with the mock's `adapters`, idle or under the workload."""
    shutil.rmtree(directory, ignore_errors=True)
    mock_options = " ".join(
        (["--adapters", str(adapters)] if adapters > 1 else []) + (WORKLOAD.split() if workload else []))
    daemon, path = guard.start_mock_daemon(
        binaries, directory, mock_options, arguments=["--adapters", "auto"] if adapters > 1 else [],
        settings=["advert_max_devices = 1000"])
    try:
        before = bench.status_of(path).get("advertisements") or {}
        cpu_before = bench.cpu_seconds(daemon.pid)
        time.sleep(WORKLOAD_SECONDS if workload else guard.IDLE_SECONDS)
        cpu = bench.cpu_seconds(daemon.pid) - cpu_before
        memory = bench.memory_kib(daemon.pid)
        status = bench.status_of(path)
        after = status.get("advertisements") or {}
        readings = (after.get("readings") or 0) - (before.get("readings") or 0)
        return {
            "cpu_s": round(cpu, 3), "cpu_us_per_reading": round(cpu * 1e6 / readings, 1) if readings else None,
            "rss_kib": memory["VmRSS"], "hwm_kib": memory["VmHWM"],
            "adapters_in_use": len(status.get("adapters") or []),
            "advertisements": (after.get("advertisements") or 0) - (before.get("advertisements") or 0),
            "readings": readings,
            "lost": (after.get("lost_packets") or 0) - (before.get("lost_packets") or 0),
        }
    finally:
        bench.stop(daemon)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="directory with the release blectld and blectl-mock")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = os.path.join(bench.WORK, "adapters-rss")
    results = {}
    for workload in (False, True):
        for round_number in range(args.rounds):
            for adapters in (1, 2):
                run = measure(args.bin, os.path.join(work, f"{adapters}-{round_number}"), adapters, workload)
                results.setdefault((workload, adapters), []).append(run)
                print(f"{'workload' if workload else 'idle'}, {adapters} adapter{'s' if adapters > 1 else ''} "
                      f"(round {round_number + 1}): {run}", flush=True)
    one, two = results[(True, 1)], results[(True, 2)]
    ratios = [b["cpu_us_per_reading"] / a["cpu_us_per_reading"] for a, b in zip(one, two)
              if a["cpu_us_per_reading"] and b["cpu_us_per_reading"]]
    if ratios:
        print(f"workload CPU per reading, 2 adapters / 1, round by round: {', '.join(f'{r:.2f}' for r in ratios)}; "
              f"median {statistics.median(ratios):.2f}× (issue 36's target ≤ 1.3×)")
    for (workload, adapters), runs in results.items():
        rss = [run["rss_kib"] for run in runs]
        hwm = [run["hwm_kib"] for run in runs]
        print(f"{'workload' if workload else 'idle    '} {adapters} adapter{'s' if adapters > 1 else ' '}: "
              f"VmRSS median {statistics.median(rss):,.0f} KiB (runs {', '.join(f'{v:,}' for v in rss)}), "
              f"VmHWM median {statistics.median(hwm):,.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
