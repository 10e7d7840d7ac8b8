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
--advertisers N: instead of thermometers, N advertising sensors each advertising every
`--interval` (BTHome v2 and pvvx in turn, named ATC_AD…: bench/theengs_bench.py's workload;
`--formats LIST`: blectl-mock's `--advertiser-formats` in turn, named as their format's sensors
name themselves, with the mock's keys configured for the encrypted ones), no socket client; `--mqtt` publishes to a local mosquitto (started on a free port) as that
bench does. Figures per advertisement blectld read (its `status`), with the mock's count of
those it sent and the measurements blectld counted lost:

    python3 bench/profile.py … --profiler callgrind --advertisers 50 --interval 1s --seconds 30 [--mqtt]
    python3 bench/profile.py … --profiler counts --alloc-counter alloc_counter.so --advertisers 200 \\
        --interval 1s --seconds 20 [--mqtt]
    python3 bench/profile.py … --profiler callgrind --advertisers 20 --formats mibeacon-encrypted

--json FILE writes the figures printed (bench/advert_families.py and bench/guard.py read them).
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import guard  # noqa: E402
import mqtt_bench  # noqa: E402


ADVERTISER = 0x8000_0000  # the emit log's mark of an advertising sensor's record (EmitLog.swift)
DEFAULT_FORMATS = "bthome,pvvx"  # bench/theengs_bench.py's workload, named ATC_AD… (DEFAULT_NAME)
DEFAULT_NAME = "ATC_AD"
BTHOME_KEY = "231d39c1d7cc1ab1aee224cd096db932"  # MockAdvertiser.bthomeKey
MIBEACON_KEY = "814aac74c4f17b6c1581e1ab87816b99"  # MiBeaconEncoder.mockKey
# The mock's encrypted formats and the configuration line giving their key (the pvvx
# firmware's bind key may be given as bthome_key: docs/advertisements.md).
KEYS = {
    "bthome-encrypted": ("bthome_key", BTHOME_KEY),
    "bthome-v1-encrypted": ("bthome_key", BTHOME_KEY),
    "pvvx-encrypted": ("bthome_key", BTHOME_KEY),
    "atc1441-encrypted": ("bthome_key", BTHOME_KEY),
    "mibeacon-encrypted": ("mibeacon_key", MIBEACON_KEY),
}


def advertiser_address(index: int) -> str:
    """The mock's advertising sensor `index` (MockPeripheral.advertiser)."""
    return f"A4:C1:38:AD:{(index >> 8) & 0xFF:02X}:{(index + 1) & 0xFF:02X}"


def key_settings(formats: list, count: int) -> list:
    """blectld's key lines for the encrypted ones among `count` sensors taking `formats` in turn."""
    lines = []
    for index in range(count):
        key = KEYS.get(formats[index % len(formats)])
        if key:
            lines.append(f"{key[0]} {advertiser_address(index)} = {key[1]}")
    return lines


class AdvertisedBlectld:
    """Mixed in before bench.Blectld: blectld hearing advertising sensors, with no socket
    client and nothing to connect; publishing to `mqtt_url` when set."""

    mqtt_url = None
    keys: list = []  # bthome_key and mibeacon_key lines

    def start(self, settings=(), env=None) -> None:
        config = os.path.join(self.directory, "blectld.conf")
        with open(config, "w") as f:
            f.write("\n".join(self.configuration() + ["advert_max_devices = 1000"] + self.keys + list(settings))
                    + "\n")
        os.chmod(config, 0o600)  # blectld refuses keys in a file others can read
        self.socket = os.path.join(self.directory, "blectld.sock")
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.stack.address, **(env or {}))
        mqtt = ["--mqtt", self.mqtt_url, "--mqtt-gateway", "bench"] if self.mqtt_url else []
        self.proc = bench.spawn(
            [self.binary, "--config", config, "--socket", self.socket] + mqtt, env=env, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.directory, "blectld.log"), "w"), name="blectld")
        deadline = time.monotonic() + 60
        while not (os.path.exists(self.socket) and self.status()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("blectld did not answer status")
            time.sleep(0.2)

    @property
    def pids(self) -> list:
        return [self.proc.pid]

    def stop(self) -> None:
        bench.stop(self.proc, timeout=30)

    def heard(self) -> dict:
        """`status`'s advertisement counters."""
        return self.status()["advertisements"]


def advertisements_sent(path: str, start: int, end: int) -> int:
    """The advertisements the mock's emit log records in [start, end)."""
    with open(path, "rb") as f:
        data = f.read()
    return sum(1 for index, _, ns in struct.iter_unpack("<IIQ", data[16:])
               if index & ADVERTISER and start <= ns < end)


def start_broker(directory: str) -> tuple:
    """mosquitto on a free local port, as bench/mqtt_bench.py starts it: (its stack, URL)."""
    broker = mqtt_bench.Stack(directory)
    port = mqtt_bench.free_port()
    mqtt_bench.start_broker(broker, directory, port)
    return broker, f"mqtt://127.0.0.1:{port}"


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
    parser.add_argument("--advertisers", type=int, default=0, help="N advertising sensors (instead of thermometers)")
    parser.add_argument("--mqtt", action="store_true", help="publish to a local mosquitto (with --advertisers)")
    parser.add_argument("--formats", default=DEFAULT_FORMATS,
                        help=f"blectl-mock's --advertiser-formats (with --advertisers; default {DEFAULT_FORMATS}, "
                             f"named {DEFAULT_NAME}…)")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--setting", action="append", default=[],
                        help="one more line of blectld's configuration (repeatable)")
    parser.add_argument("--no-strace", action="store_true",
                        help="with --profiler counts: no second window under strace (bench/guard.py's allocations)")
    parser.add_argument("--adapters", type=int, default=1,
                        help="the mock's adapters, each hearing every sensor (blectld uses them all)")
    parser.add_argument("--interval", default="100ms", help="their notification interval (with --scale)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to profile (with --scale)")
    args = parser.parse_args()
    directory = os.path.join(bench.WORK, "profile")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    out = os.path.join(directory, "callgrind.out")

    periodic = args.scale or args.advertisers
    if args.profiler == "counts" and not (periodic and args.alloc_counter):
        parser.error("--profiler counts needs --scale or --advertisers, and --alloc-counter")
    if args.mqtt and not args.advertisers:
        parser.error("--mqtt needs --advertisers")
    counters = os.path.join(directory, "alloc-counters")

    wrapper = os.path.join(directory, "wrap", "blectld")
    if args.profiler == "callgrind":
        os.makedirs(os.path.dirname(wrapper))
        with open(wrapper, "w") as f:
            f.write(f"#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file={out} "
                    f"{args.blectld} \"$@\"\n")
        os.chmod(wrapper, 0o755)

    shipped = bench.BlectldStoreOff if args.history_off else bench.Blectld
    bases = (AdvertisedBlectld, shipped) if args.advertisers else (shipped,)

    class Profiled(*bases):
        """The blectld given (under callgrind with instrumentation off until the window, or
        counting its allocations)."""

        @property
        def binary(self) -> str:
            return wrapper if args.profiler == "callgrind" else args.blectld

        def start(self):
            if args.profiler == "counts":
                return super().start(settings=args.setting,
                                     env={"LD_PRELOAD": args.alloc_counter, "ALLOC_COUNTER_FILE": counters})
            return super().start(settings=args.setting)

    formats = args.formats.split(",")
    if args.advertisers:
        Profiled.keys = key_settings(formats, args.advertisers)
    broker = None
    if args.mqtt:
        broker, Profiled.mqtt_url = start_broker(directory)
    bench.CONSUMERS["profiled"] = Profiled
    options = argparse.Namespace(bin=args.bin, sock_reader=args.sock_reader, c_subscriber=None)
    devices = args.scale or 1
    if args.advertisers:
        devices, mock_options = 0, [
            "--thermometers", "0", "--advertisers", str(args.advertisers), "--advertiser-interval", args.interval,
            "--advertiser-formats", args.formats]
        # The default workload's pvvx firmware in BTHome mode names itself ATC_…; every other
        # format keeps its sensors' own names, which some families are recognised by.
        if args.formats == DEFAULT_FORMATS:
            mock_options += ["--advertiser-name", DEFAULT_NAME]
        if args.adapters > 1:
            mock_options += ["--adapters", str(args.adapters)]
    else:
        mock_options = ["--thermometers", str(devices), "--notify-interval", args.interval if args.scale else "3600s"]
    try:
        stack, consumer = bench.open_session(options, "profiled", devices, directory, mock_options, attempts=2)
        try:
            # Every advertising sensor heard (and published once) before the window.
            time.sleep(5 if args.advertisers else 1)
            heard = [consumer.heard()] if args.advertisers else []
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
            elif periodic:
                time.sleep(args.seconds)
            else:
                sent = stack.burst(0, args.count)
                bench.wait_quiet(consumer.pids, quiet=2.0 if args.profiler == "callgrind" else 0.3, timeout=600)
            ended = time.monotonic_ns()
            cpu = bench.cpu_seconds(consumer.pid) - cpu
            if args.profiler == "counts":
                allocations = guard.read_counters(counters)["allocations"] - allocations
            elif args.profiler == "perf":
                bench.stop(perf, timeout=60)
            else:
                subprocess.run(["callgrind_control", "-i", "off", str(consumer.pid)], check=True, capture_output=True)
            if args.advertisers:
                heard.append(consumer.heard())
            if args.profiler == "counts" and not args.no_strace:
                trace = guard.Strace(consumer.pid, os.path.join(directory, "strace.txt"))
                time.sleep(args.seconds)
                calls = trace.detach()
                traced = time.monotonic_ns()
                if args.advertisers:
                    heard.append(consumer.heard())
        finally:
            bench.close_session(stack, consumer)
    finally:
        if broker:
            broker.close()
    unit = "advertisement" if args.advertisers else "notification"
    figures = {"unit": unit, "profiler": args.profiler, "cpu_s": cpu}

    def done() -> int:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(figures, f, indent=1)
                f.write("\n")
        return 0

    if args.advertisers:
        offered = advertisements_sent(stack.emit_log, started, ended)
        sent = heard[1]["advertisements"] - heard[0]["advertisements"]
        lost = heard[1]["lost_packets"] - heard[0]["lost_packets"]
        figures.update(formats=args.formats, sensors=args.advertisers, interval=args.interval, seconds=args.seconds,
                       offered=offered, advertisements=sent, lost=lost,
                       readings=heard[1]["readings"] - heard[0]["readings"],
                       errors=heard[1].get("errors", 0) - heard[0].get("errors", 0))
        print(f"{args.advertisers} advertising sensors every {args.interval}, {args.seconds:.0f} s"
              f"{', MQTT on' if args.mqtt else ''}{', history off' if args.history_off else ''}"
              f"{f', {args.adapters} adapters' if args.adapters > 1 else ''}: the mock sent "
              f"{offered} advertisements, blectld read {sent} ({lost} measurements lost, "
              f"{heard[1]['readings'] - heard[0]['readings']} readings); blectld used {cpu:.2f} CPU s "
              f"({cpu / max(1, sent) * 1e6:.0f} µs per advertisement)")
    else:
        emits = bench.load_emits(stack.emit_log)
        matches, _ = bench.match(emits, consumer.records())
    if args.scale:
        figures = bench.window(emits, matches, started, ended)
        sent = figures["received"]
        print(f"{args.scale} thermometers every {args.interval}, {args.seconds:.0f} s: the socket client got {sent} "
              f"notifications ({figures['lost']} lost); blectld used {cpu:.2f} CPU s "
              f"({cpu / max(1, sent) * 1e6:.0f} µs per notification)")
    elif not args.advertisers:
        print(f"burst of {sent}; the socket client got {len(matches)} of {sum(map(len, emits.values()))} "
              f"notifications; blectld used {cpu:.2f} CPU s ({cpu / sent * 1e6:.0f} µs per notification)")
    figures["count"] = sent
    figures["cpu_us"] = cpu / max(1, sent) * 1e6
    if args.profiler == "counts":
        figures.update(allocations=allocations / max(1, sent), switches=switches / max(1, sent))
        print(f"per {unit}: {figures['allocations']:.2f} heap allocations, {figures['switches']:.3f} context "
              f"switches ({threads} threads)")
        if args.no_strace:
            return done()
        if args.advertisers:
            count = heard[2]["advertisements"] - heard[1]["advertisements"]
            missed = f"{heard[2]['lost_packets'] - heard[1]['lost_packets']} measurements lost"
        else:
            strace = bench.window(emits, matches, ended, traced)
            count, missed = strace["received"], f"{strace['lost']} lost"
        print(f"under strace, {args.seconds:.0f} s more ({count} {unit}s, {missed}): "
              f"{sum(calls.values()) / max(1, count):.3f} system calls per {unit}: "
              + ", ".join(f"{call} {n / max(1, count):.3f}" for call, n in sorted(calls.items(), key=lambda x: -x[1])))
        figures["syscalls"] = sum(calls.values()) / max(1, count)
        return done()
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
        return done()
    outputs = sorted(p for p in os.listdir(directory) if p.startswith("callgrind.out"))
    data = os.path.join(directory, outputs[-1])
    total = None
    for line in open(data):
        if line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
    if total:
        print(f"{total:,} instructions in blectld, {total / max(1, sent):,.0f} per {unit}")
        figures.update(instructions_total=total, instructions=total / max(1, sent))
    for inclusive in (True, False):
        print(f"\n== {'inclusive' if inclusive else 'self'} (top {args.top}) ==")
        result = subprocess.run(
            ["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", data],
            capture_output=True, text=True)
        lines = [line for line in result.stdout.splitlines() if "(" in line or "Ir" in line]
        print("\n".join(lines[: args.top + 4]))
    print(f"\ncallgrind output: {data}")
    return done()


if __name__ == "__main__":
    sys.exit(main())
