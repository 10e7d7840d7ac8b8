#!/usr/bin/env python3
"""The HTTP output under load: how late notifications reach a socket subscriber while many
HTTP connections hit blectld (docs/http.md).

    bench/http_load.py [--bin .build/release] [--sock-reader PATH] [--rounds 1]
                       [--connections 1000] [--max-connections 1024] [--seconds 15] [--interval 20ms]

It starts a private dbus-daemon and blectl-mock (two thermometers notifying every
INTERVAL, every notification's emission logged), then `blectld --http 127.0.0.1:0` with
`http_max_connections = MAX`, and a subscriber on its socket (the C sock_reader:
bench/lib.sh builds it; gcc -O2 -o PATH bench/sock_reader.c does too). Then, SECONDS each:

1. idle:    no HTTP;
2. metrics: CONNECTIONS clients ask for /metrics back to back (keep-alive; a client closed
            by the connection limit connects again 10 ms later);
3. page:    the same with / (two plots of the readings so far);
4. garbage: CONNECTIONS clients send 4 KB of junk, then dribble a byte a second (slowloris).

The load runs in another process, so its CPU is not blectld's. For each phase it prints
the HTTP responses per second, blectld's CPU, its resident memory, and the notifications'
latency from the mock's emission to the subscriber's read (p50, p99, max) and how many were
lost. Standard library only; uses bench/bench.py's stack and matching.

The comparison of three ways of running libmicrohttpd in docs/http.md was made at 251ace2,
whose blectld read BLECTL_HTTP_THREADING and whose version of this script took
--threading internal,per-connection,loop; blectld keeps the one chosen.
"""

import argparse
import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the stack, emit logs and matching)

PHASES = ["idle", "metrics", "page", "garbage"]


# ---------------------------------------------------------------------------------------------
# The load (run as a child: `http_load.py --flood PORT KIND CONNECTIONS SECONDS`)


async def client(port, stop_at, stats, talk):
    """Connects again and again until `stop_at`, each time letting `talk` use the connection
    (a connection refused or closed by the server is counted and followed by a 10 ms pause)."""
    while time.monotonic() < stop_at:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            stats["connect_errors"] += 1
            await asyncio.sleep(0.01)
            continue
        try:
            await talk(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError):
            pass
        finally:
            stats["closed"] += 1
            writer.close()
        await asyncio.sleep(0.01)


def keep_asking(path, stop_at, stats):
    """Requests for `path` back to back on one connection, each response read whole."""
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()

    async def talk(reader, writer):
        while time.monotonic() < stop_at:
            writer.write(request)
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await asyncio.wait_for(reader.readexactly(length), 10)
            stats["responses"] += 1
    return talk


def dribble(stop_at):
    """4 KB of junk, then one more byte a second (slowloris) until the server closes."""
    async def talk(reader, writer):
        writer.write(b"GET /" + os.urandom(2048).hex().encode()[:4000])
        await writer.drain()
        while time.monotonic() < stop_at and not reader.at_eof():
            await asyncio.sleep(1)
            writer.write(b"x")
            await writer.drain()
    return talk


async def flood(port, kind, connections, seconds):
    stats = {"responses": 0, "closed": 0, "connect_errors": 0}
    stop_at = time.monotonic() + seconds
    talk = dribble(stop_at) if kind == "garbage" else keep_asking(
        "/metrics" if kind == "metrics" else "/", stop_at, stats)
    tasks = [client(port, stop_at, stats, talk) for _ in range(connections)]
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), seconds + 30)
    return stats


def flood_main(argv):
    port, kind, connections, seconds = int(argv[0]), argv[1], int(argv[2]), float(argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    print(json.dumps(asyncio.run(flood(port, kind, connections, seconds))), flush=True)


# ---------------------------------------------------------------------------------------------
# One session


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class PeakThreads(threading.Thread):
    """The most threads a process had while sampled (every 100 ms)."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0, threading.Event()
        self.start()

    def run(self):
        while not self.done.wait(0.1):
            self.peak = max(self.peak, status_kib(self.pid, "Threads"))

    def stop(self):
        self.done.set()
        self.join()


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def run_session(args, directory):
    stack = bench.Stack(directory, args.bin, ["--thermometers", "2", "--notify-interval", args.interval])
    config = os.path.join(directory, "blectld.conf")
    with open(config, "w") as file:
        file.write(f"http_max_connections = {args.max_connections}\n")
    socket_path = os.path.join(directory, "blectld.sock")
    log_path = os.path.join(directory, "blectld.log")
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=stack.address)
    env.pop("BLECTL_SOCKET", None)

    def more_descriptors():
        resource.setrlimit(resource.RLIMIT_NOFILE, (8192, max(8192, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))

    daemon = subprocess.Popen(
        [os.path.join(args.bin, "blectld"), "--config", config, "--socket", socket_path, "--state-dir", directory,
         "--http", "127.0.0.1:0"],
        env=env, stdout=subprocess.DEVNULL, stderr=open(log_path, "w"), stdin=subprocess.DEVNULL,
        preexec_fn=more_descriptors)
    bench.LIVE.append(daemon)
    records = os.path.join(directory, "reader.records")
    reader = bench.spawn([args.sock_reader, "--socket", socket_path, "--out", records], name="sock_reader")
    bench.read_line(reader, 30, "subscribed line")

    def port():
        for line in open(log_path, errors="replace"):
            if "HTTP: serving http://127.0.0.1:" in line:
                return int(line.rsplit(":", 1)[1].strip("/\n"))
        return None

    http_port = wait_for(port, 20, "the HTTP port in blectld's log")
    wait_for(lambda: open(log_path).read().count("connected to") >= 2, 30, "two thermometers")
    time.sleep(2)
    results = []
    for phase in PHASES:
        ticks, started_ns, started = cpu_ticks(daemon.pid), time.monotonic_ns(), time.monotonic()
        flood_stats = {"responses": 0, "closed": 0, "connect_errors": 0}
        sampler = None
        if phase == "idle":
            time.sleep(args.seconds)
        else:
            sampler = PeakThreads(daemon.pid)
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--flood", str(http_port), phase,
                 str(args.connections), str(args.seconds)],
                capture_output=True, text=True, timeout=args.seconds + 60)
            sampler.stop()
            if out.returncode != 0 or not out.stdout.strip():
                raise RuntimeError(f"the load failed: {out.stderr}")
            flood_stats = json.loads(out.stdout.strip().splitlines()[-1])
        elapsed = time.monotonic() - started
        results.append({
            "phase": phase, "start": started_ns, "end": time.monotonic_ns(),
            "cpu": (cpu_ticks(daemon.pid) - ticks) / bench.CLOCK_TICK / elapsed * 100,
            "rss": status_kib(daemon.pid, "VmRSS") / 1024, "hwm": status_kib(daemon.pid, "VmHWM") / 1024,
            "threads": sampler.peak if sampler else status_kib(daemon.pid, "Threads"),
            "rate": flood_stats["responses"] / elapsed, "closed": flood_stats["closed"],
        })
        time.sleep(1)  # the load's connections close
    bench.stop(reader, timeout=30)
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=30)
    stack.stop()
    emits = bench.load_emits(stack.emit_log)
    matches, _ = bench.match(emits, bench.load_records(records))
    for result in results:
        window = bench.window(emits, matches, result["start"], result["end"])
        result.update(p50=window["p50_ms"], p99=window["p99_ms"], max=window["max_ms"], lost=window["lost"],
                      emitted=window["emitted"])
    return results


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--flood":
        return flood_main(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release")
    parser.add_argument("--sock-reader", default=os.path.join(bench.WORK, "tools", "sock_reader"))
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--max-connections", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--interval", default="20ms")
    parser.add_argument("--rounds", type=int, default=1, help="repeat the session, with a median row per phase")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, bench.on_signal)
    signal.signal(signal.SIGINT, bench.on_signal)
    work = tempfile.mkdtemp(prefix="blectl-http-load-")
    print(f"{args.connections} connections, http_max_connections {args.max_connections}, "
          f"notifications every {args.interval} from 2 thermometers, {args.seconds:g} s a phase", flush=True)
    print(f"{'round':15} {'phase':8} {'HTTP/s':>8} {'CPU %':>6} {'RSS MB':>7} {'peak':>6} {'peak threads':>12} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'lost':>5}", flush=True)
    rows = {}
    try:
        for round_number in range(args.rounds):
            for r in run_session(args, os.path.join(work, f"round-{round_number}")):
                rows.setdefault(r["phase"], []).append(r)
                print_row(str(round_number + 1), r)
    finally:
        bench.stop_all()
    if args.rounds > 1:
        print(f"median of {args.rounds} rounds", flush=True)
        for phase, results in rows.items():
            print_row("median", {key: bench.median([r[key] for r in results if r[key] is not None]) if key != "phase"
                             else phase for key in results[0]})


def print_row(label, r):
    print(f"{label:15} {r['phase']:8} {r['rate']:8.0f} {r['cpu']:6.1f} {r['rss']:7.1f} "
          f"{r['hwm']:6.1f} {r['threads']:12.0f} {bench.fmt(r['p50'], 1):>7} {bench.fmt(r['p99'], 1):>7} "
          f"{bench.fmt(r['max'], 1):>7} {r['lost']:5.0f}", flush=True)


if __name__ == "__main__":
    main()
