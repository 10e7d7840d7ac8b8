#!/usr/bin/env python3
"""How fast `blectl watch` keeps up with blectld, next to the raw socket reader.

A private bus, blectl-mock with N thermometers and blectld (bench.Stack, bench.Blectld, whose
sock_reader is the raw reader), then `blectl watch` subscribed beside it. Every thermometer
gets a Burst of notifications at once (the mock sends them as fast as the bus takes them);
both readers are counted against the readings blectld numbered (its last_seq). Prints one
line per reader: lines received, lost, lines/s over the burst, and for blectl its CPU time
per line and how often it reconnected (blectld drops a client that does not read).

    bench/cli_watch.py --bin .build/release --sock-reader /tmp/blectl-bench/tools/sock_reader \
        [--blectl DIR/blectl] [--devices 20] [--count 5000] [--plain] [--store-off]

Build sock_reader with: gcc -O2 -o sock_reader bench/sock_reader.c
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def count_lines(path: str, marker: bytes) -> int:
    with open(path, "rb") as f:
        return sum(1 for line in f if marker in line)


def wait_settled(paths, quiet=1.0, timeout=120.0) -> float:
    """Waits until no file in `paths` grew for `quiet` seconds; returns when they last grew."""
    sizes, last_growth = None, time.monotonic()
    deadline = last_growth + timeout
    while time.monotonic() < deadline:
        now_sizes = [os.path.getsize(p) for p in paths]
        if now_sizes != sizes:
            sizes, last_growth = now_sizes, time.monotonic()
        elif time.monotonic() - last_growth >= quiet:
            break
        time.sleep(0.01)
    return last_growth


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="directory with blectld and blectl-mock")
    parser.add_argument("--blectl", help="the blectl to measure (default: BIN/blectl)")
    parser.add_argument("--sock-reader", required=True, help="bench/sock_reader.c, built")
    parser.add_argument("--devices", type=int, default=20)
    parser.add_argument("--count", type=int, default=5000, help="notifications per thermometer")
    parser.add_argument("--plain", action="store_true", help="measure the text form, not --json")
    parser.add_argument("--store-off", action="store_true",
                        help="blectld with history = no: its burst rate without the store, about twice as high")
    args = parser.parse_args()
    blectl = args.blectl or os.path.join(args.bin, "blectl")
    directory = tempfile.mkdtemp(prefix="blectl-cli-watch-")
    stack = consumer = watch = None
    try:
        stack = bench.Stack(directory, args.bin, ["--thermometers", str(args.devices), "--notify-interval", "3600s"])
        consumer = (bench.BlectldStoreOff if args.store_off else bench.Blectld)(args, stack, args.devices, directory)
        consumer.start()
        out_path, err_path = os.path.join(directory, "watch.out"), os.path.join(directory, "watch.err")
        mode = [] if args.plain else ["--json"]
        # Only readings where blectl can filter (an older blectl cannot).
        usage = subprocess.run([blectl, "watch", "--help"], capture_output=True, text=True).stdout
        events = ["--events", "reading"] if "--events" in usage else []
        watch = bench.spawn(
            [blectl, "--socket", consumer.socket, "watch"] + events + mode,
            stdout=open(out_path, "wb"), stderr=open(err_path, "w"), name="blectl watch")
        marker = b" reading " if args.plain else b'"type":"reading"'
        # A reading at a time until blectl prints one: then it is subscribed.
        deadline = time.monotonic() + 30
        while count_lines(out_path, marker) < 1:
            if time.monotonic() > deadline or watch.poll() is not None:
                raise RuntimeError("blectl watch printed nothing")
            stack.burst(0, 1)
            time.sleep(0.2)
        primers = count_lines(out_path, marker)
        first_seq = consumer.status()["last_seq"]
        if count_lines(out_path, marker) != primers:
            raise RuntimeError("blectl watch printed a reading late")
        cpu_before = bench.cpu_seconds(watch.pid)
        bench.log(f"burst: {args.devices} thermometers x {args.count} notifications")
        started = time.monotonic()
        threads = [threading.Thread(target=bench.burst_if_notifying, args=(stack, d, args.count))
                   for d in range(args.devices)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        sent = time.monotonic()
        records = consumer.records_path
        settled = wait_settled([out_path])
        produced = consumer.status()["last_seq"] - first_seq
        cpu = bench.cpu_seconds(watch.pid) - cpu_before
        bench.stop(watch)
        watch = None
        cli_lines = count_lines(out_path, marker) - primers
        consumer.stop()
        raw_lines = len(bench.load_records(records)) - first_seq  # it subscribed before the first reading
        reconnects = open(err_path).read().count("lost the connection")
    finally:
        if watch is not None:
            bench.stop(watch)
        if consumer is not None and consumer.proc.poll() is None:
            bench.stop(consumer.reader)
            bench.stop(consumer.proc)
        if stack is not None:
            stack.stop()
    burst_s = sent - started
    print(f"burst: {produced} readings numbered by blectld in {burst_s:.2f} s "
          f"({produced / burst_s:,.0f}/s; {args.devices} thermometers x {args.count})")
    print(f"{'reader':<24}{'lines':>10}{'lost':>8}{'lines/s':>12}{'CPU us/line':>13}{'reconnects':>12}")
    print(f"{'sock_reader (raw)':<24}{raw_lines:>10}{produced - raw_lines:>8}{raw_lines / burst_s:>12,.0f}"
          f"{'':>13}{'':>12}")
    label = "blectl watch" + ("" if args.plain else " --json")
    span = max(burst_s, settled - started)
    print(f"{label:<24}{cli_lines:>10}{produced - cli_lines:>8}{cli_lines / span:>12,.0f}"
          f"{cpu / max(1, cli_lines) * 1e6:>13.2f}{reconnects:>12}")
    shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
