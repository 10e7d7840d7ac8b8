#!/usr/bin/env python3
"""Where blectld's time goes per notification, during a burst to one thermometer (set-up
excluded), with a socket client subscribed as in the benchmark; or, with `--scale N`, while
N thermometers notify every `--interval` (lone notifications, as at 200 × 10 Hz). Needs a
release build with debug info:

    swift build -c release -Xswiftc -g --scratch-path /tmp/blectl-bench/build-g --product blectld
    python3 bench/profile.py --blectld /tmp/blectl-bench/build-g/release/blectld \\
        --bin .build/release --sock-reader /tmp/blectl-bench/tools/sock_reader [--profiler perf]

--profiler callgrind: blectld under valgrind --tool=callgrind, instrumented only during the
burst; prints instructions per notification and callgrind_annotate's inclusive and self tops.
--profiler perf: `perf record -e cpu-clock --call-graph dwarf` attached during the burst
(for machines where valgrind cannot run Swift's threads); prints perf report's self and
children tops.
--profiler counts (with `--scale`): no profiler; counts per notification, which the machine's
load barely moves: heap allocations (`--alloc-counter`, bench/alloc_counter.c built as a
shared object) and context switches (every thread, /proc) over one window, then system calls
(`strace -f -c`, which adds switches of its own) over a second window as long.
--history-off: the durable history off (`history = no`), for a build that has it.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import guard  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--blectld", required=True, help="blectld built with -Xswiftc -g")
    parser.add_argument("--bin", required=True, help="directory with blectl-mock")
    parser.add_argument("--sock-reader", required=True)
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--profiler", choices=["perf", "callgrind", "counts"], default="perf")
    parser.add_argument("--alloc-counter", help="alloc_counter.so (with --profiler counts)")
    parser.add_argument("--history-off", action="store_true", help="history = no")
    parser.add_argument("--scale", type=int, default=0, help="N thermometers notifying (instead of a burst)")
    parser.add_argument("--interval", default="100ms", help="their notification interval (with --scale)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to profile (with --scale)")
    args = parser.parse_args()
    directory = os.path.join(bench.WORK, "profile")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    out = os.path.join(directory, "callgrind.out")

    if args.profiler == "counts" and not (args.scale and args.alloc_counter):
        parser.error("--profiler counts needs --scale and --alloc-counter")
    counters = os.path.join(directory, "alloc-counters")

    wrapper = os.path.join(directory, "wrap", "blectld")
    if args.profiler == "callgrind":
        os.makedirs(os.path.dirname(wrapper))
        with open(wrapper, "w") as f:
            f.write(f"#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file={out} "
                    f"{args.blectld} \"$@\"\n")
        os.chmod(wrapper, 0o755)

    class Profiled(bench.BlectldStoreOff if args.history_off else bench.Blectld):
        """The blectld given (under callgrind with instrumentation off until the window, or
        counting its allocations)."""

        @property
        def binary(self) -> str:
            return wrapper if args.profiler == "callgrind" else args.blectld

        def start(self):
            if args.profiler == "counts":
                return super().start(env={"LD_PRELOAD": args.alloc_counter, "ALLOC_COUNTER_FILE": counters})
            return super().start()

    bench.CONSUMERS["profiled"] = Profiled
    options = argparse.Namespace(bin=args.bin, sock_reader=args.sock_reader, c_subscriber=None)
    devices = args.scale or 1
    interval = args.interval if args.scale else "3600s"
    stack, consumer = bench.open_session(
        options, "profiled", devices, directory,
        ["--thermometers", str(devices), "--notify-interval", interval], attempts=2)
    try:
        time.sleep(1)
        if args.profiler == "perf":
            perf = bench.spawn(
                ["perf", "record", "-e", "cpu-clock", "-F", "4000", "--call-graph", "dwarf,32768", "-o",
                 os.path.join(directory, "perf.data"), "-p", str(consumer.pid)],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "perf.log"), "w"), name="perf")
            time.sleep(1)
        elif args.profiler == "callgrind":
            subprocess.run(["callgrind_control", "-i", "on", str(consumer.pid)], check=True, capture_output=True)
        cpu = bench.cpu_seconds(consumer.pid)
        allocations = guard.read_counters(counters)["allocations"] if args.profiler == "counts" else 0
        started = time.monotonic_ns()
        if args.profiler == "counts":
            switches, threads = bench.count_switches(consumer.pid, args.seconds)
        elif args.scale:
            time.sleep(args.seconds)
        else:
            sent = stack.burst(0, args.count)
            bench.wait_quiet(consumer.pids, quiet=2.0 if args.profiler == "callgrind" else 0.3, timeout=600)
        ended = time.monotonic_ns()
        cpu = bench.cpu_seconds(consumer.pid) - cpu
        if args.profiler == "counts":
            allocations = guard.read_counters(counters)["allocations"] - allocations
            trace = guard.Strace(consumer.pid, os.path.join(directory, "strace.txt"))
            time.sleep(args.seconds)
            calls = trace.detach()
            traced = time.monotonic_ns()
        elif args.profiler == "perf":
            bench.stop(perf, timeout=60)
        else:
            subprocess.run(["callgrind_control", "-i", "off", str(consumer.pid)], check=True, capture_output=True)
    finally:
        bench.close_session(stack, consumer)
    emits = bench.load_emits(stack.emit_log)
    matches, _ = bench.match(emits, consumer.records())
    if args.scale:
        figures = bench.window(emits, matches, started, ended)
        sent = figures["received"]
        print(f"{args.scale} thermometers every {args.interval}, {args.seconds:.0f} s: the socket client got {sent} "
              f"notifications ({figures['lost']} lost); blectld used {cpu:.2f} CPU s "
              f"({cpu / max(1, sent) * 1e6:.0f} µs per notification)")
    else:
        print(f"burst of {sent}; the socket client got {len(matches)} of {sum(map(len, emits.values()))} "
              f"notifications; blectld used {cpu:.2f} CPU s ({cpu / sent * 1e6:.0f} µs per notification)")
    if args.profiler == "counts":
        print(f"per notification: {allocations / sent:.2f} heap allocations, {switches / sent:.3f} context switches "
              f"({threads} threads)")
        strace = bench.window(emits, matches, ended, traced)
        print(f"under strace, {args.seconds:.0f} s more ({strace['received']} notifications, {strace['lost']} lost): "
              f"{sum(calls.values()) / strace['received']:.3f} system calls per notification: "
              + ", ".join(f"{call} {n / strace['received']:.3f}" for call, n in sorted(calls.items(), key=lambda x: -x[1])))
        return 0
    if args.profiler == "perf":
        data = os.path.join(directory, "perf.data")
        for children in (False, True):
            print(f"\n== {'children (inclusive)' if children else 'self'} (top {args.top}) ==")
            result = subprocess.run(
                ["perf", "report", "-i", data, "--stdio", "--no-demangle" if False else "--demangle",
                 "--children" if children else "--no-children", "-g", "none", "--percent-limit", "0.5",
                 "--sort", "symbol"], capture_output=True, text=True)
            lines = [line for line in result.stdout.splitlines() if line.strip() and not line.startswith("#")]
            print("\n".join(lines[: args.top]))
        print(f"\nperf data: {data}")
        return 0
    outputs = sorted(p for p in os.listdir(directory) if p.startswith("callgrind.out"))
    data = os.path.join(directory, outputs[-1])
    total = None
    for line in open(data):
        if line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
    if total:
        print(f"{total:,} instructions in blectld, {total / sent:,.0f} per notification")
    for inclusive in (True, False):
        print(f"\n== {'inclusive' if inclusive else 'self'} (top {args.top}) ==")
        result = subprocess.run(
            ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", data],
            capture_output=True, text=True)
        lines = [line for line in result.stdout.splitlines() if "(" in line or "Ir" in line]
        print("\n".join(lines[: args.top + 4]))
    print(f"\ncallgrind output: {data}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
