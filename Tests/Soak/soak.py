#!/usr/bin/python3
"""blectl's soak with faults (issue 22): `make soak MINUTES=N SEED=S`, `make soak-smoke`.

`blectld --mock` with 50 thermometers notifying fast, socket clients that connect, subscribe,
read slowly and vanish, and a seeded random schedule of every fault the mock can inject
(docs/mock-adapter.md), plus MQTT broker restarts (a local mosquitto, `mqtt_url`) and a full
disk under the history store (a small tmpfs in a mount namespace of the daemon's own, so
nothing is mounted on the host). Checked all along: the daemon stays up; after the warm-up
its RSS and open descriptors show no growth trend; every fault is followed by recovery (a new
reading from each thermometer it hit, or the broker or store writing again) within the
fault's bound; two healthy subscribers see every sequence number exactly once. One summary
line on stdout; exit 0 on PASS, 1 on FAIL, 2 when the rig could not be set up or the run is too
short to judge a trend (under 3 minutes: refused at once). Logs stay in
the run's directory (printed). docs/testing.md ("Soak") explains the bounds and thresholds.

Debian's /usr/bin/python3 with python3-dbus (the mock's control interface).
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import dbus

THERMOMETERS = 50
NOTIFY_INTERVAL_MS = 200  # 50 thermometers: 250 readings/s
SAMPLE_SECONDS = 1.0
FLOOR_BUCKET_SECONDS = 10.0
# RSS rises for the first ~70 s (caches and buffers of 250 readings/s filling), then levels.
WARMUP_SECONDS = 90.0
# The shortest window after the warm-up whose trend is judged: over 30 s (a 2-minute run) the
# last of the start-up growth read as a leak of 5 MiB/min. A shorter run is refused at start.
MIN_TREND_SECONDS = 90.0
TMPFS_BYTES = 48 << 20
HISTORY_MAX_BYTES = 16 << 20
SLOW_CLIENTS_MAX = 8
# Recovery bounds (s), from the end of a fault: see docs/testing.md. One thermometer after a
# dropped link: reconnect backoff (0.25 s doubling, up to 10 s) and the mock's --fast
# timings; after a Connect or ServicesResolved that never comes: the connection timeout
# (15 s) first; all 50 after the adapter or bluetoothd: one connection attempt at a time.
BOUND_ONE = 30.0
BOUND_TIMEOUT = 60.0
BOUND_ALL = 120.0
BOUND_MQTT = 45.0  # reconnection after 1 s doubling (±20 %) while down <= 8 s
BOUND_DISK = 30.0
DISK_FULL_MOST_SECONDS = 30.0  # history_commit_interval 1 s: the next commit timer writes again
# Growth trend limits over the measured window (the fitted slope times its length).
RSS_LIMIT_KIB = 2048
RSS_LIMIT_FRACTION = 0.10
FD_LIMIT = 8.0

STOP = threading.Event()


def now() -> float:
    return time.monotonic()


class Log:
    def __init__(self, path: str):
        self.file = open(path, "a", buffering=1)
        self.start = now()
        self.lock = threading.Lock()

    def __call__(self, message: str) -> None:
        line = f"[{now() - self.start:8.2f}] {message}"
        with self.lock:
            self.file.write(line + "\n")
        print(f"soak: {line}", file=sys.stderr, flush=True)


def thermometer(index: int) -> str:
    return f"DC:A6:32:00:{index // 256:02X}:{index % 256 + 1:02X}"


# ---------------------------------------------------------------------------------------------
# The socket protocol


def connect(path: str, timeout: float = 10.0) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    return sock


def request(path: str, command: dict, timeout: float = 10.0) -> dict:
    """One request on a connection of its own; the reply's result (raises on an error reply)."""
    with connect(path, timeout) as sock:
        lines = sock.makefile("rb")
        hello = json.loads(lines.readline())
        if hello.get("type") != "hello":
            raise RuntimeError(f"no hello: {hello}")
        sock.sendall((json.dumps({"v": 1, "id": 1, **command}) + "\n").encode())
        for line in lines:
            message = json.loads(line)
            if message.get("id") == 1:
                if not message.get("ok"):
                    raise RuntimeError(f"{command['cmd']}: {message.get('error')}")
                return message["result"]
        raise RuntimeError(f"{command['cmd']}: connection closed without a reply")


class Watch:
    """Recovery after one fault: each address it hit needs a reading after the fault's end,
    and, for a fault that drops links or sends garbage, after the event proving it bit
    (`disconnected`, `reading_error`). Events are kept from the fault's start, before the
    scheduler knows what it hit."""

    KINDS = ("reading", "reading_error", "disconnected", "peripheral_lost")

    def __init__(self, start: float):
        self.start = start
        self.events = {}  # address -> [(time, kind)]
        self.hit, self.effect, self.end = [], None, None
        self.lock = threading.Lock()

    def feed(self, t: float, kind: str, address: str) -> None:
        if kind in self.KINDS:
            with self.lock:
                self.events.setdefault(address, []).append((t, kind))

    def settle(self, hit, effect, end: float) -> None:
        with self.lock:
            self.hit, self.effect, self.end = list(hit), effect, end

    def recovered_at(self, address: str):
        """When the address's first reading that counts arrived, or None."""
        with self.lock:
            events = list(self.events.get(address, ()))
        after = self.end
        if self.effect:
            bit = next((t for t, kind in events if kind == self.effect and t >= self.start), None)
            if bit is None:
                return None
            after = bit
        return next((t for t, kind in events if kind == "reading" and t > after), None)

    def pending(self):
        return [address for address in self.hit if self.recovered_at(address) is None]

    def describe(self, address: str) -> str:
        """What was seen of a thermometer that did not recover."""
        with self.lock:
            events = list(self.events.get(address, ()))
        counts = {kind: sum(1 for _, k in events if k == kind) for kind in self.KINDS}
        return f"{address} ({', '.join(f'{n} {kind}' for kind, n in counts.items())} since the fault began)"

    def done(self) -> bool:
        return not self.pending()

    def latest(self) -> float:
        return max((self.recovered_at(address) for address in self.hit), default=self.end)


class Subscriber(threading.Thread):
    """A healthy subscriber: reads everything at once and checks that every `seq` after its
    subscription comes exactly once, in order."""

    EVENTS = ["reading", "reading_error", "connected", "disconnected", "peripheral_lost"]

    def __init__(self, name: str, path: str, log: Log, problems: list):
        super().__init__(name=name, daemon=True)
        self.path, self.log, self.problems = path, log, problems
        self.sock = connect(path)
        self.lines = self.sock.makefile("rb")
        json.loads(self.lines.readline())  # hello
        self.sock.sendall((json.dumps({"v": 1, "id": 1, "cmd": "subscribe", "events": self.EVENTS}) + "\n").encode())
        reply = json.loads(self.lines.readline())
        if not reply.get("ok"):
            raise RuntimeError(f"subscribe: {reply}")
        self.expected = reply["result"]["last_seq"] + 1
        self.readings = self.errors = self.gaps = self.duplicates = 0
        self.watches = []
        self.watch_lock = threading.Lock()

    def watch(self, watch: Watch) -> None:
        with self.watch_lock:
            self.watches = [watch]  # one fault at a time

    def run(self) -> None:
        self.sock.settimeout(None)
        try:
            for line in self.lines:
                self.handle(json.loads(line))
        except (OSError, ValueError) as error:
            if not STOP.is_set():
                self.problem(f"{self.name}: {error}")
        if not STOP.is_set():
            self.problem(f"{self.name}: the daemon closed a healthy subscriber's connection")

    def handle(self, event: dict) -> None:
        t, kind = now(), event.get("type")
        if kind in ("reading", "reading_error"):
            self.check_seq(event["seq"])
            if kind == "reading":
                self.readings += 1
            else:
                self.errors += 1
        with self.watch_lock:
            watches = list(self.watches)
        for watch in watches:
            watch.feed(t, kind, event.get("address"))

    def check_seq(self, seq: int) -> None:
        if seq == self.expected:
            self.expected += 1
        elif seq < self.expected:
            self.duplicates += 1
            self.problem(f"{self.name}: seq {seq} again or out of order (expected {self.expected})")
        else:
            self.gaps += 1
            self.problem(f"{self.name}: gap: seq {self.expected}..{seq - 1} missing")
            self.expected = seq + 1

    def problem(self, text: str) -> None:
        self.problems.append(text)
        self.log("FAIL " + text)

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class SlowClients(threading.Thread):
    """Up to SLOW_CLIENTS_MAX clients at a time that connect, subscribe (to a random set of
    events), maybe ask something, read a little now and then, and vanish in one of the ways a
    client can: close, half-close first, or reset the connection with unread data."""

    def __init__(self, path: str, rng: random.Random):
        super().__init__(name="slow-clients", daemon=True)
        self.path, self.rng = path, rng
        self.sessions = self.dropped = self.refused = 0
        self.lock = threading.Lock()
        self.live = 0

    def run(self) -> None:
        while not STOP.is_set():
            with self.lock:
                room = self.live < SLOW_CLIENTS_MAX
            if room:
                plan = self.plan()
                with self.lock:
                    self.live += 1
                    self.sessions += 1
                threading.Thread(target=self.session, args=(plan,), daemon=True).start()
            STOP.wait(self.rng.uniform(0.1, 1.5))

    def plan(self) -> dict:
        rng = self.rng
        return {
            "events": rng.sample(Subscriber.EVENTS + ["peripheral_seen", "adapter_state"], rng.randint(1, 4)),
            "ask": rng.choice([None, "status", "peripherals", "history"]),
            "lifetime": rng.uniform(2, 40),
            "pause": rng.uniform(0.2, 3),
            "chunk": rng.choice([256, 1024, 8192]),
            "exit": rng.choice(["close", "half-close", "reset"]),
        }

    def session(self, plan: dict) -> None:
        try:
            self.talk(plan)
        except OSError:
            pass
        finally:
            with self.lock:
                self.live -= 1

    def talk(self, plan: dict) -> None:
        sock = connect(self.path)
        try:
            if b"too_many_clients" in sock.recv(4096):
                with self.lock:
                    self.refused += 1
                return
            sock.sendall((json.dumps({"v": 1, "id": 1, "cmd": "subscribe", "events": plan["events"]}) + "\n").encode())
            if plan["ask"] == "history":
                sock.sendall(b'{"v":1,"id":2,"cmd":"history","since":0}\n')
            elif plan["ask"]:
                sock.sendall((json.dumps({"v": 1, "id": 2, "cmd": plan["ask"]}) + "\n").encode())
            deadline = now() + plan["lifetime"]
            while now() < deadline and not STOP.is_set():
                if not sock.recv(plan["chunk"]):
                    with self.lock:
                        self.dropped += 1  # the daemon dropped a client that read too slowly
                    return
                STOP.wait(plan["pause"])
            if plan["exit"] == "half-close":
                sock.shutdown(socket.SHUT_WR)
            elif plan["exit"] == "reset":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        finally:
            sock.close()


# ---------------------------------------------------------------------------------------------
# Processes: the broker, the daemon in its own mount namespace, its resources


class Broker:
    """A local mosquitto on a free port; stop() and start() restart it on the same port."""

    def __init__(self, directory: str):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.config = os.path.join(directory, "mosquitto.conf")
        with open(self.config, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        self.log_path = os.path.join(directory, "mosquitto.log")
        self.proc = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["mosquitto", "-c", self.config], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log_path, "a"))
        deadline = now() + 10
        while now() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not listen within 10 s")

    def stop(self, crash: bool) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if crash else signal.SIGTERM)
            self.proc.wait(10)


def mount_namespace_prefix():
    """`unshare` arguments that give the daemon a mount namespace of its own (root, or an
    unprivileged user namespace where the kernel allows one), or None."""
    options = ["--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        options = ["--user", "--map-root-user"] + options
    try:
        subprocess.run(["unshare"] + options + ["true"], check=True, timeout=10, capture_output=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return ["unshare"] + options


class Daemon:
    def __init__(self, bin_dir: str, directory: str, seed: int, broker, namespace):
        self.socket = os.path.join(directory, "blectld.sock")
        self.state = os.path.join(directory, "state")
        os.makedirs(self.state, exist_ok=True)
        self.log_path = os.path.join(directory, "blectld.log")
        config = os.path.join(directory, "blectld.conf")
        with open(config, "w") as f:
            f.write(f"state_dir = {self.state}\nhistory_commit_interval = 1s\n"
                    f"history_max_bytes = {HISTORY_MAX_BYTES}\nmax_connections = {THERMOMETERS + 14}\n"
                    "max_clients_per_user = 64\n"
                    # The mock's encrypted BTHome sensor: with its key its readings are readings.
                    "bthome_key A4:C1:38:AD:00:02 = 231d39c1d7cc1ab1aee224cd096db932\n")
            if broker:
                f.write(f"mqtt_url = mqtt://127.0.0.1:{broker.port}\nmqtt_client_id = blectl-soak\n"
                        "mqtt_gateway = soak\n")
        os.chmod(config, 0o600)  # a key: blectld refuses a file others can read
        env = dict(os.environ)
        env["BLECTL_MOCK_OPTIONS"] = (f"--fast --thermometers {THERMOMETERS} --notify-interval "
                                      f"{NOTIFY_INTERVAL_MS}ms --seed {seed}")
        argv = [os.path.join(bin_dir, "blectld"), "--mock", "--socket", self.socket, "--config", config,
                "--log-level", "info"]
        if namespace:
            # unshare and sh exec: the process started is blectld itself, its tmpfs private to it.
            argv = namespace + ["sh", "-c", f'mount -t tmpfs -o size={TMPFS_BYTES},mode=0700 soak "$0" && exec "$@"',
                                self.state] + argv
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.log_path, "w"))
        try:
            self.bus_address = self.wait_ready()
        except BaseException:
            self.stop()
            raise

    def wait_ready(self) -> str:
        deadline = now() + 60
        while now() < deadline:
            text = open(self.log_path, errors="replace").read()
            if "ready: socket" in text and "mock: private bus at " in text:
                return text.split("mock: private bus at ", 1)[1].split()[0]
            if self.proc.poll() is not None:
                raise RuntimeError(f"blectld exited ({self.proc.returncode}); see {self.log_path}")
            time.sleep(0.1)
        raise RuntimeError(f"blectld not ready within 60 s; see {self.log_path}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def resources(self):
        """(RSS KiB, open descriptors) of blectld."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        return rss, len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def state_path(self, name: str) -> str:
        """A file in the state directory as the daemon sees it (through its mount namespace)."""
        return f"/proc/{self.proc.pid}/root{self.state}/{name}"

    def stop(self) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class Mock:
    """blectl-mock's control interface, org.blectl.Mock1."""

    def __init__(self, address: str):
        self.bus = dbus.bus.BusConnection(address)
        self.control = dbus.Interface(self.bus.get_object("org.blectl.Mock", "/org/blectl/Mock"), "org.blectl.Mock1")

    def inject(self, name: str, **options) -> None:
        values = {}
        for key, value in options.items():
            if isinstance(value, list):
                values[key] = dbus.Array(value, signature="s")
            elif isinstance(value, int):
                values[key] = dbus.Int32(value)
            else:
                values[key] = dbus.String(value)
        self.control.InjectFault(name, dbus.Dictionary(values, signature="sv"), timeout=30)

    def clear(self) -> None:
        self.control.ClearFaults(timeout=30)


# ---------------------------------------------------------------------------------------------
# Faults: each returns (what it hit, the awaited effect, its bound) and ends the fault itself


class Faults:
    def __init__(self, rig, rng: random.Random, only):
        self.rig, self.rng, self.only = rig, rng, only
        self.all = [thermometer(i) for i in range(THERMOMETERS)]

    def kinds(self):
        if self.only:
            return list(self.only)
        kinds = ["adapter-off-on", "adapter-removed", "bluetoothd-crash", "bluetoothd-stop", "gatt-restart",
                 "connect-race", "fail-connect", "services-never-resolve", "slow-replies", "missing-replies",
                 "remote-disconnect", "malformed", "out-of-range", "stop-discovery-in-progress"]
        if self.rig.broker:
            kinds.append("mqtt-broker-restart")
        if self.rig.namespace:
            kinds.append("disk-full")
        return kinds

    def some(self, most: int):
        return self.rng.sample(self.all, self.rng.randint(1, most))

    def hold(self, low: float, high: float) -> None:
        STOP.wait(self.rng.uniform(low, high))

    def then_disconnect(self, address: str) -> None:
        """Arms-then-triggers: the armed fault bites at the reconnection a remote disconnect causes."""
        self.rig.mock.inject("disconnect", address=address)

    # Each `do_<kind>` injects, ends the fault, and returns (addresses, effect, bound, note).

    def do_adapter_off_on(self):
        self.rig.mock.inject("power-off", adapter="hci0")
        self.hold(0.5, 5)
        self.rig.mock.inject("power-on", adapter="hci0")
        return self.all, "disconnected", BOUND_ALL, ""

    def do_adapter_removed(self):
        self.rig.mock.inject("remove-adapter", adapter="hci0")
        self.hold(0.5, 5)
        self.rig.mock.inject("add-adapter", adapter="hci0")
        return self.all, "disconnected", BOUND_ALL, ""

    def bluetoothd_down(self, fault: str):
        restart_ms = self.rng.randint(100, 5000)
        self.rig.mock.inject(fault, restart_ms=restart_ms)
        STOP.wait(restart_ms / 1000)
        return self.all, "disconnected", BOUND_ALL, f"restart after {restart_ms} ms"

    def do_bluetoothd_crash(self):
        return self.bluetoothd_down("bluetoothd-crash")

    def do_bluetoothd_stop(self):
        return self.bluetoothd_down("bluetoothd-stop")

    def do_gatt_restart(self):
        hit = self.some(3)
        for address in hit:
            self.rig.mock.inject("gatt-restart", address=address)
        STOP.wait(0.5)  # the restarted app's objects are back within ~60 ms; readings before it don't count
        return hit, None, BOUND_ONE, ""

    def do_connect_race(self):
        address = self.rng.choice(self.all)
        self.rig.mock.inject("connect-race", address=address, count=1)
        self.then_disconnect(address)
        return [address], "disconnected", BOUND_ONE, ""

    def do_fail_connect(self):
        address = self.rng.choice(self.all)
        error = self.rng.choice(["abort", "in-progress", "already-connected"])
        count = self.rng.randint(1, 3)
        self.rig.mock.inject("fail-connect", address=address, error=error, count=count)
        self.then_disconnect(address)
        return [address], "disconnected", BOUND_ONE, f"{error} x{count}"

    def do_services_never_resolve(self):
        address = self.rng.choice(self.all)
        self.rig.mock.inject("services-never-resolve", address=address, count=1)
        self.then_disconnect(address)
        return [address], "disconnected", BOUND_TIMEOUT, ""

    def delayed(self, delay_ms: int, bound: float):
        address = self.rng.choice(self.all)
        methods = self.rng.choice([["Connect"], ["StartNotify"], ["Connect", "StartNotify"]])
        count = self.rng.randint(1, 2)
        self.rig.mock.inject("slow-replies", delay_ms=delay_ms, count=count, methods=methods)
        self.then_disconnect(address)
        return [address], "disconnected", bound, f"{'+'.join(methods)} {delay_ms} ms x{count}"

    def do_slow_replies(self):
        return self.delayed(self.rng.randint(500, 5000), BOUND_ONE)

    def do_missing_replies(self):
        # Later than any timeout of blectld's (the connection timeout is 15 s): never, for it.
        return self.delayed(40000, BOUND_TIMEOUT)

    def do_remote_disconnect(self):
        hit = self.some(10)
        for address in hit:
            self.rig.mock.inject("disconnect", address=address)
        return hit, "disconnected", BOUND_ONE, ""

    def do_malformed(self):
        address = self.rng.choice(self.all)
        kind = self.rng.choice(["empty", "non-utf8", "nan", "long", "unknown-unit"])
        count = self.rng.randint(1, 5)
        self.rig.mock.inject("malformed", kind=kind, count=count, address=address)
        return [address], "reading_error", BOUND_ONE, f"{kind} x{count}"

    def do_out_of_range(self):
        address = self.rng.choice(self.all)
        count = self.rng.randint(1, 10)
        self.rig.mock.inject("out-of-range", address=address, count=count)
        self.then_disconnect(address)
        return [address], "disconnected", BOUND_ONE, f"{count} advertisements"

    def do_stop_discovery_in_progress(self):
        address = self.rng.choice(self.all)
        self.rig.mock.inject("stop-discovery-in-progress", count=1)
        self.then_disconnect(address)
        return [address], "disconnected", BOUND_ONE, ""

    def do_mqtt_broker_restart(self):
        crash = self.rng.random() < 0.5
        self.rig.broker.stop(crash)
        self.hold(0.5, 8)
        self.rig.broker.start()
        return [], None, BOUND_MQTT, "SIGKILL" if crash else "SIGTERM"

    def do_disk_full(self):
        """Fills the tmpfs under the history store, holds, frees it; the store must report
        `degraded` meanwhile and commit everything once it can write again."""
        filler = self.rig.daemon.state_path("filler")
        with open(filler, "wb") as f:
            chunk = bytes(1 << 20)
            try:
                while True:
                    f.write(chunk)
                    f.flush()
            except OSError:
                pass
        # Held until the store finds the disk full, then a while longer. At steady state it may
        # need no new space for minutes (the WAL file is reused after each checkpoint; retention
        # frees pages once history_max_bytes is reached): then the fault does not bite.
        degraded_at = None
        deadline = now() + DISK_FULL_MOST_SECONDS
        while now() < deadline and not STOP.is_set():
            history = request(self.rig.daemon.socket, {"cmd": "status"}).get("history") or {}
            if degraded_at is None and history.get("state") == "degraded":
                degraded_at = now()
                deadline = now() + self.rng.uniform(1, 10)
            STOP.wait(0.25)
        os.unlink(filler)
        self.rig.disk_full_bit += degraded_at is not None
        return [], None, BOUND_DISK, "degraded" if degraded_at else "not degraded: no new space needed"


# ---------------------------------------------------------------------------------------------
# The run


class Rig:
    def __init__(self, args, directory: str, log: Log):
        self.broker = None
        self.disk_full_bit = 0  # disk-full faults during which the store reported degraded
        if args.mqtt and shutil.which("mosquitto"):
            self.broker = Broker(directory)
        elif args.mqtt:
            log("mosquitto is missing: no MQTT broker restarts (apt-get install mosquitto)")
        self.namespace = mount_namespace_prefix()
        if not self.namespace:
            log("no mount namespace (not root, no user namespaces): no full-disk faults")
        self.daemon = None
        try:
            self.daemon = Daemon(args.bin_dir, directory, args.seed, self.broker, self.namespace)
            self.mock = Mock(self.daemon.bus_address)
        except BaseException:
            self.stop()
            raise

    def stop(self):
        status = self.daemon.stop() if self.daemon else None
        if self.broker:
            self.broker.stop(crash=False)
        return status


def slope_per_minute(points):
    """Least-squares slope of (seconds, value) points, per minute."""
    n = len(points)
    if n < 3:
        return 0.0
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    return 60 * sum((t - mean_t) * (v - mean_v) for t, v in points) / var if var else 0.0


def warmup_seconds(minutes: float) -> float:
    """How long RSS and descriptors are left to settle before their trend is measured."""
    return max(WARMUP_SECONDS, minutes * 60 * 0.1)


def too_short(minutes: float):
    """Why a run of `minutes` cannot judge a trend (None when it can)."""
    window = minutes * 60 - warmup_seconds(minutes)
    if window >= MIN_TREND_SECONDS:
        return None
    shortest = (WARMUP_SECONDS + MIN_TREND_SECONDS) / 60
    return (f"a {minutes:g}-minute run is too short to judge memory and descriptors: after the "
            f"{WARMUP_SECONDS:.0f}-s warm-up it leaves {max(window, 0):.0f} s, and the trend needs "
            f"{MIN_TREND_SECONDS:.0f} s (start-up growth would pass for a leak); run {shortest:g} minutes or more")


def floors(samples, start: float):
    """Per FLOOR_BUCKET_SECONDS bucket after `start`, the lowest value (t at the bucket's middle)."""
    buckets = {}
    for t, value in samples:
        if t >= start:
            key = int((t - start) // FLOOR_BUCKET_SECONDS)
            buckets[key] = min(buckets.get(key, value), value)
    return [(start + (k + 0.5) * FLOOR_BUCKET_SECONDS, v) for k, v in sorted(buckets.items())]


class Soak:
    def __init__(self, args, directory: str, log: Log):
        self.args, self.directory, self.log = args, directory, log
        self.problems = []
        self.samples = []  # (t, rss KiB, fds)
        self.injected = {}
        self.recoveries = 0
        self.worst = (0.0, "-")
        self.rng = random.Random(args.seed)

    def run(self) -> bool:
        rig = self.rig = Rig(self.args, self.directory, self.log)
        self.log(f"blectld pid {rig.daemon.proc.pid}, mock bus {rig.daemon.bus_address}")
        self.start = now()
        self.subscribers = []
        monitor = threading.Thread(target=self.monitor, name="monitor", daemon=True)
        self.slow = SlowClients(rig.daemon.socket, random.Random(self.rng.random()))
        try:
            for i in (1, 2):
                self.subscribers.append(Subscriber(f"subscriber-{i}", rig.daemon.socket, self.log, self.problems))
                self.subscribers[-1].start()
            monitor.start()
            self.slow.start()
            self.wait_all_connected()
            self.schedule(Faults(rig, random.Random(self.rng.random()), self.args.only))
        except Exception as error:  # noqa: BLE001 - any rig failure ends the run as a failure
            if rig.daemon.alive():
                self.problem(f"{type(error).__name__}: {error}")
        finally:
            STOP.set()
            if monitor.is_alive():
                monitor.join()
            status = rig.stop()
            for subscriber in self.subscribers:
                subscriber.close()
        if status not in (0, None) and not any("exited" in p for p in self.problems):
            self.problems.append(f"blectld exited {status} on SIGTERM")
        return self.summary()

    def wait_all_connected(self) -> None:
        deadline = now() + BOUND_ALL
        while now() < deadline and not STOP.is_set():
            connected = len(request(self.rig.daemon.socket, {"cmd": "status"})["connected"])
            if connected == THERMOMETERS:
                self.log(f"all {THERMOMETERS} thermometers connected after {now() - self.start:.1f} s")
                return
            STOP.wait(0.5)
        raise RuntimeError(f"only {connected} of {THERMOMETERS} thermometers connected within {BOUND_ALL:.0f} s")

    def monitor(self) -> None:
        """The daemon stays up; RSS and descriptors every SAMPLE_SECONDS."""
        while not STOP.is_set():
            if not self.rig.daemon.alive():
                self.problems.append(f"blectld exited ({self.rig.daemon.proc.returncode}) during the soak")
                self.log("FAIL " + self.problems[-1])
                STOP.set()
                return
            try:
                rss, fds = self.rig.daemon.resources()
                self.samples.append((now() - self.start, rss, fds))
            except (OSError, StopIteration):
                pass
            STOP.wait(SAMPLE_SECONDS)

    def schedule(self, faults: Faults) -> None:
        """Rounds of every kind in a seeded random order, one fault at a time, each followed
        by its recovery and a random pause."""
        end = self.start + self.args.minutes * 60
        while not STOP.is_set():
            kinds = faults.kinds()
            faults.rng.shuffle(kinds)
            for kind in kinds:
                if now() >= end or STOP.is_set():
                    return
                self.one(faults, kind)
                if self.problems and self.args.stop_on_failure:
                    STOP.set()
                    return
                STOP.wait(faults.rng.uniform(1, 6))

    def one(self, faults: Faults, kind: str) -> None:
        start = now()
        watch = Watch(start)
        self.subscribers[0].watch(watch)
        hit, effect, bound, note = getattr(faults, "do_" + kind.replace("-", "_"))()
        end = now()
        watch.settle(hit, effect, end)
        self.injected[kind] = self.injected.get(kind, 0) + 1
        label = f"{kind}{' (' + note + ')' if note else ''} on {len(hit) if hit else 'the daemon'}"
        if kind in ("mqtt-broker-restart", "disk-full"):
            recovered = self.wait_for(self.caught_up(kind), end, bound)
        else:
            recovered = self.wait_for(watch.done, end, bound)
            if recovered is not None:
                recovered = watch.latest() - end
        faults.rig.mock.clear()
        if recovered is None:
            missing = watch.pending()
            self.problem(f"{label}: no recovery within {bound:.0f} s: {len(missing)} still waiting, e.g. "
                         + "; ".join(watch.describe(address) for address in missing[:3]))
            return
        recovered = max(recovered, 0.0)
        self.recoveries += 1
        if recovered > self.worst[0]:
            self.worst = (recovered, kind)
        self.log(f"{label}: recovered in {recovered:.2f} s (bound {bound:.0f} s)")

    def problem(self, text: str) -> None:
        self.problems.append(text)
        self.log("FAIL " + text)

    def wait_for(self, condition, end: float, bound: float):
        """Seconds from `end` until `condition()` holds, or None past the bound."""
        while not STOP.is_set():
            if condition():
                return now() - end
            if now() - end > bound:
                return None
            STOP.wait(0.1)
        return None

    def caught_up(self, kind: str):
        """After a broker restart or a freed disk: the broker acknowledged, or the store
        committed, every reading up to the one numbered when the fault ended."""
        target = request(self.rig.daemon.socket, {"cmd": "status"})["last_seq"]
        key, field = ("mqtt", "acked_seq") if kind == "mqtt-broker-restart" else ("history", "committed_seq")
        good = "connected" if key == "mqtt" else "ok"

        def check():
            state = request(self.rig.daemon.socket, {"cmd": "status"}).get(key) or {}
            return state.get("state") == good and (state.get(field) or 0) >= target

        return check

    def trends(self):
        """(RSS slope KiB/min, fd slope /min, their problems) over the floors after the warm-up."""
        warmup = warmup_seconds(self.args.minutes)
        rss_floor = floors([(t, rss) for t, rss, _ in self.samples], warmup)
        fd_floor = floors([(t, fds) for t, _, fds in self.samples], warmup)
        rss_slope, fd_slope = slope_per_minute(rss_floor), slope_per_minute(fd_floor)
        problems = []
        if len(rss_floor) >= 3:
            minutes = (rss_floor[-1][0] - rss_floor[0][0]) / 60
            median = sorted(v for _, v in rss_floor)[len(rss_floor) // 2]
            limit = max(RSS_LIMIT_KIB, RSS_LIMIT_FRACTION * median)
            if rss_slope * minutes > limit:
                problems.append(f"RSS grows {rss_slope:+.1f} KiB/min: {rss_slope * minutes:.0f} KiB over "
                                f"{minutes:.1f} min > {limit:.0f} KiB")
            if fd_slope * minutes > FD_LIMIT:
                problems.append(f"descriptors grow {fd_slope:+.2f}/min: {fd_slope * minutes:.1f} over "
                                f"{minutes:.1f} min > {FD_LIMIT:.0f}")
        else:
            problems.append("too short a run to measure a trend after the warm-up")
        return rss_slope, fd_slope, problems

    def summary(self) -> bool:
        rss_slope, fd_slope, trend_problems = self.trends()
        self.problems.extend(trend_problems)
        with open(os.path.join(self.directory, "resources.tsv"), "w") as f:
            f.write("seconds\trss_kib\tfds\n")
            f.writelines(f"{t:.1f}\t{rss}\t{fds}\n" for t, rss, fds in self.samples)
        first = self.subscribers[0]
        rss = [rss for _, rss, _ in self.samples] or [0]
        fds = [fds for _, _, fds in self.samples] or [0]
        faults = ",".join(f"{kind}={n}" for kind, n in sorted(self.injected.items()))
        verdict = "PASS" if not self.problems else "FAIL"
        print(f"soak seed={self.args.seed} minutes={self.args.minutes:g} faults={sum(self.injected.values())} "
              f"({faults}) recoveries={self.recoveries}/{sum(self.injected.values())} "
              f"worst_recovery={self.worst[0]:.2f}s({self.worst[1]}) readings={first.readings} "
              f"reading_errors={first.errors} seq_gaps={sum(s.gaps for s in self.subscribers)} "
              f"seq_duplicates={sum(s.duplicates for s in self.subscribers)} "
              f"disk_full_degraded={self.rig.disk_full_bit}/{self.injected.get('disk-full', 0)} "
              f"slow_clients={self.slow.sessions}(dropped={self.slow.dropped}) "
              f"rss={rss[0] / 1024:.1f}->{rss[-1] / 1024:.1f}MiB(max {max(rss) / 1024:.1f}) "
              f"rss_slope={rss_slope:+.1f}KiB/min fds={fds[0]}->{fds[-1]}(max {max(fds)}) "
              f"fd_slope={fd_slope:+.2f}/min verdict={verdict}", flush=True)
        for problem in self.problems:
            print(f"soak: {problem}", file=sys.stderr)
        print(f"soak: logs in {self.directory}", file=sys.stderr)
        return not self.problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=120, help="how long to inject faults (default 120)")
    parser.add_argument("--seed", default="", help="the schedule's seed (default: a random one, printed)")
    parser.add_argument("--bin-dir", default=".build/release", help="where blectld and blectl-mock are")
    parser.add_argument("--work", default=".build/soak", help="the runs' log directories go here")
    parser.add_argument("--no-mqtt", dest="mqtt", action="store_false", help="no broker, no broker restarts")
    parser.add_argument("--only", action="append", metavar="KIND", help="only this fault kind (repeatable)")
    parser.add_argument("--stop-on-failure", action="store_true", help="end at the first failure")
    args = parser.parse_args()
    refusal = too_short(args.minutes)
    if refusal:
        print(f"soak: refused: {refusal}", file=sys.stderr)
        return 2
    args.seed = int(args.seed) if str(args.seed).strip() else random.SystemRandom().randrange(1, 2**31)
    directory = os.path.abspath(os.path.join(args.work, time.strftime("%Y%m%dT%H%M%S") + f"-seed{args.seed}"))
    os.makedirs(directory, exist_ok=True)
    log = Log(os.path.join(directory, "soak.log"))
    log(f"seed {args.seed}, {args.minutes:g} minutes, logs in {directory}")
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    signal.signal(signal.SIGINT, lambda *_: STOP.set())
    soak = Soak(args, directory, log)
    try:
        return 0 if soak.run() else 1
    except RuntimeError as error:
        print(f"soak: cannot set up: {error} (logs in {directory})", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
