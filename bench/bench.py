#!/usr/bin/env python3
"""blectl's benchmark: blectld against a minimal C libdbus subscriber and Bleak, side by side,
on one private dbus-daemon with the mock adapter (blectl-mock) as the notification source.

bench/run.sh prepares everything (packages, release binaries, the C tools, the Bleak venv)
and runs this; see docs/benchmarks.md. Standard library only.

Every notification is matched to its emission: blectl-mock --emit-log writes (thermometer,
notification number, CLOCK_MONOTONIC ns) per notification, the `counter` pattern makes
notification n of a thermometer carry 40.0 °C + n tenths (wrapping every 251), and every
consumer records (CLOCK_MONOTONIC ns at receipt, thermometer, value). Values map back to
notification numbers per thermometer, which gives losses and emit → delivered latency.
"""

import argparse
import atexit
import json
import math
import os
import re
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time

WORK = os.environ.get("BENCH_WORK", "/tmp/blectl-bench")
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
COUNTER_START = 400  # --temperature 40: tenths of °C
COUNTER_PERIOD = 251  # 40.0 … 65.0 °C
# The mock's --fast delays on the way to a first value: StartDiscovery → Discovering (5 ms),
# first advertisement (10 ms), Connect (20 ms), ServicesResolved (40 ms).
MOCK_CONNECT_DELAYS_MS = 75
# Notifications per thermometer after the 200 × 10 Hz window: 200,000 readings into blectld's
# history (the durable store now; a 1,000-reading ring per device at 1837af8).
HISTORY_SIZE = 1000
# Seconds after the history fill until blectld's store has committed it (default interval 5 s).
COMMIT_WAIT_S = 7

LIVE: list = []


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Processes: every one started is stopped on exit.


def spawn(args, *, env=None, stdout=subprocess.PIPE, stderr=None, name=None):
    proc = subprocess.Popen(
        args, env=env, stdout=stdout, stderr=stderr or subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    proc.bench_name = name or os.path.basename(args[0])
    LIVE.append(proc)
    return proc


def stop(proc, timeout=10.0):
    """SIGTERM, wait, then SIGKILL; returns the process's stdout remainder."""
    if proc is None:
        return ""
    rest = ""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log(f"{proc.bench_name} ignored SIGTERM; killing it")
            proc.kill()
            proc.wait()
    if proc.stdout:
        try:
            rest = proc.stdout.read().decode(errors="replace")
        except (OSError, ValueError):
            pass
        proc.stdout.close()
    if proc in LIVE:
        LIVE.remove(proc)
    return rest


def stop_all():
    for proc in reversed(list(LIVE)):
        stop(proc, timeout=3.0)


atexit.register(stop_all)


def on_signal(number, _frame):
    stop_all()
    os._exit(128 + number)  # not sys.exit: no session cleanup on processes already stopped


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)


def read_line(proc, timeout: float, what: str) -> str:
    """One line of the child's stdout within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    data = b""
    fd = proc.stdout.fileno()
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError(f"{proc.bench_name}: no {what} within {timeout:.0f} s")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 1)
            if not chunk:
                raise RuntimeError(f"{proc.bench_name} exited (status {proc.wait()}) before {what}")
            data += chunk
    return data.decode().strip()


# ---------------------------------------------------------------------------------------------
# /proc


def cpu_seconds(pid: int) -> float:
    """The process's own user + system time (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def memory_kib(pid: int) -> dict:
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                values[key] = int(rest.split()[0])
    return values


def pss_kib(pid: int) -> int:
    """Proportional set size: shared library pages divided among the processes mapping them."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def thread_switches(pid: int) -> dict:
    """{thread id: voluntary + involuntary context switches} of the process's live threads."""
    counts = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                counts[task] = sum(
                    int(line.split()[1]) for line in f
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return counts


def count_switches(pid: int, seconds: float) -> tuple:
    """(context switches, threads seen) of a process over `seconds`, all threads included:
    sampled every 50 ms, so threads that start and end meanwhile count too (only a thread's
    switches in its last 50 ms before exiting can be missed)."""
    first = thread_switches(pid)
    latest = dict(first)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        for tid, count in thread_switches(pid).items():
            latest[tid] = max(count, latest.get(tid, 0))
    return sum(count - first.get(tid, 0) for tid, count in latest.items()), len(latest)


def settle_store(consumer) -> None:
    """Waits until a consumer that writes later (blectld's store) has committed what it took,
    so that a CPU window counts a batch's commit exactly when it counts the batch."""
    if consumer.commits_later:
        time.sleep(COMMIT_WAIT_S)
        wait_quiet(consumer.pids)


def wait_quiet(pids, quiet=0.3, timeout=60.0):
    """Waits until the processes use no more CPU for `quiet` seconds (work drained)."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = sum(cpu_seconds(pid) for pid in pids)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.05)


# ---------------------------------------------------------------------------------------------
# The bus and the mock


class Stack:
    """A private dbus-daemon and blectl-mock on it, logging every notification."""

    def __init__(self, directory: str, binaries: str, mock_options: list):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        config = os.path.join(directory, "bus.conf")
        # The same private bus as blectld --mock's and the tests' (PrivateBusConfiguration).
        with open(config, "w") as f:
            f.write(subprocess.run(
                [os.path.join(binaries, "blectl-mock"), "--print-bus-config", f"{directory}/bus"],
                capture_output=True, text=True, check=True, timeout=30).stdout)
        self.bus = spawn(
            ["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile", "--print-address"],
            name="dbus-daemon",
        )
        self.address = read_line(self.bus, 10, "bus address")
        self.emit_log = os.path.join(directory, "emit.log")
        # --announce-connect: Connect signals Connected=true, as BlueZ does on real radios. The
        # mock's default copies the qemu rig's connect race (no signal), which Bleak takes for
        # a disconnect ("failed to discover services, device disconnected"); blectld and the
        # C subscriber handle both.
        self.mock = spawn(
            [os.path.join(binaries, "blectl-mock"), "--address", self.address, "--emit-log", self.emit_log,
             "--log-level", "warning", "--fast", "--others", "0", "--advertisers", "0", "--pattern", "counter",
             "--temperature", "40", "--announce-connect"]
            + mock_options,
            stderr=open(os.path.join(directory, "mock.log"), "w"),
            name="blectl-mock",
        )
        read_line(self.mock, 8, "ready line")

    def call(self, member: str, *args: str, timeout_ms=120000) -> str:
        result = subprocess.run(
            ["dbus-send", f"--bus={self.address}", "--print-reply", f"--reply-timeout={timeout_ms}",
             "--dest=org.blectl.Mock", "/org/blectl/Mock", f"org.blectl.Mock1.{member}", *args],
            capture_output=True, text=True, timeout=timeout_ms / 1000 + 5,
        )
        if result.returncode != 0:
            raise RuntimeError(f"mock {member}: {result.stderr.strip()}")
        return result.stdout

    def set_interval(self, microseconds: int) -> None:
        self.call("SetNotifyInterval", f"uint64:{microseconds}", timeout_ms=10000)

    def burst(self, device: int, count: int) -> int:
        out = self.call("Burst", f"string:{thermometer_address(device)}", f"uint32:{count}")
        return int(out.split()[-1])

    def connections_of(self, pid: int):
        """How many connections process `pid` has on the bus (unique names whose
        GetConnectionUnixProcessID is `pid`)."""
        if shutil.which("busctl"):
            out = subprocess.run(["busctl", f"--address={self.address}", "--json=short", "list"],
                                 capture_output=True, text=True, timeout=30)
            if out.returncode == 0:
                return sum(1 for entry in json.loads(out.stdout)
                           if entry.get("name", "").startswith(":") and entry.get("pid") == pid)
        names = re.findall(r'string "(:[0-9.]+)"', self.bus_call("ListNames"))
        return sum(1 for name in names
                   if self.bus_call("GetConnectionUnixProcessID", f"string:{name}").split()[-1] == str(pid))

    def bus_call(self, member: str, *args: str) -> str:
        return subprocess.run(
            ["dbus-send", f"--bus={self.address}", "--print-reply", "--dest=org.freedesktop.DBus",
             "/org/freedesktop/DBus", f"org.freedesktop.DBus.{member}", *args],
            capture_output=True, text=True, timeout=30).stdout

    def stop(self) -> None:
        stop(self.mock)
        stop(self.bus)


def thermometer_address(index: int) -> str:
    return f"DC:A6:32:00:{index // 256:02X}:{index % 256 + 1:02X}"


# ---------------------------------------------------------------------------------------------
# Consumers


class Consumer:
    """One consumer process (plus, for blectld, its socket client)."""

    name = ""
    # Whether it writes what it took some seconds later (blectld's store commits every 5 s).
    commits_later = False

    def __init__(self, args, stack: Stack, devices: int, directory: str):
        self.args, self.stack, self.devices = args, stack, devices
        self.records_path = os.path.join(directory, f"{self.name}.records")
        self.directory = directory
        self.started_ns = 0
        self.connected = devices  # thermometers subscribed once started

    @property
    def pid(self) -> int:  # the process whose costs count
        return self.proc.pid

    @property
    def pids(self) -> list:  # every process that must drain
        return [self.proc.pid]

    def stop(self) -> None:
        out = stop(self.proc, timeout=30)
        if "records" not in out:
            raise RuntimeError(f"{self.name} did not write its records: {out!r}")

    def records(self):
        return load_records(self.records_path)


class CSubscriber(Consumer):
    name = "c"

    def start(self, match=True, env=None) -> None:
        self.started_ns = time.monotonic_ns()
        self.proc = spawn(
            [self.args.c_subscriber, "--address", self.stack.address, "--devices", str(self.devices),
             "--out", self.records_path] + ([] if match else ["--no-match"]),
            env=dict(os.environ, **env) if env else None,
            stderr=open(os.path.join(self.directory, "c.log"), "w"), name="c_subscriber",
        )
        read_line(self.proc, 60, "subscribed line")


class Blectld(Consumer):
    """blectld as shipped (the durable history on, in the session's directory)."""

    name = "blectld"
    commits_later = True
    # Settings beyond the defaults that every blectld session gets.
    settings = [
        # Every mock thermometer at once, as the C subscriber and Bleak connect them
        # (blectld's defaults keep 5 links and connect one at a time, for real radios).
        "max_connecting = 64",
        "max_connections = 1000",
    ]

    @property
    def binary(self) -> str:
        return os.path.join(self.args.bin, "blectld")

    def configuration(self) -> list:
        """The configuration file's lines: the history in the session's directory. A blectld
        from before the durable history (1837af8, the --before build) knows none of these
        settings and gets none: it connected every thermometer it found at once."""
        if not takes_setting(self.binary, "state-dir"):
            return []
        return self.settings + [f"state_dir = {os.path.join(self.directory, 'state')}"]

    def start(self, settings=(), env=None) -> None:
        """`settings`: more configuration lines; `env`: more environment variables."""
        config = os.path.join(self.directory, "blectld.conf")
        with open(config, "w") as f:
            f.write("\n".join(self.configuration() + list(settings)) + "\n")
        self.socket = os.path.join(self.directory, "blectld.sock")
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.stack.address, **(env or {}))
        env.pop("BLECTL_SOCKET", None)
        self.started_ns = time.monotonic_ns()
        self.proc = spawn(
            [self.binary, "--config", config, "--socket", self.socket],
            env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.directory, "blectld.log"), "w"),
            name="blectld",
        )
        self.reader = spawn(
            [self.args.sock_reader, "--socket", self.socket, "--out", self.records_path],
            stderr=open(os.path.join(self.directory, "reader.log"), "w"), name="sock_reader",
        )
        read_line(self.reader, 30, "subscribed line")
        # Every thermometer connected; with many, what blectld connected before it stopped
        # making progress (its first discovery window is 20 s; the next rescan is minutes away).
        deadline = time.monotonic() + (60 if self.devices <= 50 else 45)
        best, since = 0, time.monotonic()
        while True:
            count = len(self.status().get("connected", []))
            if count >= self.devices:
                break
            if count > best:
                best, since = count, time.monotonic()
            if self.devices > 50 and best > 0 and time.monotonic() - since > 8:
                break
            if time.monotonic() > deadline:
                if self.devices > 50 and best > 0:
                    break
                raise RuntimeError(f"blectld connected only {count} of {self.devices} thermometers")
            if self.proc.poll() is not None:
                raise RuntimeError(f"blectld exited with {self.proc.returncode}")
            time.sleep(0.1)
        self.connected = count

    def status(self) -> dict:
        return status_of(self.socket)

    @property
    def pids(self) -> list:
        return [self.proc.pid, self.reader.pid]

    def stop(self) -> None:
        out = stop(self.reader, timeout=30)
        stop(self.proc, timeout=30)
        if "records" not in out:
            raise RuntimeError(f"sock_reader did not write its records: {out!r}")


class BlectldStoreOff(Blectld):
    """blectld without the durable history (`history = no`): what the store costs."""

    name = "blectld-nostore"
    commits_later = False

    def configuration(self) -> list:
        lines = super().configuration()
        # A blectld from before the durable history (no settings at all) has no store to turn off.
        return lines + ["history = no"] if lines else lines


class BlectldBefore(Blectld):
    """Another build of blectld (--before DIR), in the same rounds: before and after a change."""

    name = "blectld-before"

    @property
    def binary(self) -> str:
        return os.path.join(self.args.before, "blectld")


def status_of(path: str) -> dict:
    """blectld's `status` result, asked on its socket at `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(b'{"v":1,"id":1,"cmd":"status"}\n')
        data = b""
        while data.count(b"\n") < 2:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    for line in data.splitlines():
        message = json.loads(line)
        if message.get("id") == 1:
            return message.get("result", {})
    return {}


def commit_of(directory: str) -> str:
    """The git commit checked out in `directory` ("+changes" when files differ from it)."""
    out = subprocess.run(["git", "-C", directory, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if out.returncode != 0:
        return "unknown"
    dirty = subprocess.run(["git", "-C", directory, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+changes" if dirty else "")


def machine() -> str:
    with open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    return f"{os.cpu_count()} cores, {model}, Linux {os.uname().release}"


_HELP: dict = {}


def takes_setting(binary: str, flag: str) -> bool:
    """Whether `binary --help` lists `--flag` (an older blectld lacks newer settings)."""
    if binary not in _HELP:
        _HELP[binary] = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30).stdout
    return f"--{flag}" in _HELP[binary]


class Bleak(Consumer):
    name = "bleak"

    def start(self) -> None:
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.stack.address, PYTHONDONTWRITEBYTECODE="1")
        self.started_ns = time.monotonic_ns()
        self.proc = spawn(
            [self.args.python, os.path.join(self.args.bench_dir, "bleak_subscriber.py"), "--devices",
             str(self.devices), "--out", self.records_path],
            env=env, stderr=open(os.path.join(self.directory, "bleak.log"), "w"), name="bleak",
        )
        read_line(self.proc, 90, "subscribed line")


CONSUMERS = {"c": CSubscriber, "blectld": Blectld, "blectld-nostore": BlectldStoreOff,
             "blectld-before": BlectldBefore, "bleak": Bleak}
LABELS = {"c": "C libdbus", "blectld": "blectld", "blectld-nostore": "blectld, store off",
          "blectld-before": "blectld before", "bleak": "Bleak"}


# ---------------------------------------------------------------------------------------------
# Matching emissions and receipts


def load_emits(path: str) -> dict:
    """{thermometer: [ns of notification 1, 2, …]} from the mock's emit log."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:16] != b"blectl-emitlog1\n" or (len(data) - 16) % 16:
        raise RuntimeError(f"{path}: not an emit log")
    emits: dict = {}
    for device, sequence, ns in struct.iter_unpack("<IIQ", data[16:]):
        series = emits.setdefault(device, [])
        if sequence != len(series) + 1:
            raise RuntimeError(f"{path}: thermometer {device} notification {sequence} out of order")
        series.append(ns)
    return emits


def load_records(path: str) -> list:
    records = []
    with open(path) as f:
        for line in f:
            ns, device, value = line.split()
            records.append((int(ns), int(device), value.replace("_", " ")))
    return records


def counter_phase(value: str):
    """The counter pattern's step (0 … 250) that a value text shows, or None."""
    try:
        number, unit = value.split()
        number = float(number)
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    celsius = (number - 32) / 1.8 if unit == "F" else number
    return (round(celsius * 10) - COUNTER_START) % COUNTER_PERIOD


def match(emits: dict, records: list):
    """Maps each received value to the notification that carried it.

    Returns (matches, extra): matches as (thermometer, notification, emit ns, receive ns) in
    receipt order; extra counts receipts that are no notification (a read's value, repeats).
    """
    last: dict = {}
    matches = []
    extra = 0
    for ns, device, value in records:
        phase = counter_phase(value)
        series = emits.get(device)
        if phase is None or series is None:
            extra += 1
            continue
        previous = last.get(device, 0)
        step = (phase - previous) % COUNTER_PERIOD
        if step == 0:  # the value before the first notification, or a repeat
            extra += 1
            continue
        sequence = previous + step
        if sequence > len(series):
            extra += 1
            continue
        last[device] = sequence
        matches.append((device, sequence, series[sequence - 1], ns))
    return matches, extra


def window(emits: dict, matches: list, start: int, end: int) -> dict:
    """Notifications emitted in [start, end): how many, how many arrived, their latencies."""
    emitted = sum(1 for series in emits.values() for ns in series if start <= ns < end)
    got = [(e, r) for _, _, e, r in matches if start <= e < end]
    latencies = sorted(r - e for e, r in got)
    first_emit = min((ns for series in emits.values() for ns in series if start <= ns < end), default=0)
    last_emit = max((ns for series in emits.values() for ns in series if start <= ns < end), default=0)
    last_receive = max((r for _, r in got), default=0)
    return {
        "emitted": emitted,
        "received": len(got),
        "lost": emitted - len(got),
        "p50_ms": percentile(latencies, 50) / 1e6 if latencies else None,
        "p99_ms": percentile(latencies, 99) / 1e6 if latencies else None,
        "max_ms": latencies[-1] / 1e6 if latencies else None,
        "emit_rate": (emitted - 1) / ((last_emit - first_emit) / 1e9) if last_emit > first_emit else None,
        "receive_rate": len(got) / ((last_receive - first_emit) / 1e9) if last_receive > first_emit else None,
    }


def percentile(values: list, p: float):
    """Nearest-rank percentile of sorted values."""
    rank = max(1, math.ceil(p / 100 * len(values)))
    return values[rank - 1]


# ---------------------------------------------------------------------------------------------
# Sessions

SETUP_FAILURES: list = []


def open_session(args, kind: str, devices: int, directory: str, mock_options: list, attempts=3, **start):
    """A fresh bus, mock and started consumer; a set-up that hangs is retried (and counted)."""
    for attempt in range(1, attempts + 1):
        where = directory if attempt == 1 else f"{directory}-retry{attempt - 1}"
        stack = consumer = None
        try:
            stack = Stack(where, args.bin, mock_options)
            consumer = CONSUMERS[kind](args, stack, devices, where)
            consumer.start(**start)
            return stack, consumer
        except RuntimeError as error:
            SETUP_FAILURES.append(f"{where}: {error}")
            log(f"set-up failed ({error}); attempt {attempt} of {attempts}")
            for proc in reversed(list(LIVE)):
                stop(proc, timeout=3.0)
            if attempt == attempts:
                raise


def close_session(stack, consumer) -> None:
    error = None
    try:
        consumer.stop()
    except RuntimeError as failure:
        error = failure
    stack.stop()
    if error:
        raise error


def single_session(args, kind: str, directory: str) -> dict:
    """One thermometer: latency at 1 kHz, then a burst (throughput, loss, CPU, peak RSS)."""
    stack, consumer = open_session(args, kind, 1, directory, ["--thermometers", "1", "--notify-interval", "3600s"])
    result = {}
    try:
        time.sleep(0.3)
        # 1 kHz
        stack.set_interval(1000)
        a = time.monotonic_ns()
        cpu = cpu_seconds(consumer.pid)
        time.sleep(args.khz_seconds)
        b = time.monotonic_ns()
        result["khz_cpu_pct"] = 100 * (cpu_seconds(consumer.pid) - cpu) / ((b - a) / 1e9)
        stack.set_interval(3600 * 10**6)
        wait_quiet(consumer.pids)
        settle_store(consumer)  # the 1 kHz readings' commit stays out of the burst's CPU
        # burst
        cpu = cpu_seconds(consumer.pid)
        c = time.monotonic_ns()
        sent = stack.burst(0, args.burst)
        wait_quiet(consumer.pids, timeout=120)
        d = time.monotonic_ns()
        settle_store(consumer)  # and the burst's own commit is in it, every round
        result["burst_cpu"] = cpu_seconds(consumer.pid) - cpu
        result["burst_sent"] = sent
        result["rss_peak_kib"] = memory_kib(consumer.pid)["VmHWM"]
        result["rss_after_burst_kib"] = memory_kib(consumer.pid)["VmRSS"]
    finally:
        close_session(stack, consumer)
    emits = load_emits(stack.emit_log)
    matches, extra = match(emits, consumer.records())
    khz = window(emits, matches, a, b)
    burst = window(emits, matches, c, d)
    result.update(
        khz_p50_ms=khz["p50_ms"], khz_p99_ms=khz["p99_ms"], khz_max_ms=khz["max_ms"], khz_lost=khz["lost"],
        khz_emitted=khz["emitted"], burst_emitted=burst["emitted"], burst_received=burst["received"],
        burst_lost=burst["lost"], burst_emit_rate=burst["emit_rate"], burst_receive_rate=burst["receive_rate"],
        extra=extra,
    )
    result["burst_cpu_per_10k"] = result["burst_cpu"] / burst["received"] * 10_000 if burst["received"] else None
    return result


def idle_session(args, kind: str, directory: str) -> dict:
    """Two thermometers every 5 s (as shipped): start → first reading, idle cost and RSS;
    then both at 10 Hz for latency."""
    stack, consumer = open_session(args, kind, 2, directory, ["--thermometers", "2", "--notify-interval", "5s"])
    result = {}
    try:
        time.sleep(1.0)
        a = time.monotonic_ns()
        cpu = cpu_seconds(consumer.pid)
        switches, threads = count_switches(consumer.pid, args.idle_seconds)
        b = time.monotonic_ns()
        seconds = (b - a) / 1e9
        result["idle_cpu_pct"] = 100 * (cpu_seconds(consumer.pid) - cpu) / seconds
        result["idle_switches_per_s"] = switches / seconds
        result["idle_threads_seen"] = threads
        memory = memory_kib(consumer.pid)
        result["rss_idle_kib"] = memory["VmRSS"]
        result["pss_idle_kib"] = pss_kib(consumer.pid)
        result["threads"] = memory["Threads"]
        result["connections_idle"] = stack.connections_of(consumer.pid)
        stack.set_interval(100_000)
        c = time.monotonic_ns()
        time.sleep(args.tenhz_seconds)
        d = time.monotonic_ns()
        stack.set_interval(3600 * 10**6)
        wait_quiet(consumer.pids)
    finally:
        close_session(stack, consumer)
    emits = load_emits(stack.emit_log)
    records = consumer.records()
    matches, extra = match(emits, records)
    tenhz = window(emits, matches, c, d)
    result.update(
        first_reading_ms=(min(ns for ns, _, _ in records) - consumer.started_ns) / 1e6 if records else None,
        tenhz_p50_ms=tenhz["p50_ms"], tenhz_p99_ms=tenhz["p99_ms"], tenhz_max_ms=tenhz["max_ms"],
        tenhz_lost=tenhz["lost"], tenhz_emitted=tenhz["emitted"], idle_lost=window(emits, matches, 0, c)["lost"],
    )
    return result


def scale_session(args, kind: str, devices: int, rate: str, directory: str) -> dict:
    """`devices` thermometers notifying at `rate` (1hz or 10hz) from their subscription on, so
    their phases are independent, as real thermometers' are: CPU, latency, loss, RSS,
    connections.

    200 × 10 Hz then sends HISTORY_SIZE more notifications per thermometer (a burst each,
    after the window): RSS once that many readings went into blectld's history (with the
    durable store, what waits for a commit; with an older build's in-memory ring, a full ring),
    and for blectld COMMIT_WAIT_S later, once the store committed them.
    The other consumers get the same notifications; the C subscriber's RSS includes its record
    buffer, 32 bytes per notification received (≈ 6 MB for the fill)."""
    interval = "1s" if rate == "1hz" else "100ms"
    fill_history = devices == 200 and rate == "10hz"
    stack, consumer = open_session(
        args, kind, devices, directory, ["--thermometers", str(devices), "--notify-interval", interval])
    result = {"setup_s": (time.monotonic_ns() - consumer.started_ns) / 1e9, "connected": consumer.connected}
    try:
        time.sleep(1.5)
        a = time.monotonic_ns()
        cpu = cpu_seconds(consumer.pid)
        time.sleep(args.scale_seconds)
        b = time.monotonic_ns()
        cpu = cpu_seconds(consumer.pid) - cpu
        result["rss_kib"] = memory_kib(consumer.pid)["VmRSS"]
        result["connections"] = stack.connections_of(consumer.pid)
        stack.set_interval(3600 * 10**6)
        wait_quiet(consumer.pids)
        if fill_history:
            e = time.monotonic_ns()
            result["fill_sent"] = sum(burst_if_notifying(stack, device, HISTORY_SIZE) for device in range(devices))
            # Bursts run at ~50k/s, faster than a consumer may take them: the bus (in the
            # quiet set) holds the rest until every consumer has drained.
            wait_quiet(consumer.pids + [stack.bus.pid], timeout=300)
            f = time.monotonic_ns()
            result["rss_full_history_kib"] = memory_kib(consumer.pid)["VmRSS"]
            if kind.startswith("blectld"):
                # What stays once the store committed them (the default interval is 5 s):
                # the row above counts the readings that wait for the commit.
                time.sleep(COMMIT_WAIT_S)
                result["rss_after_commit_kib"] = memory_kib(consumer.pid)["VmRSS"]
    finally:
        close_session(stack, consumer)
    emits = load_emits(stack.emit_log)
    matches, _ = match(emits, consumer.records())
    w = window(emits, matches, a, b)
    result.update({f"{rate}_{key}": w[key] for key in ("p50_ms", "p99_ms", "max_ms", "lost", "emitted")})
    if fill_history:
        fill = window(emits, matches, e, f)
        result.update(fill_emitted=fill["emitted"], fill_lost=fill["lost"], fill_s=(f - e) / 1e9)
        if fill["lost"]:
            log(f"{kind}: {fill['lost']:,} of {fill['emitted']:,} history-fill notifications lost")
    result[f"{rate}_cpu_pct"] = 100 * cpu / ((b - a) / 1e9)
    # CPU % as if all `devices` thermometers were subscribed (blectld may connect fewer).
    result[f"{rate}_cpu_pct_all"] = result[f"{rate}_cpu_pct"] * devices / max(1, consumer.connected)
    result[f"{rate}_cpu_us_per_notification"] = cpu / w["received"] * 1e6 if w["received"] else None
    return result


def burst_if_notifying(stack: Stack, device: int, count: int) -> int:
    """A burst to one thermometer; 0 when nobody subscribed to it (blectld may connect fewer)."""
    try:
        return stack.burst(device, count)
    except RuntimeError as error:
        if "NotNotifying" in str(error):
            return 0
        raise


def ceiling_session(args, directory: str) -> dict:
    """The mock (and bus) alone: a burst to a subscriber without a match rule, so the bus
    delivers nothing."""
    stack, consumer = open_session(
        args, "c", 1, directory, ["--thermometers", "1", "--notify-interval", "3600s"], match=False)
    try:
        time.sleep(0.2)
        mock_cpu = cpu_seconds(stack.mock.pid)
        bus_cpu = cpu_seconds(stack.bus.pid)
        a = time.monotonic_ns()
        stack.burst(0, args.burst)
        b = time.monotonic_ns()
        result = {
            "mock_cpu_per_10k": (cpu_seconds(stack.mock.pid) - mock_cpu) / args.burst * 10_000,
            "bus_cpu_per_10k": (cpu_seconds(stack.bus.pid) - bus_cpu) / args.burst * 10_000,
        }
    finally:
        close_session(stack, consumer)
    emits = load_emits(stack.emit_log)
    result["emit_rate"] = window(emits, [], a, b)["emit_rate"]
    return result


# ---------------------------------------------------------------------------------------------
# The table


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, digits=2, unit=""):
    if value is None:
        return "–"
    if isinstance(value, float) and digits == 0:
        return f"{value:,.0f}{unit}"
    if isinstance(value, int):
        return f"{value:,}{unit}"
    return f"{value:.{digits}f}{unit}"


def build_table(rounds: list, kinds: list, scales: list) -> tuple:
    """(markdown table, verdicts) from the per-round results."""

    def values(kind, session, key):
        return [r[kind][session].get(key) for r in rounds if kind in r and session in r[kind]]

    def m(kind, session, key):
        return median(values(kind, session, key))

    def spread(kind, session, key, scale, digits):
        """" [min–max]" over the rounds, when there were several."""
        present = [v * scale for v in values(kind, session, key) if v is not None]
        if len(present) < 2:
            return ""
        return f" [{fmt(float(min(present)), digits)}–{fmt(float(max(present)), digits)}]"

    def ceiling(key):
        return median([r["ceiling"][key] for r in rounds if "ceiling" in r])

    def ratio(kind, session, key):
        """The median over the rounds of the ratio to the C subscriber in the same round."""
        return median([
            r[kind][session][key] / r["c"][session][key] for r in rounds
            if kind in r and session in r[kind] and "c" in r and session in r["c"]
            and r[kind][session].get(key) is not None and r["c"][session].get(key)])

    rows = []
    verdicts = []

    def row(label, session, key, digits=2, scale=1.0, ratio_too=False, target="", verdict=None, unit=""):
        cells = []
        for kind in kinds:
            value = m(kind, session, key)
            text = fmt(None if value is None else value * scale, digits, unit)
            if session.startswith("scale") and value is not None:
                text += spread(kind, session, key, scale, digits)
            if ratio_too and kind != "c":
                r = ratio(kind, session, key)
                text += f" ({r:.2f}×)" if r is not None else ""
            cells.append(text)
        state = ""
        if verdict is not None:
            value = m("blectld", session, key)
            ok = verdict(value, ratio("blectld", session, key))
            if ok is not None:
                state = "met" if ok else "**missed**"
                verdicts.append((label, state.strip("*")))
        rows.append(f"| {label} | " + " | ".join(cells) + f" | {target} | {state} |")

    def lat_row(label, session, prefix, target="", verdict=None):
        cells = []
        for kind in kinds:
            values = [m(kind, session, f"{prefix}_{p}_ms") for p in ("p50", "p99", "max")]
            cells.append(" / ".join(fmt(v, 2) for v in values))
        state = ""
        if verdict is not None:
            ok = verdict(m("blectld", session, f"{prefix}_p50_ms"), m("blectld", session, f"{prefix}_p99_ms"))
            if ok is not None:
                state = "met" if ok else "**missed**"
                verdicts.append((label, state.strip("*")))
        rows.append(f"| {label} | " + " | ".join(cells) + f" | {target} | {state} |")

    def maybe(test):
        """A verdict on the median alone (verdicts get the median and the same-run ratio)."""
        return lambda v, _ratio: None if v is None else test(v)

    header = "| | " + " | ".join(LABELS[k] for k in kinds) + " | blectld target | |"
    rows.append(header)
    rows.append("|---" * (len(kinds) + 3) + "|")
    rows.append(
        f"| mock ceiling: notifications/s emitted, nobody listening | {fmt(ceiling('emit_rate'), 0)} "
        + "| " * (len(kinds) - 1) + "| | |"
    )
    row("burst: notifications/s emitted", "single", "burst_emit_rate", 0)
    row("burst: notifications/s received", "single", "burst_receive_rate", 0, ratio_too=True)
    row("burst: lost (of " + fmt(m("c", "single", "burst_sent"), 0) + ")", "single", "burst_lost", 0, target="0",
        verdict=maybe(lambda v: v == 0))
    # Issue 37's targets: ratios to the C floor of the same run, the store counted.
    row("burst: CPU s per 10k notifications", "single", "burst_cpu_per_10k", 3, ratio_too=True, target="≤ 1.7× C",
        verdict=lambda v, r: None if r is None else r <= 1.7)
    lat_row("latency at 1 kHz, ms: p50 / p99 / max", "single", "khz", target="p50 ≤ 0.5, p99 ≤ 3",
            verdict=lambda p50, p99: None if p50 is None else p50 <= 0.5 and p99 <= 3)
    row("1 kHz: lost", "single", "khz_lost", 0, target="0", verdict=maybe(lambda v: v == 0))
    row("1 kHz: CPU %", "single", "khz_cpu_pct", 1, ratio_too=True)
    lat_row("latency at 10 Hz (2 thermometers), ms: p50 / p99 / max", "idle", "tenhz")
    row("10 Hz: lost", "idle", "tenhz_lost", 0, target="0", verdict=maybe(lambda v: v == 0))
    row("start → first reading, ms (mock delays ≈ 75)", "idle", "first_reading_ms", 0, ratio_too=True,
        target=f"≤ {50 + MOCK_CONNECT_DELAYS_MS}", verdict=maybe(lambda v: v <= 50 + MOCK_CONNECT_DELAYS_MS))
    row("RSS idle, 2 thermometers, MB", "idle", "rss_idle_kib", 1, scale=1 / 1024, target="≤ 10",
        verdict=maybe(lambda v: v <= 10 * 1024))
    row("PSS idle (shared pages split among processes), MB", "idle", "pss_idle_kib", 1, scale=1 / 1024)
    row("RSS peak (after the burst), MB", "single", "rss_peak_kib", 1, scale=1 / 1024)
    row("idle (2 × every 5 s): context switches/s", "idle", "idle_switches_per_s", 2, target="no polling timers")
    row("idle: CPU %", "idle", "idle_cpu_pct", 2)
    row("idle: threads", "idle", "threads", 0)
    for devices in scales:
        for rate in ("1hz", "10hz"):
            session = f"scale{devices}_{rate}"
            label = f"{devices} × {'1 Hz' if rate == '1hz' else '10 Hz'}"
            big = devices == 200 and rate == "10hz"
            row(f"{label}: thermometers subscribed", session, "connected", 0, target=str(devices),
                verdict=maybe(lambda v, n=devices: v >= n))
            partial = any(m(kind, session, "connected") not in (None, devices) for kind in kinds)
            target, verdict = (
                ("≤ 3× C", lambda v, r: None if r is None else r <= 3)
                if big else ("", None))
            if partial:
                row(f"{label}: CPU % (as subscribed)", session, f"{rate}_cpu_pct", 2, ratio_too=True)
                row(f"{label}: CPU % scaled to {devices} subscribed", session, f"{rate}_cpu_pct_all", 2,
                    ratio_too=True, target=target, verdict=verdict)
            else:
                row(f"{label}: CPU %", session, f"{rate}_cpu_pct", 2, ratio_too=True, target=target,
                    verdict=verdict)
            row(f"{label}: CPU µs per notification", session, f"{rate}_cpu_us_per_notification", 0, ratio_too=True)
            lat_row(f"{label}: latency ms p50 / p99 / max", session, rate)
            row(f"{label}: lost", session, f"{rate}_lost", 0, target="0", verdict=maybe(lambda v: v == 0))
            row(f"{label}: RSS MB", session, "rss_kib", 1, scale=1 / 1024)
            if big:
                row(f"{label}: RSS after {HISTORY_SIZE:,} more notifications per thermometer (into the "
                    "history), MB", session, "rss_full_history_kib", 1, scale=1 / 1024)
                # Issue 37: the RSS once the history has committed them.
                row(f"{label}: RSS {COMMIT_WAIT_S} s later (those readings committed), MB", session,
                    "rss_after_commit_kib", 1, scale=1 / 1024, target="≤ 16",
                    verdict=maybe(lambda v: v <= 16 * 1024))
            row(f"{label}: D-Bus connections", session, "connections", 0, target="1" if big else "",
                verdict=maybe(lambda v: v == 1) if big else None)
            row(f"{label}: set-up s (start → all subscribed)", session, "setup_s", 1)
    return "\n".join(rows), verdicts


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="directory with blectld and blectl-mock")
    parser.add_argument("--c-subscriber", required=True)
    parser.add_argument("--sock-reader", required=True)
    parser.add_argument("--python", help="the venv's python with bleak (omit to skip Bleak)")
    parser.add_argument("--bench-dir", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--burst", type=int, default=30000)
    parser.add_argument("--khz-seconds", type=float, default=3.0)
    parser.add_argument("--idle-seconds", type=float, default=8.0)
    parser.add_argument("--tenhz-seconds", type=float, default=5.0)
    parser.add_argument("--scale-seconds", type=float, default=10.0)
    parser.add_argument("--scale", default="50,200", help="thermometer counts for the scale rows ('' for none)")
    parser.add_argument("--scale-runs", type=int, default=3,
                        help="rounds that include the scale rows (default 3; each row shows median [min–max])")
    parser.add_argument("--before", help="directory with another build's blectld: a 'blectld before' column")
    parser.add_argument("--kinds", help="consumers, comma-separated (default: c, blectld, blectld-nostore, "
                        "blectld-before with --before, bleak with --python)")
    parser.add_argument("--json", default=os.path.join(WORK, "results.json"))
    parser.add_argument("--markdown", default=os.path.join(WORK, "table.md"))
    args = parser.parse_args()

    kinds = (args.kinds.split(",") if args.kinds else
             ["c", "blectld", "blectld-nostore"] + (["blectld-before"] if args.before else [])
             + (["bleak"] if args.python else []))
    unknown = [kind for kind in kinds if kind not in CONSUMERS]
    if unknown or "c" not in kinds or "blectld" not in kinds or ("blectld-before" in kinds and not args.before):
        parser.error(f"--kinds: c and blectld always, blectld-before only with --before; "
                     f"one of {', '.join(CONSUMERS)} each (unknown: {', '.join(unknown) or 'none'})")
    scales = [int(n) for n in args.scale.split(",") if n]
    scale_runs = min(args.runs, args.scale_runs)
    about = {"commit": commit_of(os.path.dirname(os.path.abspath(__file__))),
             "before": commit_of(args.before) if args.before else None,
             "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
             "options": {key: value for key, value in vars(args).items()
                         if key not in ("bin", "c_subscriber", "sock_reader", "python", "bench_dir", "json",
                                        "markdown")}}
    rounds = []
    began = time.monotonic()

    def session(function, *session_args, where):
        """Runs a session; one that fails midway (a process died or hung) runs once more."""
        for attempt in (1, 2):
            try:
                return function(*session_args, where if attempt == 1 else f"{where}-again")
            except (RuntimeError, subprocess.SubprocessError, OSError) as error:
                SETUP_FAILURES.append(f"{where}: {error}")
                log(f"session failed ({error}); attempt {attempt} of 2")
                for proc in reversed(list(LIVE)):
                    stop(proc, timeout=3.0)
                if attempt == 2:
                    raise

    for round_index in range(args.runs):
        result: dict = {}
        base = os.path.join(WORK, f"run{round_index + 1}")
        log(f"round {round_index + 1}/{args.runs}: mock ceiling")
        result["ceiling"] = session(ceiling_session, args, where=os.path.join(base, "ceiling"))
        for kind in kinds:
            result[kind] = {}
            log(f"round {round_index + 1}/{args.runs}: {kind}: 1 thermometer at 1 kHz, burst of {args.burst}")
            result[kind]["single"] = session(single_session, args, kind, where=os.path.join(base, kind, "single"))
            log(f"round {round_index + 1}/{args.runs}: {kind}: 2 thermometers idle, then 10 Hz")
            result[kind]["idle"] = session(idle_session, args, kind, where=os.path.join(base, kind, "idle"))
            if round_index < scale_runs:
                for devices in scales:
                    for rate in ("1hz", "10hz"):
                        log(f"round {round_index + 1}/{args.runs}: {kind}: {devices} thermometers, {rate}")
                        result[kind][f"scale{devices}_{rate}"] = session(
                            scale_session, args, kind, devices, rate,
                            where=os.path.join(base, kind, f"scale{devices}-{rate}"))
        rounds.append(result)
        with open(args.json, "w") as f:
            json.dump(dict(about, rounds=rounds, setup_failures=SETUP_FAILURES), f, indent=1)
    table, verdicts = build_table(rounds, kinds, scales)
    with open(args.markdown, "w") as f:
        f.write(table + "\n")
    print(table)
    print()
    print(f"Medians of {args.runs} rounds ({scale_runs} for the scale rows, [min–max] over them); ratios are "
          f"medians of the ratio to the C subscriber in the same round. blectld at {about['commit']}"
          + (f", before: {about['before']}" if args.before else "")
          + f"; {about['date']}. {time.monotonic() - began:.0f} s. Raw results: {args.json}")
    if SETUP_FAILURES:
        print(f"Retried: {len(SETUP_FAILURES)} (a set-up that did not start in time, or a session that failed):")
        for failure in SETUP_FAILURES:
            print(f"  {failure}")
    missed = [label for label, state in verdicts if state == "missed"]
    print(f"blectld targets: {len(verdicts) - len(missed)} met, {len(missed)} missed"
          + (": " + "; ".join(missed) if missed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
