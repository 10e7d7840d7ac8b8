#!/usr/bin/env python3
"""A quick check of the benchmark itself (bench/check.sh runs it; under a minute): the
matching logic, the emit log, and that counts add up with 0 loss at a moderate rate for the
C subscriber and for blectld; the C subscriber's advertisement floor hears every advertisement
and the SQLite floor runs. Prints "N passed, N failed"; exits 1 on any failure."""

import argparse
import os
import subprocess
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
from advert_bench import address, counter_of, read_emit_log  # noqa: E402

RESULTS = []


def check(name):
    def run(function):
        began = time.monotonic()
        try:
            function()
        except Exception:  # noqa: BLE001 - every failure is reported, then counted
            RESULTS.append(False)
            print(f"FAIL {name}\n" + "".join("     " + line for line in traceback.format_exc().splitlines(True)))
        else:
            RESULTS.append(True)
            print(f"ok   {name} ({time.monotonic() - began:.1f} s)")
        for proc in reversed(list(bench.LIVE)):
            bench.stop(proc, timeout=3)
        return function
    return run


def text(device: int, step: int) -> str:
    """The value of thermometer `device`'s notification `step` (counter from 40.0 °C)."""
    tenths = 400 + step % 251
    if device % 2 == 0:
        return f"{(tenths / 10) * 1.8 + 32:.1f} F"
    return f"{tenths / 10:.1f} C"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--c-subscriber", required=True)
    parser.add_argument("--sock-reader", required=True)
    parser.add_argument("--sqlite-floor", required=True)
    args = parser.parse_args()
    work = os.path.join(bench.WORK, "check")

    @check("counter values map back to notification numbers (°F and °C, across the wrap)")
    def _():
        for device in (0, 1):
            for step in range(0, 600):
                assert bench.counter_phase(text(device, step)) == step % 251, (device, step, text(device, step))
        assert bench.counter_phase("nan F") is None and bench.counter_phase("") is None

    @check("matching: repeats and the pre-notification value are extra, gaps are losses")
    def _():
        emits = {0: [1000 * n for n in range(1, 601)], 1: [1000 * n + 7 for n in range(1, 601)]}
        records = [(5, 0, text(0, 0)), (6, 0, text(0, 0))]  # a read's value, twice
        records += [(1000 * n + 50, 0, text(0, n)) for n in range(1, 601) if n not in (3, 250, 251, 252)]
        records += [(1000 * n + 60, 1, text(1, n)) for n in range(1, 601)]
        records.append((10**9, 1, text(1, 600)))  # a repeat
        matches, extra = bench.match(emits, records)
        assert extra == 3, extra
        assert len(matches) == 1200 - 4, len(matches)
        w = bench.window(emits, matches, 0, 10**9)
        assert (w["emitted"], w["received"], w["lost"]) == (1200, 1196, 4), w
        assert w["p50_ms"] * 1e6 in (50, 53) and w["max_ms"] * 1e6 == 53, w
        assert {(d, s) for d, s, _, _ in matches}.isdisjoint({(0, 3), (0, 250), (0, 251), (0, 252)})

    def moderate(kind: str, directory: str, devices: int, interval_us: int, seconds: float):
        stack, consumer = bench.open_session(
            args, kind, devices, directory, ["--thermometers", str(devices), "--notify-interval", "3600s"])
        try:
            stack.set_interval(interval_us)
            a = time.monotonic_ns()
            time.sleep(seconds)
            b = time.monotonic_ns()
            stack.set_interval(3600 * 10**6)
            bench.wait_quiet(consumer.pids)
        finally:
            bench.close_session(stack, consumer)
        emits = bench.load_emits(stack.emit_log)
        records = consumer.records()
        matches, extra = bench.match(emits, records)
        return emits, records, matches, extra, bench.window(emits, matches, a, b)

    @check("emit log + C subscriber: 2 thermometers × 200 Hz for 2 s, counts add up, 0 lost")
    def _():
        emits, records, matches, extra, w = moderate("c", os.path.join(work, "c"), 2, 5000, 2.0)
        assert set(emits) == {0, 1}, emits.keys()
        for device, series in emits.items():
            assert all(a <= b for a, b in zip(series, series[1:])), "emit times go backwards"
            assert 300 <= len(series) <= 450, (device, len(series))
        total = sum(len(series) for series in emits.values())
        assert len(records) == total and extra == 0 and len(matches) == total, (len(records), total, extra)
        assert w["lost"] == 0 and w["emitted"] == w["received"] > 600, w
        assert all(0 < r - e < 10**9 for _, _, e, r in matches), "latency out of range"
        # A loss in the consumer's log is found exactly.
        dropped = [r for i, r in enumerate(records) if i not in (10, 11, 500)]
        matches2, _ = bench.match(emits, dropped)
        assert bench.window(emits, matches2, 0, 2**63)["lost"] == 3

    @check("blectld + socket reader: 2 thermometers × 100 Hz for 2 s, counts add up, 0 lost")
    def _():
        emits, records, matches, extra, w = moderate("blectld", os.path.join(work, "blectld"), 2, 10000, 2.0)
        total = sum(len(series) for series in emits.values())
        assert len(matches) == total, (len(matches), total)
        assert len(records) == total + extra and extra <= 4, (len(records), total, extra)  # + the first reads
        assert w["lost"] == 0 and w["emitted"] == w["received"] > 300, w

    @check("burst: Burst's count = emitted = received by the C subscriber")
    def _():
        stack, consumer = bench.open_session(
            args, "c", 1, os.path.join(work, "burst"), ["--thermometers", "1", "--notify-interval", "3600s"])
        try:
            sent = stack.burst(0, 5000)
            bench.wait_quiet(consumer.pids)
        finally:
            bench.close_session(stack, consumer)
        emits = bench.load_emits(stack.emit_log)
        matches, extra = bench.match(emits, consumer.records())
        # StartNotify's own first value is notification 1.
        assert sent == 5000 and len(emits[0]) == 5001 and len(matches) == 5001 and extra == 0, (
            sent, len(emits[0]), len(matches), extra)

    @check("C floor (--adverts): 5 sensors x 50 ms for 2 s, every one heard, no advertisement missed")
    def _():
        directory = os.path.join(work, "adverts")
        stack = bench.Stack(directory, args.bin, ["--thermometers", "0", "--advertisers", "5", "--advertiser-interval", "50ms",
                                                  "--advertiser-formats", "bthome,pvvx"])
        out = os.path.join(directory, "floor.records")
        floor = bench.spawn([args.c_subscriber, "--adverts", "--address", stack.address, "--devices", "5",
                             "--out", out], name="c_subscriber --adverts")
        bench.read_line(floor, 30, "subscribed line")
        time.sleep(2)
        bench.stop(floor, timeout=10)  # SIGTERM: it writes its records out
        bench.stop(stack.mock, timeout=10)  # and the mock its emit log
        received = {}
        for line in open(out):
            _, device, payload = line.split()
            received.setdefault(address(int(device)), []).append(counter_of(payload))
        emitted = {sensor: [c & 0xFF for _, c in records] for sensor, records in read_emit_log(stack.emit_log).items()}
        assert sorted(received) == sorted(emitted) and len(received) == 5, (received.keys(), emitted.keys())
        for sensor, counters in received.items():
            # What it heard is a run of what the sensor sent, without a gap (each measurement
            # goes out twice, so a counter repeats).
            sent, n = emitted[sensor], len(counters)
            assert n >= 20 and None not in counters, (sensor, counters)
            assert any(sent[i:i + n] == counters for i in range(len(sent) - n + 1)), (sensor, counters, sent)

    @check("SQLite floor: 3,000 rows (schema 1 in batches of 1,000, then 2) print a cost per row")
    def _():
        db = os.path.join(work, "floor.sqlite3")
        for leftover in (db, db + "-wal", db + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)
        out = subprocess.run([args.sqlite_floor, "--db", db, "--rows", "3000", "--batch", "1000"],
                                   capture_output=True, text=True, timeout=60, check=True).stdout
        words = out.split()
        assert words[:4] == ["rows", "3000", "batch", "1000:"] and float(words[4]) > 0, out
        os.remove(db)
        out = subprocess.run([args.sqlite_floor, "--db", db, "--rows", "3000", "--batch", "1000", "--schema", "2"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        assert out.split()[:2] == ["rows", "3000"] and out.rstrip().endswith("schema 2"), out
        bad = subprocess.run([args.sqlite_floor, "--rows", "0"], capture_output=True, text=True, timeout=10)
        assert bad.returncode == 2 and "need --db" in bad.stderr, (bad.returncode, bad.stderr)
        again = subprocess.run([args.sqlite_floor, "--db", db], capture_output=True, text=True, timeout=10)
        assert again.returncode == 2 and "exists" in again.stderr, (again.returncode, again.stderr)

    passed, failed = RESULTS.count(True), RESULTS.count(False)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
