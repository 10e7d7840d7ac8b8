#!/usr/bin/python3
"""blectl end-to-end scenario driver; runs INSIDE the qemu guest (see ../run-e2e.sh).

The guest's stage 2 (guest-main.sh) has started the system dbus-daemon, btvirt
(four emulated LE controllers on one virtual radio) and dbus-monitor. This
driver owns everything else: bluetoothd (it restarts it), the test peripherals,
the central under test and its CLI, and the assertions.

Roles: hci0 = the central (blectld --adapter hci0), hci1 = peripheral A (UUID
spelling as in cputemp's code, unit F), hci2 = peripheral B (printed spelling,
unit C; only for scenario 6).

  --central blectl   BIN/blectld + BIN/blectl (default)
  --central standin  guest/standin-central.py, same command lines and JSON; adds
                     rig checks that need the stand-in's BlueZ-level events

Scenarios (--scenarios, default 1,2,3,4,5,7,8,9,12,6):
  1 discover/connect/read  2 notifications  3 peripheral app restart
  4 bluetoothd SIGTERM + SIGKILL restarts   5 adapter power off/on
  6 two peripherals (both UUID spellings)
  7 advertising sensors   8 silent controller (the scan watchdog's recovery ladder: restart
  discovery cures it)   8p the same controller deaf again after that (the power cycle cures it)
  9 passive scanning (bluetoothd --experimental, scan_mode = passive: the sensor read through
  an AdvertisementMonitor1, hci0 never scanning actively, nothing connecting)
  10 the sensor's memory (make e2e-memory)   10s the Xiaomi stock firmware's memory and clock
  10t a ThermoPro TP358's display clock (10s and 10t: make e2e-memory)
  11-13 two central controllers (hci0 and hci3, blectld --adapters hci0,hci3): 11 the sensor
  heard by both, each measurement one reading; 12 the controller holding A's link powered
  off, A read through the other (repeated, alternating); 13 one of them silenced, its own
  ladder cures it while the other hears on (11 and 13 not in the default list: make e2e-adapters)
  14 an encrypted MiBeacon v5, an Inkbird (its temperature the company id) and a Govee H5184
  meat thermometer (four probes, each its own reading) from hci2, every value read exactly, a
  wrong or absent bind key errors only (not in the default list)
  15 a fifth controller (guest/vhci-relay.py through btvirt's server socket, blectld --adapters
  hci4,hci0) holding A's link is removed from the kernel, A read through hci0; it comes back as
  hci5 with its address, is taken up again and hears the sensor (make e2e-adapters)
  scanprobe: a rig measurement (scan reliability with/without re-advertising)

Writes OUT/results.json; exit 0 all pass, 1 a failure, 2 rig setup error.
"""
import argparse
import collections
import csv
import ctypes
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import dbus
import dbus.lowlevel

import busmon
import hcitrace

BLUEZ = "org.bluez"
ADAPTER = "org.bluez.Adapter1"
DEVICE = "org.bluez.Device1"
CHRC = "org.bluez.GattCharacteristic1"
PROPS = "org.freedesktop.DBus.Properties"
OM = "org.freedesktop.DBus.ObjectManager"
PY = "/usr/bin/python3"
SOCK = "/run/blectl/blectld.sock"
RUN = "/run/e2e"
DAEMON_CONF = RUN + "/blectld.conf"
CENTRAL_HCI, PERIPH_A_HCI, PERIPH_B_HCI, SPACER_HCI = "hci0", "hci1", "hci2", "hci3"
ALL_HCI = [CENTRAL_HCI, PERIPH_A_HCI, PERIPH_B_HCI, SPACER_HCI]
SUFFIX = {"code": "710e-4a5b-8d75-3e5b444bc3cf", "printed": "710e-4a5b-8d75-3e5b444b3c3f"}
TEMP_UUIDS = tuple("00000002-" + s for s in SUFFIX.values())
NOTIFY_S = 5.0
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$")

T0 = time.monotonic()


def up():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def log(msg):
    print("[driver %7.2f] %s" % (up(), msg), flush=True)


class Fail(Exception):
    pass


class SetupError(Exception):
    """The rig could not be set up: nothing was tested (exit 2)."""


class RigError(Exception):
    """The rig failed during a scenario (its peripheral, btvirt, bluetoothd, a rig
    check): the scenario says nothing about the daemon. Reported as RIG, never as a
    failure of the daemon under test."""


# dbus-monitor's output, on the guest's tmpfs (guest-main.sh copies it to --out at the end).
BUS_LOG = "/run/dbus-monitor.log"

# A daemon recovering by the data watchdog instead of the fault's own signal logs this.
WATCHDOG_LINE = "no data for too long"


def expected_raw(celsius, unit):
    """What the reference peripheral sends: str(round(t, 1)) + " " + unit."""
    t = celsius * 1.8 + 32 if unit == "F" else celsius
    return str(round(t, 1)) + " " + unit


# ================================================================ processes
class Proc:
    """A child process with its own log file; always stopped by pid."""

    def __init__(self, name, argv, logfile, append=True, env=None, timestamps=False):
        """timestamps: every output line is written with the guest's uptime in front
        and kept in `lines` as (monotonic time, line), for the assertions."""
        self.name = name
        self.argv = argv
        self.logf = open(logfile, "a" if append else "w")
        self.logf.write("==== %.2f start: %s\n" % (up(), " ".join(argv)))
        self.logf.flush()
        self.t_start = time.monotonic()
        self.lines = []
        out = subprocess.PIPE if timestamps else self.logf
        self.p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, env=env)
        self.reader = None
        if timestamps:
            self.reader = threading.Thread(target=self._copy, daemon=True)
            self.reader.start()

    def _copy(self):
        for raw in self.p.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            self.lines.append((time.monotonic(), line))
            self.logf.write("%8.3f %s\n" % (up(), line))
            self.logf.flush()

    def lines_since(self, t):
        return [line for at, line in list(self.lines) if at >= t]

    def alive(self):
        return self.p.poll() is None

    def send(self, sig):
        if self.alive():
            self.p.send_signal(sig)

    def wait(self, timeout):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, sig=signal.SIGTERM, timeout=5):
        """Signal, wait, SIGKILL if needed. Returns (rc, clean)."""
        if not self.alive():
            return self.p.returncode, True
        self.p.send_signal(sig)
        rc = self.wait(timeout)
        clean = rc is not None
        if rc is None:
            self.p.kill()
            rc = self.wait(5)
        if self.reader:
            self.reader.join(5)
        self.logf.write("==== %.2f exit rc=%s%s\n" % (up(), rc, "" if clean else " (killed)"))
        self.logf.flush()
        return rc, clean


# ================================================================ BlueZ helpers
class BlueZ:
    """Blocking python3-dbus queries, no main loop (rig setup and rig checks)."""

    def __init__(self):
        self.bus = dbus.SystemBus()
        self.power_attempts = 0     # Powered=true set by the rig (AutoEnable too slow)

    def objects(self):
        try:
            om = dbus.Interface(self.bus.get_object(BLUEZ, "/", introspect=False), OM)
            return om.GetManagedObjects(timeout=5)
        except dbus.DBusException:
            return {}

    def adapters(self):
        return {str(p).split("/")[-1]: i[ADAPTER] for p, i in self.objects().items()
                if ADAPTER in i}

    def set_powered(self, hci, on):
        props = dbus.Interface(self.bus.get_object(BLUEZ, "/org/bluez/" + hci,
                                                   introspect=False), PROPS)
        props.Set(ADAPTER, "Powered", dbus.Boolean(on, variant_level=1), timeout=10)

    def wait_adapters(self, names, timeout, power_if_needed_after=None):
        """Wait until every adapter in names exists and is powered.

        bluetoothd's AutoEnable powers every adapter it finds. If an adapter is still
        off after power_if_needed_after seconds, the rig sets Powered=true itself (at
        most every 2 s per adapter; org.bluez.Error.Busy = AutoEnable's own attempt is
        still under way) and says so. guest-main.sh has made sure that the kernel set
        up every controller before bluetoothd first started, so an adapter missing
        here is bluetoothd's doing or too slow a start."""
        t = time.monotonic()
        powered_by_rig = []
        last_try = {}
        ads = {}
        while time.monotonic() - t < timeout:
            ads = self.adapters()
            if all(n in ads and bool(ads[n]["Powered"]) for n in names):
                return {n: str(ads[n]["Address"]) for n in names}, powered_by_rig
            now = time.monotonic()
            if power_if_needed_after is not None and now - t > power_if_needed_after:
                for n in names:
                    a = ads.get(n)
                    if a is None or bool(a["Powered"]) or now - last_try.get(n, 0) < 2:
                        continue
                    last_try[n] = now
                    self.power_attempts += 1
                    try:
                        self.set_powered(n, True)
                        if n not in powered_by_rig:
                            powered_by_rig.append(n)
                    except dbus.DBusException as e:
                        log("rig: power on %s: %s" % (n, e))
            time.sleep(0.2)

        def state(n):
            a = ads.get(n)
            if a is None:
                return "%s missing (bluetoothd has no such adapter)" % n
            return "%s %s" % (n, "powered" if bool(a["Powered"]) else "not powered")
        raise SetupError("adapters not all present and powered %ds after bluetoothd started: %s"
                         % (timeout, ", ".join(state(n) for n in names)))

    def remove_device(self, hci, addr):
        """Adapter1.RemoveDevice of addr on hci, if BlueZ has it (the link drops with it)."""
        path = "/org/bluez/%s/dev_%s" % (hci, addr.upper().replace(":", "_"))
        adapter = dbus.Interface(self.bus.get_object(BLUEZ, "/org/bluez/" + hci,
                                                     introspect=False), ADAPTER)
        try:
            adapter.RemoveDevice(dbus.ObjectPath(path), timeout=10)
        except dbus.DBusException as e:
            if e.get_dbus_name() != "org.bluez.Error.DoesNotExist":
                raise RigError("RemoveDevice %s: %s" % (path, e))

    def central_view(self, periph_addr):
        """(Device1 props, temp characteristic path or None) as the central's adapter sees the peer."""
        objs = self.objects()
        dpath = None
        for p, i in objs.items():
            d = i.get(DEVICE)
            if d and str(d["Adapter"]).endswith("/" + CENTRAL_HCI) and \
                    str(d["Address"]).upper() == periph_addr.upper():
                dpath, dprops = str(p), d
                break
        if not dpath:
            return None, None
        temp = [str(p) for p, i in objs.items() if str(p).startswith(dpath + "/") and
                CHRC in i and str(i[CHRC]["UUID"]).lower() in TEMP_UUIDS]
        return dprops, (temp[0] if temp else None)


# ================================================================ the watcher
class Watcher:
    """`CLI watch --json` in the background; every line parsed and timestamped."""

    def __init__(self, argv, logfile):
        self.events = []            # (monotonic, obj)
        self.bad_lines = []
        self.cv = threading.Condition()
        self.logf = open(logfile, "a")
        self.logf.write("==== %.2f start: %s\n" % (up(), " ".join(argv)))
        self.logf.flush()
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.logf,
                                  stdin=subprocess.DEVNULL, text=True, bufsize=1)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.p.stdout:
            t = time.monotonic()
            self.logf.write("%.2f %s" % (up(), line))
            self.logf.flush()
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                self.bad_lines.append(line)
                continue
            with self.cv:
                self.events.append((t, obj))
                self.cv.notify_all()
        self.logf.write("==== %.2f watch stdout closed (rc=%s)\n" % (up(), self.p.poll()))
        self.logf.flush()

    def alive(self):
        return self.p.poll() is None

    def wait_for(self, pred, timeout, since=None):
        """First (t, ev) with t >= since and pred(ev); None on timeout."""
        since = T0 if since is None else since
        end = time.monotonic() + timeout
        idx = 0
        with self.cv:
            while True:
                while idx < len(self.events):
                    t, ev = self.events[idx]
                    idx += 1
                    if t >= since and pred(ev):
                        return t, ev
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(min(left, 0.5))

    def all(self, pred, since=None):
        since = T0 if since is None else since
        with self.cv:
            return [(t, e) for t, e in self.events if t >= since and pred(e)]

    def stop(self):
        if self.alive():
            self.p.terminate()
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()


# ================================================================ the rig
class Rig:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        self.W = args.work
        self.bz = BlueZ()
        self.bluetoothd = None
        self.bluetoothd_experimental = False
        self.periph = {}            # name -> Proc
        self.temp_file = {}         # name -> path
        self.temp = {}              # name -> current °C in the file
        self.addr = {}              # hci -> address
        self.daemon = None
        self.watcher = None
        self.standin = args.central == "standin"
        if self.standin:
            script = os.path.join(self.W, "guest", "standin-central.py")
            self.daemon_argv = [PY, script, "daemon"]
            self.cli_argv = [PY, script, "--socket", SOCK]
        else:
            # an empty config of our own: the host's /etc (visible read-only in the
            # guest) might hold an installed /etc/blectl/blectld.conf
            # The history in the guest's writable /run (the rig's /var/lib is read-only).
            self.daemon_argv = [os.path.join(args.bin_dir, "blectld"), "--config", DAEMON_CONF,
                                "--state-dir", RUN + "/state"]
            self.cli_argv = [os.path.join(args.bin_dir, "blectl"), "--socket", SOCK] + args.cli_arg
        self.daemon_argv += ["--socket", SOCK, "--log-level", "debug"]
        # The adapters given to the daemon: hci0 alone, or (scenarios 11-13) hci0 and hci3.
        self.adapter_args = ["--adapter", CENTRAL_HCI]
        self.daemon_log = os.path.join(self.out, "blectld.log" if not self.standin
                                       else "standin-central.log")
        self.buslog = busmon.BusLog(BUS_LOG)
        self.central_name = None    # the daemon's unique name on the system bus
        self.marks = 0
        # What the rig had to try again, printed in the summary (a retry is not hidden).
        self.retries = {"rig power-ons": 0, "spacer connects": 0}

    # ------------------------------------------------------------ the bus, as dbus-monitor saw it
    def mark(self, text):
        """Puts a mark on the bus (a signal dbus-monitor records in order with BlueZ's
        messages); returns its unique text."""
        self.marks += 1
        text = "%s #%d" % (text, self.marks)
        msg = dbus.lowlevel.SignalMessage(busmon.MARK_PATH, busmon.MARK_IFACE, "Mark")
        msg.append(text, signature="s")
        self.bz.bus.send_message(msg)
        self.bz.bus.flush()
        return text

    def bus_between(self, first, last, timeout=15):
        """The messages dbus-monitor recorded between two marks (waits for the last)."""
        end = time.monotonic() + timeout
        while True:
            msgs = self.buslog.poll()
            idx = {m.arg(0): i for i, m in enumerate(msgs[-20000:], max(len(msgs) - 20000, 0))
                   if m.kind == "signal" and m.interface == busmon.MARK_IFACE}
            if first in idx and last in idx:
                return msgs[idx[first] + 1:idx[last]]
            if time.monotonic() > end:
                raise RigError("dbus-monitor did not record the marks %r, %r within %d s"
                               % (first, last, timeout))
            time.sleep(0.2)

    def bus_since(self, first, done, what, timeout=5):
        """The messages since the mark `first`, once `done(messages)` holds or `timeout`
        s have passed: the daemon may still be making a call (StartNotify comes after
        the read that delivered the reading)."""
        end = time.monotonic() + timeout
        while True:
            msgs = self.bus_between(first, self.mark("check %s" % what))
            if done(msgs) or time.monotonic() > end:
                return msgs
            time.sleep(0.3)

    def find_central_name(self):
        """The daemon's unique bus name, by its pid (its calls are told apart by it)."""
        dbus_obj = dbus.Interface(self.bz.bus.get_object("org.freedesktop.DBus",
                                                         "/org/freedesktop/DBus"),
                                  "org.freedesktop.DBus")
        for name in dbus_obj.ListNames():
            if not str(name).startswith(":"):
                continue
            try:
                if int(dbus_obj.GetConnectionUnixProcessID(name)) == self.daemon.p.pid:
                    return str(name)
            except dbus.DBusException:
                continue
        return None

    def central_calls(self, msgs, member, path_pred=lambda p: True):
        return [m for m in msgs if m.kind == "method call" and m.sender == self.central_name
                and m.member == member and path_pred(m.path)]

    def watchdog_fired_since(self, t):
        return [l for l in self.daemon.lines_since(t) if WATCHDOG_LINE in l]

    def stop_all(self):
        """Every process the driver started, each by its pid."""
        if self.watcher:
            self.watcher.stop()
        if self.daemon and self.daemon.alive():
            self.daemon.stop(signal.SIGTERM, 10)
        for n in list(self.periph):
            self.stop_peripheral(n)
        if self.bluetoothd:
            self.bluetoothd.stop(signal.SIGTERM, 10)

    # ------------------------------------------------------------ bluetoothd
    def start_bluetoothd(self, experimental=False):
        """bluetoothd -n -d; with `experimental` also --experimental (scenario 9: the
        adapters then offer AdvertisementMonitorManager1)."""
        self.bluetoothd_experimental = experimental
        self.bluetoothd = Proc("bluetoothd", ["/usr/libexec/bluetooth/bluetoothd", "-n", "-d"]
                               + (["--experimental"] if experimental else []),
                               os.path.join(self.out, "bluetoothd.log"))
        addrs, by_rig = self.bz.wait_adapters(ALL_HCI, 25,
                                              power_if_needed_after=8)
        if by_rig:
            log("NOTE: AutoEnable did not power %s; the rig did" % by_rig)
        self.retries["rig power-ons"] = self.bz.power_attempts
        self.addr.update(addrs)
        return addrs

    # ------------------------------------------------------------ peripherals
    def set_temp(self, name, celsius):
        self.temp[name] = celsius
        tmp = self.temp_file[name] + ".new"
        with open(tmp, "w") as f:
            f.write("%s\n" % celsius)
        os.rename(tmp, self.temp_file[name])      # atomic: no half-written reads

    def start_peripheral(self, name, hci, spelling="code", unit="F", readvertise=None, extra=()):
        ready = os.path.join(RUN, "peripheral-%s.ready" % name)
        if os.path.exists(ready):
            os.unlink(ready)
        argv = [PY, os.path.join(self.W, "peripheral", "thermometer-peripheral.py"),
                "--adapter", hci, "--temp-file", self.temp_file[name],
                "--uuid-spelling", spelling, "--unit", unit, "--ready-file", ready,
                "--readvertise", str(self.args.readvertise if readvertise is None
                                     else readvertise)] + list(extra)
        p = Proc("peripheral-" + name, argv,
                 os.path.join(self.out, "peripheral-%s.log" % name))
        self.periph[name] = p
        return p, ready

    def wait_ready(self, name, ready, timeout=20):
        """Waits until the peripheral registered its app and advertisement; returns what
        it wrote: when each registration was answered (this clock)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if os.path.exists(ready):
                with open(ready) as f:
                    return json.load(f)
            if not self.periph[name].alive():
                raise RigError("peripheral %s exited (rc=%s) before registering, see "
                               "peripheral-%s.log" % (name, self.periph[name].p.returncode, name))
            time.sleep(0.05)
        raise RigError("peripheral %s not registered within %ds" % (name, timeout))

    def stop_peripheral(self, name, timeout=5):
        p = self.periph.get(name)
        if p:
            return p.stop(signal.SIGTERM, timeout)
        return None, True

    # ------------------------------------------------------------ central
    def start_daemon(self):
        os.makedirs(os.path.dirname(SOCK), exist_ok=True)
        argv = self.daemon_argv + self.adapter_args
        self.daemon = Proc("daemon", argv, self.daemon_log, timestamps=True)
        end = time.monotonic() + 15
        # ready = the socket accepts a connection (a stale socket file left by a
        # killed daemon exists but refuses) and the process is still alive
        while time.monotonic() < end:
            if not self.daemon.alive():
                raise Fail("the daemon exited at start (rc=%s), see %s"
                           % (self.daemon.p.returncode, self.daemon_log))
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    probe.settimeout(2)
                    probe.connect(SOCK)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise Fail("the daemon's socket %s accepted no connection within 15 s" % SOCK)
        end = time.monotonic() + 10
        self.central_name = self.find_central_name()
        while not self.central_name and time.monotonic() < end and self.daemon.alive():
            time.sleep(0.2)
            self.central_name = self.find_central_name()
        if not self.central_name:
            raise Fail("the daemon (pid %d) has no connection on the system bus"
                       % self.daemon.p.pid)
        log("daemon up: %s (bus name %s)" % (" ".join(argv), self.central_name))
        self.start_watcher()

    def stop_daemon(self):
        """Stops the daemon (SIGTERM, as a user would) before starting it again with
        another config file."""
        if self.watcher:
            self.watcher.stop()
            self.watcher = None
        rc, clean = self.daemon.stop(signal.SIGTERM, 10)
        if not clean or rc != 0:
            raise Fail("the daemon's stop: exit status %s%s" % (rc, "" if clean else " (killed)"))

    def start_watcher(self):
        if self.watcher:
            self.watcher.stop()
        self.watcher = Watcher(self.cli_argv + ["watch", "--json"],
                               os.path.join(self.out, "watch.log"))

    def cli(self, *verb, timeout=45):
        """Run the CLI; returns (rc, parsed JSON or None, stdout, stderr)."""
        argv = self.cli_argv + list(verb)
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise Fail("`%s` did not finish within %ds" % (" ".join(verb), timeout))
        with open(os.path.join(self.out, "cli.log"), "a") as f:
            f.write("%.2f $ %s\nrc=%d\nstdout: %s\nstderr: %s\n"
                    % (up(), " ".join(argv), r.returncode, r.stdout, r.stderr))
        try:
            obj = json.loads(r.stdout)
        except ValueError:
            obj = None
        return r.returncode, obj, r.stdout, r.stderr

    def check_central_alive(self):
        if self.daemon and not self.daemon.alive():
            raise Fail("the daemon died (rc=%s), see %s" % (self.daemon.p.returncode,
                                                            self.daemon_log))
        if self.watcher and not self.watcher.alive():
            raise Fail("`watch --json` exited (rc=%s), see watch.log" % self.watcher.p.poll())

    # ------------------------------------------------------------ assertions
    def check_reading(self, r, name, hci, what):
        """A reading object (from read or watch) against the peripheral's truth."""
        problems = []
        for k in ("address", "name", "celsius", "raw", "unit", "time", "seq"):
            if k not in r:
                problems.append("missing %r" % k)
        if problems:
            raise Fail("%s: %s in %s" % (what, ", ".join(problems), json.dumps(r)))
        unit = self.periph_unit[name]
        want_raw = expected_raw(self.temp[name], unit)
        if str(r["address"]).upper() != self.addr[hci].upper():
            problems.append("address %s, want %s" % (r["address"], self.addr[hci]))
        if r["name"] != "Thermometer":
            problems.append("name %r, want 'Thermometer' (the advertised name)" % r["name"])
        if r["raw"] != want_raw:
            problems.append("raw %r, want %r" % (r["raw"], want_raw))
        if r["unit"] != unit:
            problems.append("unit %r, want %r" % (r["unit"], unit))
        try:
            v = float(str(r["raw"]).split()[0])
            c = (v - 32) * 5 / 9 if unit == "F" else v
            if not isinstance(r["celsius"], (int, float)) or abs(r["celsius"] - c) > 0.051:
                problems.append("celsius %r, want %.3f (from raw %r)" % (r["celsius"], c, r["raw"]))
        except (ValueError, IndexError):
            problems.append("raw %r is not '<number> <unit>'" % r["raw"])
        if not isinstance(r["seq"], int):
            problems.append("seq %r is not an integer" % r["seq"])
        if not RFC3339.match(str(r["time"])):
            problems.append("time %r is not RFC 3339" % r["time"])
        else:
            ts = str(r["time"]).replace("Z", "+00:00").replace("z", "+00:00")
            ts = re.sub(r"(\.\d{6})\d+", r"\1", ts)
            try:
                dt = datetime.datetime.fromisoformat(ts)
                skew = abs((datetime.datetime.now(datetime.timezone.utc) - dt).total_seconds())
                if skew > 120:
                    problems.append("time %s is %.0f s away from now" % (r["time"], skew))
            except ValueError:
                problems.append("time %r does not parse" % r["time"])
        if problems:
            raise Fail("%s: %s" % (what, "; ".join(problems)))

    def is_reading(self, hci, raw=None):
        addr = self.addr[hci].upper()

        def pred(ev):
            return ev.get("type") == "reading" and str(ev.get("address", "")).upper() == addr \
                and (raw is None or ev.get("raw") == raw)
        return pred

    def steady(self, name, hci, timeout=NOTIFY_S * 2 + 2):
        """Precondition for a fault: readings from this peripheral are flowing."""
        self.check_central_alive()
        hit = self.watcher.wait_for(self.is_reading(hci), timeout,
                                    since=time.monotonic() - NOTIFY_S - 1)
        if not hit:
            raise Fail("precondition: no reading from peripheral %s in the last %.0f s"
                       % (name, timeout))

    def wait_new_reading(self, name, hci, t_end, limit, what, since=None):
        """The first reading of the peripheral's current temperature after `since`
        (default t_end), within `limit` s of t_end; returns its delay after t_end."""
        want = expected_raw(self.temp[name], self.periph_unit[name])
        since = t_end if since is None else since
        hit = self.watcher.wait_for(self.is_reading(hci, want),
                                    max(0.0, t_end + limit - time.monotonic()), since=since)
        if not hit:
            self.check_central_alive()
            got = [e.get("raw") for _, e in self.watcher.all(self.is_reading(hci), since=since)]
            raise Fail("%s: no reading %r within %.0f s (readings since: %s)"
                       % (what, want, limit, got[-5:]))
        self.check_reading(hit[1], name, hci, what)
        return hit[0] - t_end

    # ------------------------------------------------------------ how the daemon recovered
    def device_path(self, hci):
        return "/org/bluez/%s/dev_%s" % (CENTRAL_HCI, self.addr[hci].upper().replace(":", "_"))

    def bluez_names(self):
        """Every unique name that owned org.bluez so far (one per bluetoothd start)."""
        return {m.arg(2) for m in self.buslog.poll()
                if m.member == "NameOwnerChanged" and m.arg(0) == BLUEZ and m.arg(2)}

    def no_watchdog(self, t_fault, problems):
        fired = self.watchdog_fired_since(t_fault)
        if fired:
            problems.append("the data watchdog fired (%r): the recovery was not the "
                            "fault's own" % fired[0])

    def no_disconnected_event(self, hci, t_fault, problems):
        addr = self.addr[hci].upper()
        ev = self.watcher.all(lambda e: e.get("type") == "disconnected" and
                              str(e.get("address", "")).upper() == addr, since=t_fault)
        if ev:
            problems.append("`watch` showed %s" % json.dumps(ev[0][1]))

    def adapter_states_since(self, t):
        """The daemon's adapter_state events: (state, reason); while bluetoothd or the
        adapter is missing the adapter is null."""
        return [(e.get("state"), e.get("reason") or "") for _, e in self.watcher.all(
            lambda e: e.get("type") == "adapter_state" and e.get("adapter") in (CENTRAL_HCI, None),
            since=t)]

    def standin_event(self, type_, pred=lambda e: True, timeout=0.0, since=None):
        return self.watcher.wait_for(lambda e: e.get("type") == type_ and pred(e),
                                     timeout, since=since)


# ================================================================ scenarios
def sc1_read(rig, res):
    """discover / connect / read"""
    rc, obj, out, err = rig.cli("read", "--json", "--timeout", "30", timeout=45)
    if rc != 0 or not isinstance(obj, list):
        raise Fail("`read --json --timeout 30` rc=%d stdout=%r stderr=%r"
                   % (rc, out[-300:], err[-300:]))
    mine = [r for r in obj if isinstance(r, dict) and
            str(r.get("address", "")).upper() == rig.addr[PERIPH_A_HCI].upper()]
    if not mine:
        raise Fail("no reading for %s in %s" % (rig.addr[PERIPH_A_HCI], out.strip()))
    rig.check_reading(mine[0], "A", PERIPH_A_HCI, "read")
    rc, st, out, err = rig.cli("status", "--json", timeout=15)
    if rc != 0 or not isinstance(st, dict) or "state" not in st or "connected" not in st:
        raise Fail("`status --json` rc=%d: want an object with state and connected, got %r"
                   % (rc, (out or err)[-300:]))
    res["first_read_s"] = round(time.monotonic() - rig.daemon.t_start, 2)
    res["detail"] = "%s -> %.2f C (daemon start to read reply %.1f s)" % (
        mine[0]["raw"], mine[0]["celsius"], res["first_read_s"])
    if rig.standin:
        rig_checks_peripheral(rig, "A", PERIPH_A_HCI, "code", "F")
        res["detail"] += "; rig: advertisement + GATT layout as the reference peripheral"


def rig_checks_peripheral(rig, name, hci, spelling, unit):
    """Stand-in only: the peripheral reproduces the reference peripheral."""
    addr = rig.addr[hci].upper()
    end = time.monotonic() + 10
    seen = info = None
    while time.monotonic() < end:
        rc, st, out, err = rig.cli("status", "--json", timeout=15)
        r = (st or {}).get("rig", {}) if isinstance(st, dict) else {}
        seen = {a.upper(): v for a, v in r.get("seen", {}).items()}.get(addr)
        info = {a.upper(): v for a, v in r.get("gatt_info", {}).items()}.get(addr)
        if seen and info:
            break
        time.sleep(0.5)
    if not seen or not info:
        raise RigError("rig: the stand-in has no advertisement/GATT record of %s (seen=%s info=%s)"
                   % (addr, bool(seen), bool(info)))
    if seen.get("uuids"):
        raise RigError("rig: the advertisement carries service UUIDs %s (must carry none)"
                   % seen["uuids"])
    sfx = SUFFIX[spelling]
    want = {
        "service_uuid": "00000001-" + sfx,
        "chars": {"00000002-" + sfx: ["notify", "read"], "00000003-" + sfx: ["read", "write"]},
        "descriptors": {"00000002-" + sfx: "CPU Temperature",
                        "00000003-" + sfx: "Temperature Units (F or C)"},
        "unit_value": unit,
        # cputemp's write handler: str(dbus.Byte(67)).upper() == "C" with python3-dbus
        # 1.3.x, so a write of the other letter DOES switch the unit (then restored)
        "unit_after_writing_other": "C" if unit == "F" else "F",
        "unit_after_restoring": unit,
    }
    for k, v in want.items():
        if info.get(k) != v:
            raise RigError("rig: GATT %s is %r, want %r (full: %s)" % (k, info.get(k), v,
                                                                  json.dumps(info)))
    log("rig: peripheral %s OK (rssi %s, TxPower %s, name after connect %r)"
        % (name, seen.get("rssi"), seen.get("tx_power"), info.get("device_name_now")))


def sc2_notify(rig, res):
    """notifications: a new temperature reaches `watch` within one notify interval"""
    rig.steady("A", PERIPH_A_HCI)
    rig.set_temp("A", 51.3)
    t_w = time.monotonic()
    limit = NOTIFY_S + rig.args.notify_slack
    lat = rig.wait_new_reading("A", PERIPH_A_HCI, t_w, limit, "watch")
    res["latency_s"] = round(lat, 2)
    res["detail"] = "%r after %.2f s (limit %.1f s)" % (
        expected_raw(51.3, "F"), lat, limit)
    if rig.standin:
        # rig: the peripheral notifies every 5 s
        first = rig.watcher.wait_for(rig.is_reading(PERIPH_A_HCI), 0, since=t_w)
        t1 = first[0]
        end = t1 + 2 * NOTIFY_S + 2.5
        while time.monotonic() < end and \
                len(rig.watcher.all(rig.is_reading(PERIPH_A_HCI), since=t1)) < 3:
            time.sleep(0.2)
        ts = [t for t, _ in rig.watcher.all(rig.is_reading(PERIPH_A_HCI), since=t1)][:3]
        iv = [round(b - a, 2) for a, b in zip(ts, ts[1:])]
        if len(iv) < 2 or any(abs(x - NOTIFY_S) > 1.0 for x in iv):
            raise RigError("rig: notification intervals %s, want 2 x 5 s (+-1)" % iv)
        res["detail"] += "; rig: notify intervals %s s" % iv


def sc3_periph_restart(rig, res):
    """peripheral GATT app restart (link stays up)"""
    rig.steady("A", PERIPH_A_HCI)
    before_dev, before_path = rig.bz.central_view(rig.addr[PERIPH_A_HCI])
    fault = rig.mark("fault 3 app-restart")
    t_fault = time.monotonic()
    rc, clean = rig.stop_peripheral("A")
    if not clean:
        raise RigError("peripheral A ignored SIGTERM")
    time.sleep(2.0)
    mid_dev, mid_path = rig.bz.central_view(rig.addr[PERIPH_A_HCI])
    rig.set_temp("A", 38.0)
    _, ready = rig.start_peripheral("A", PERIPH_A_HCI)
    t_proc = time.monotonic()
    t_end = rig.wait_ready("A", ready)["app_registered"]
    res["startup_s"] = round(t_end - t_proc, 2)
    res["recovery_s"] = round(rig.wait_new_reading("A", PERIPH_A_HCI, t_end,
                                                   rig.args.recovery_limit,
                                                   "after the restart", since=t_proc), 2)
    res["detail"] = ("first new reading %.2f s after the app registered again (its start-up "
                     "took %.2f s)" % (res["recovery_s"], res["startup_s"]))
    if rig.standin:
        addr = rig.addr[PERIPH_A_HCI].upper()
        after_dev, after_path = rig.bz.central_view(rig.addr[PERIPH_A_HCI])
        problems = []
        if not (before_dev and before_dev.get("Connected") and before_path):
            problems.append("before: not connected or no GATT (%s)" % before_path)
        if not mid_dev or not mid_dev.get("Connected") or mid_path:
            problems.append("app down: want link up and no GATT, got Connected=%s char=%s"
                            % (mid_dev and bool(mid_dev.get("Connected")), mid_path))
        if not after_path or after_path == before_path:
            problems.append("app back: char at %s, want a new path (was %s)"
                            % (after_path, before_path))
        m = lambda e: e.get("address", "").upper() == addr  # noqa: E731
        removed = rig.standin_event("gatt_removed", m, 0, since=t_fault)
        added = rig.standin_event("gatt_added", m, 0, since=t_fault)
        disc = rig.standin_event("disconnected", m, 0, since=t_fault)
        if not removed or not removed[1]["connected"]:
            problems.append("no InterfacesRemoved of the char with the link up: %s" % (removed,))
        if not added or not added[1]["connected"]:
            problems.append("no InterfacesAdded of the char with the link up: %s" % (added,))
        if disc:
            problems.append("the link dropped: %s" % (disc[1],))
        if problems:
            raise RigError("rig: " + "; ".join(problems))
        res["detail"] += "; rig: GATT removed+re-added (%s -> %s), link up" % (
            before_path.split("/", 5)[-1], after_path.split("/", 5)[-1])
        return
    # How: the link stayed up, so the daemon must have re-subscribed on the new objects,
    # without the watchdog, a Connect or a reported disconnection.
    dev = rig.device_path(PERIPH_A_HCI)

    def new_subscriptions(msgs):
        return [m.path for m in rig.central_calls(msgs, "StartNotify", lambda p: p.startswith(dev + "/"))
                if m.path != before_path]
    msgs = rig.bus_since(fault, new_subscriptions, "3 app-restart")
    bluez = rig.bluez_names()
    dropped = [m for m in msgs if m.sender in bluez and m.member == "PropertiesChanged"
               and m.path == dev and ("Connected", "b", False) in busmon.props(m.args[1])]
    problems = []
    if dropped:
        if rig.central_calls(msgs, "Disconnect", lambda p: p == dev):
            problems.append("the daemon called Disconnect, and the link went down")
        else:
            raise RigError("the link dropped during the app restart (BlueZ said Connected=false, "
                           "the daemon had not asked): the mechanism cannot be judged")
    rig.no_disconnected_event(PERIPH_A_HCI, t_fault, problems)
    if rig.central_calls(msgs, "Connect", lambda p: p == dev):
        problems.append("the daemon called Connect on a link that was up")
    subs = new_subscriptions(msgs)
    if not subs:
        problems.append("no StartNotify on the new characteristic (the old one was %s)" % before_path)
    rig.no_watchdog(t_fault, problems)
    if problems:
        raise Fail("wrong recovery: " + "; ".join(problems))
    res["detail"] += "; link up, re-subscribed at %s (was %s), no Connect" % (
        subs[-1].split("/", 5)[-1], (before_path or "?").split("/", 5)[-1])


def restart_bluetoothd(rig, res, sig, celsius):
    rig.steady("A", PERIPH_A_HCI)
    fault = rig.mark("fault 4 bluetoothd-%s" % sig.name)
    t_fault = time.monotonic()
    rig.bluetoothd.send(sig)
    rc = rig.bluetoothd.wait(10)
    if rc is None:
        rig.bluetoothd.stop(signal.SIGKILL)
        raise RigError("bluetoothd did not exit within 10 s of %s" % sig.name)
    rig.bluetoothd.logf.write("==== %.2f exit rc=%s after %s\n" % (up(), rc, sig.name))
    # the peripheral's registrations died with bluetoothd; it exits by itself
    rc_p, _ = rig.stop_peripheral("A", timeout=5)
    time.sleep(1.0)
    rig.set_temp("A", celsius)
    rig.start_bluetoothd()
    _, ready = rig.start_peripheral("A", PERIPH_A_HCI)
    t_proc = time.monotonic()
    t_end = rig.wait_ready("A", ready)["app_registered"]
    res["fault_s"] = round(t_end - t_fault, 2)
    res["startup_s"] = round(t_end - t_proc, 2)
    res["recovery_s"] = round(rig.wait_new_reading("A", PERIPH_A_HCI, t_end,
                                                   rig.args.recovery_limit,
                                                   "after the bluetoothd restart",
                                                   since=t_proc), 2)
    res["detail"] = ("first new reading %.2f s after bluetoothd was back and the peripheral "
                     "registered again (fault lasted %.1f s)" % (res["recovery_s"], res["fault_s"]))
    if rig.standin:
        gone = rig.standin_event("bluez_gone", timeout=0, since=t_fault)
        if not gone:
            raise RigError("rig: the stand-in saw no NameOwnerChanged(org.bluez -> '')")
        g = gone[1]
        if sig == signal.SIGTERM and not g["saw_adapter_removed"]:
            raise RigError("rig: SIGTERM but no InterfacesRemoved of the adapter before the "
                           "name vanished: %s" % g)
        if sig == signal.SIGKILL and (g["saw_adapter_removed"] or g["saw_disconnected"]):
            raise RigError("rig: SIGKILL should show only NameOwnerChanged, saw %s" % g)
        res["detail"] += "; rig: before the name vanished: adapter removed=%s, " \
                         "disconnected=%s" % (g["saw_adapter_removed"], g["saw_disconnected"])
        return
    # How: the daemon saw org.bluez leave and come back, and took a new snapshot of the
    # new bluetoothd's objects (no watchdog).
    msgs = rig.bus_between(fault, rig.mark("end 4 bluetoothd-%s" % sig.name))
    owners = [(i, m.arg(1), m.arg(2)) for i, m in enumerate(msgs)
              if m.member == "NameOwnerChanged" and m.arg(0) == BLUEZ]
    left = [i for i, old, new in owners if old and not new]
    back = [(i, new) for i, old, new in owners if new and not old]
    if not left or not back:
        raise RigError("rig: dbus-monitor saw no NameOwnerChanged of org.bluez leaving and "
                       "coming back (%s)" % owners)
    i_back, new_owner = back[-1]
    problems = []
    snapshots = [m for m in msgs[i_back:] if m.kind == "method call" and
                 m.sender == rig.central_name and m.member == "GetManagedObjects" and
                 m.destination in (BLUEZ, new_owner)]
    if not snapshots:
        problems.append("no GetManagedObjects to the new bluetoothd (%s)" % new_owner)
    # The daemon said bluetoothd was gone (resetting, or unsupported when its adapter
    # went first, as on SIGTERM), then poweredOn.
    states = rig.adapter_states_since(t_fault)
    gone = [i for i, (st, why) in enumerate(states) if "bluetoothd is not running" in why]
    if not gone or "poweredOn" not in [st for st, _ in states[gone[0]:]]:
        problems.append("adapter_state events %s, want 'bluetoothd is not running' then "
                        "poweredOn" % states)
    rig.no_watchdog(t_fault, problems)
    if problems:
        raise Fail("wrong recovery: " + "; ".join(problems))
    res["detail"] += "; NameOwnerChanged out and in, re-snapshotted, states %s" % (
        " -> ".join(st for st, _ in states))


def sc4a_bluetoothd_term(rig, res):
    """bluetoothd clean stop (SIGTERM) and restart"""
    restart_bluetoothd(rig, res, signal.SIGTERM, 40.0)


def sc4b_bluetoothd_kill(rig, res):
    """bluetoothd crash (SIGKILL) and restart"""
    restart_bluetoothd(rig, res, signal.SIGKILL, 41.0)


def btmgmt_power(hci, state):
    idx = hci[3:]
    r = subprocess.run(["btmgmt", "--index", idx, "power", state], capture_output=True,
                       text=True, timeout=15, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RigError("btmgmt --index %s power %s: rc=%d %s %s" % (idx, state, r.returncode,
                                                                    r.stdout, r.stderr))


def sc5_power(rig, res):
    """adapter power off/on on the central's controller"""
    rig.steady("A", PERIPH_A_HCI)
    t_fault = time.monotonic()
    btmgmt_power(CENTRAL_HCI, "off")
    hit = rig.watcher.wait_for(lambda e: e.get("type") == "adapter_state" and
                               e.get("adapter") == CENTRAL_HCI and
                               e.get("state") == "poweredOff", 10, since=t_fault)
    if not hit:
        raise Fail("no {\"type\":\"adapter_state\",\"adapter\":\"%s\",\"state\":\"poweredOff\"} "
                   "within 10 s of powering off" % CENTRAL_HCI)
    res["poweredOff_event_s"] = round(hit[0] - t_fault, 2)
    time.sleep(1.0)
    dev, _ = rig.bz.central_view(rig.addr[PERIPH_A_HCI])
    powered = rig.bz.adapters().get(CENTRAL_HCI, {}).get("Powered")
    if powered or (dev and dev.get("Connected")):
        raise RigError("rig: after power off, Powered=%s Connected=%s" % (
            bool(powered), dev and bool(dev.get("Connected"))))
    rig.set_temp("A", 42.0)
    time.sleep(1.0)
    btmgmt_power(CENTRAL_HCI, "on")
    t_end = time.monotonic()
    res["recovery_s"] = round(rig.wait_new_reading("A", PERIPH_A_HCI, t_end,
                                                   rig.args.recovery_limit,
                                                   "after power on"), 2)
    res["detail"] = ("poweredOff event %.2f s after power off; first new reading %.2f s "
                     "after power on" % (res["poweredOff_event_s"], res["recovery_s"]))
    # How: the daemon followed the adapter's power (off, then on), not the watchdog.
    problems = []
    states = [st for st, _ in rig.adapter_states_since(t_fault)]
    if "poweredOff" not in states or "poweredOn" not in states[states.index("poweredOff"):]:
        problems.append("adapter_state events %s, want poweredOff then poweredOn" % states)
    rig.no_watchdog(t_fault, problems)
    if problems:
        raise Fail("wrong recovery: " + "; ".join(problems))
    res["detail"] += "; states %s" % " -> ".join(states)


def hci_handles(hci):
    """{peer address: connection handle} of one controller (hcitool con)."""
    r = subprocess.run(["hcitool", "-i", hci, "con"], capture_output=True, text=True,
                       timeout=10, stdin=subprocess.DEVNULL)
    return {m.group(1).upper(): int(m.group(2))
            for m in re.finditer(r"([0-9A-Fa-f:]{17}) handle (\d+)", r.stdout)}


def spacer_link(rig):
    """Give hci2 a first link (to hci3) so that its link to the central gets the
    same connection handle on both ends.

    btvirt quirk: each emulated controller numbers its links itself (first free
    handle from 42) and forwards ACL data WITHOUT translating the handle to the
    peer's. The central's second link gets 43 on hci0 but 42 on a fresh hci2:
    its ATT traffic lands on the wrong link (the MTU exchange never completes,
    the other link gets foreign PDUs) and the 6.1 kernel then hits list_del
    corruption in hci_chan_del, killing bluetoothd. Real controllers translate.
    """
    addr3 = rig.addr[SPACER_HCI]
    r = subprocess.run(["btmgmt", "--index", SPACER_HCI[3:], "add-adv", "-c", "-d",
                        "0201060709537061636572", "1"],         # flags + name "Spacer"
                       capture_output=True, text=True, timeout=15, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RigError("rig: btmgmt add-adv on %s: %s %s" % (SPACER_HCI, r.stdout, r.stderr))
    bus = rig.bz.bus
    apath = "/org/bluez/" + PERIPH_B_HCI
    adapter = dbus.Interface(bus.get_object(BLUEZ, apath), ADAPTER)
    adapter.SetDiscoveryFilter({"Transport": dbus.String("le")})
    end = time.monotonic() + 25
    dpath = None
    while dpath is None and time.monotonic() < end:
        try:
            adapter.StartDiscovery()
        except dbus.DBusException:
            pass
        t = time.monotonic()
        while dpath is None and time.monotonic() - t < 3:
            for p, ifs in rig.bz.objects().items():
                d = ifs.get(DEVICE)
                if d and str(d["Adapter"]) == apath and str(d["Address"]).upper() == addr3:
                    dpath = str(p)
            time.sleep(0.2)
        try:
            adapter.StopDiscovery()        # btvirt reports once per scan enable: rescan
        except dbus.DBusException:
            pass
    if not dpath:
        raise RigError("rig: %s never saw the spacer %s" % (PERIPH_B_HCI, SPACER_HCI))
    dev = dbus.Interface(bus.get_object(BLUEZ, dpath), DEVICE)
    for attempt in range(3):
        try:
            dev.Connect(timeout=20)
            break
        except dbus.DBusException as e:
            log("rig: spacer connect attempt %d: %s" % (attempt + 1, e))
            rig.retries["spacer connects"] += 1
            time.sleep(1)
    h = hci_handles(PERIPH_B_HCI)
    if addr3 not in h:
        raise RigError("rig: the spacer link %s -> %s did not come up" % (PERIPH_B_HCI, SPACER_HCI))
    log("rig: spacer link %s -> %s, handle %d" % (PERIPH_B_HCI, SPACER_HCI, h[addr3]))


def sc6_two(rig, res):
    """two peripherals at once, one per UUID spelling"""
    rig.check_central_alive()
    spacer_link(rig)
    rig.set_temp("B", 36.6)
    _, ready = rig.start_peripheral("B", PERIPH_B_HCI, spelling="printed", unit="C")
    t_start = time.monotonic()
    rig.wait_ready("B", ready)
    want = {rig.addr[PERIPH_A_HCI].upper(): ("A", PERIPH_A_HCI),
            rig.addr[PERIPH_B_HCI].upper(): ("B", PERIPH_B_HCI)}
    end = t_start + rig.args.two_limit
    last = None
    while time.monotonic() < end:
        left = max(1, int(end - time.monotonic()))
        rc, obj, out, err = rig.cli("read", "--json", "--timeout", str(min(10, left)),
                                    timeout=min(10, left) + 15)
        last = out.strip() or err.strip()
        if rc == 0 and isinstance(obj, list):
            got = {str(r.get("address", "")).upper(): r for r in obj if isinstance(r, dict)}
            if all(a in got for a in want):
                for a, (name, hci) in want.items():
                    rig.check_reading(got[a], name, hci, "read (peripheral %s)" % name)
                res["both_s"] = round(time.monotonic() - t_start, 2)
                res["detail"] = "both read %.1f s after B started: %s / %s" % (
                    res["both_s"], got[rig.addr[PERIPH_A_HCI].upper()]["raw"],
                    got[rig.addr[PERIPH_B_HCI].upper()]["raw"])
                break
        rig.check_central_alive()
        time.sleep(1.0)
    else:
        raise Fail("not both peripherals within %.0f s of starting B; last read: %s"
                   % (rig.args.two_limit, last))
    # rig: both ends of each link use the same handle (see spacer_link)
    h0 = hci_handles(CENTRAL_HCI)
    for hci in (PERIPH_A_HCI, PERIPH_B_HCI):
        mine = h0.get(rig.addr[hci].upper())
        theirs = hci_handles(hci).get(rig.addr[CENTRAL_HCI].upper())
        if mine is None or mine != theirs:
            raise RigError("rig: link %s-%s has handle %s on %s but %s on %s"
                       % (CENTRAL_HCI, hci, mine, CENTRAL_HCI, theirs, hci))
    if rig.standin:
        rig_checks_peripheral(rig, "B", PERIPH_B_HCI, "printed", "C")
        res["detail"] += "; rig: B's printed-spelling GATT layout OK"


def scanprobe(rig, res):
    """rig measurement: how often one scan finds the peripheral, re-advertising off vs on"""
    bus = rig.bz.bus
    apath = "/org/bluez/" + CENTRAL_HCI
    adapter = dbus.Interface(bus.get_object(BLUEZ, apath), ADAPTER)
    adapter.SetDiscoveryFilter({"Transport": dbus.String("le")})
    summary = {}
    for readv in (0, 2):
        rig.stop_peripheral("A")
        _, ready = rig.start_peripheral("A", PERIPH_A_HCI, readvertise=readv)
        rig.wait_ready("A", ready)
        found, times = 0, []
        for i in range(rig.args.probe_scans):
            for p, ifs in rig.bz.objects().items():        # forget it: a fresh find
                if DEVICE in ifs and str(ifs[DEVICE]["Adapter"]) == apath:
                    try:
                        adapter.RemoveDevice(p)
                    except dbus.DBusException:
                        pass
            t = time.monotonic()
            adapter.StartDiscovery()
            hit = None
            while time.monotonic() - t < rig.args.probe_window:
                for p, ifs in rig.bz.objects().items():
                    d = ifs.get(DEVICE)
                    if d and str(d["Adapter"]) == apath and d.get("Name") == "Thermometer":
                        hit = time.monotonic() - t
                if hit is not None:
                    break
                time.sleep(0.1)
            try:
                adapter.StopDiscovery()
            except dbus.DBusException:
                pass
            if hit is not None:
                found += 1
                times.append(round(hit, 2))
            time.sleep(0.3)
        summary["readvertise_%ss" % readv] = {"found": found, "scans": rig.args.probe_scans,
                                              "window_s": rig.args.probe_window,
                                              "times_s": times}
        log("scanprobe readvertise=%s: found %d/%d, times %s"
            % (readv, found, rig.args.probe_scans, times))
    res["probe"] = summary
    res["detail"] = json.dumps(summary)


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def system_bus_pid():
    with open("/run/dbus/daemon.pid") as f:
        return int(f.read().split()[0])


def source_cost(rig, sensor, seconds):
    """Issue 37: CPU seconds of blectld and of the system dbus-daemon over `seconds`, and the
    advertisements the monitor counted meanwhile (status' `advertisements`)."""
    procs = (rig.daemon.p.pid, system_bus_pid())
    first = sensor.advertisement_status().get("advertisements", 0)
    before, t = [cpu_seconds(p) for p in procs], time.monotonic()
    time.sleep(seconds)
    used = [round(cpu_seconds(p) - b, 3) for p, b in zip(procs, before)]
    elapsed = time.monotonic() - t
    heard = sensor.advertisement_status().get("advertisements", 0) - first
    return {"seconds": round(elapsed, 1), "blectld_cpu_s": used[0], "dbus_daemon_cpu_s": used[1],
            "advertisements": heard}


MGMT_LINE = "heard through the kernel's management socket"


def cpu_share(rig, seconds):
    """(blectld %, bluetoothd %) of one core over the next `seconds`."""
    procs = (rig.daemon.p.pid, rig.bluetoothd.p.pid)
    before, t = [cpu_seconds(p) for p in procs], time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - t
    return tuple(round(100 * (cpu_seconds(p) - b) / elapsed, 1) for p, b in zip(procs, before))


SENSOR_KEY = "231d39c1d7cc1ab1aee224cd096db932"
# Readings the sensor on hci2 sends, in order: (format, profile, °C). With its key in the
# configuration first (the daemon then refuses anything unencrypted from it: no downgrade),
# then without it.
KEYED_FORMATS = [("bthome-encrypted", "bthome", 22.5)]
UNKEYED_FORMATS = [("bthome", "bthome", 21.37), ("pvvx", "pvvx", 23.11)]
REFUSED_PLAIN = "has a key but sent unencrypted BTHome data"


def write_daemon_conf(*extra):
    """The daemon's config file: every setting at its default, plus `extra` lines (scenario 7
    adds the sensor's key, scenario 8 a short scan_watchdog)."""
    with open(DAEMON_CONF + ".new", "w") as f:
        f.write("# e2e: every setting at its default; the command line sets adapter, "
                "socket, log level\n")
        f.writelines(line + "\n" for line in extra)
    os.chmod(DAEMON_CONF + ".new", 0o600)  # it may hold a key: blectld refuses one others can read
    os.rename(DAEMON_CONF + ".new", DAEMON_CONF)


def restart_daemon(rig, *conf):
    rig.stop_daemon()
    write_daemon_conf(*conf)
    rig.start_daemon()


class Sensor:
    """The advertising sensor on hci2: its format and temperature are files it reads at
    every re-registration (once a second)."""

    def __init__(self, rig):
        self.rig = rig
        self.format_file = os.path.join(RUN, "sensor-format")
        rig.temp_file["S"] = os.path.join(RUN, "temp-S")
        self.addr = rig.addr[PERIPH_B_HCI].upper()

    def send(self, fmt, celsius):
        self.write(fmt, celsius)
        if "S" not in self.rig.periph or not self.rig.periph["S"].alive():
            # 40 s, not 20: at a load average of 18-20 its start took 21.5 s (11 s to import
            # dbus and gi, 9 s more to its first MiBeacon frame, python3-cryptography's import)
            self.rig.wait_ready("S", self.launch(), timeout=40)

    def write(self, fmt, celsius):
        """What the sensor sends from its next measurement on."""
        with open(self.format_file + ".new", "w") as f:
            f.write(fmt + "\n")
        os.rename(self.format_file + ".new", self.format_file)
        self.rig.set_temp("S", celsius)

    def launch(self):
        """Starts the sensor's process; returns its ready file (Rig.wait_ready)."""
        _, ready = self.rig.start_peripheral("S", PERIPH_B_HCI, readvertise=1,
                                             extra=["--sensor", self.format_file,
                                                    "--bthome-key", SENSOR_KEY,
                                                    "--mibeacon-key", MIBEACON_KEY])
        return ready

    def read(self):
        """The daemon's reading of the sensor (a dict), or the CLI's answer (a string)."""
        got = self.read_all()
        return got[0] if isinstance(got, list) else got

    def read_all(self):
        """Every row `read` gives for the sensor (a list: one a probe on a device with
        several), or the CLI's answer (a string)."""
        rc, obj, out, err = self.rig.cli("read", self.addr, "--json", "--timeout", "5", timeout=20)
        return obj if rc == 0 and isinstance(obj, list) and obj else (out.strip() or err.strip())

    def expect(self, fmt, profile, celsius):
        """Seconds from the sensor being on the air (started, or the files switched) until
        `blectl read` returns this measurement, every quantity right."""
        self.send(fmt, celsius)
        t = time.monotonic()
        last = None
        while time.monotonic() - t < self.rig.args.recovery_limit:
            got = last = self.read()
            if isinstance(got, dict) and got.get("profile") == profile \
                    and abs(got.get("celsius", 0) - celsius) < 0.006:
                want = {"humidity": 55.5, "battery": 77}
                if profile == "pvvx":
                    want["voltage"] = 2.95
                wrong = {k: got.get(k) for k, v in want.items() if got.get(k) != v}
                if wrong or not got.get("fresh") or not all(c in "0123456789abcdef" for c in got.get("raw", "x")):
                    raise Fail("%s: %s wrong in %s" % (fmt, wrong or "fresh/raw", json.dumps(got)))
                return round(time.monotonic() - t, 2)
            self.rig.check_central_alive()
            time.sleep(0.5)
        raise Fail("%s: no reading %s %.2f °C from %s within %.0f s; last: %s"
                   % (fmt, profile, celsius, self.addr, self.rig.args.recovery_limit, last))

    def expect_refused(self, celsius, seconds=4):
        """Plain BTHome from a keyed device: logged as refused, never a reading."""
        self.send("bthome", celsius)
        t = time.monotonic()
        while time.monotonic() - t < self.rig.args.recovery_limit:
            if any(REFUSED_PLAIN in line for line in self.rig.daemon.lines_since(t)):
                break
            time.sleep(0.5)
        else:
            raise Fail("plain BTHome from a keyed sensor: no refusal in the log within %.0f s"
                       % self.rig.args.recovery_limit)
        time.sleep(seconds)         # more plain advertisements, still refused
        got = self.read()
        if isinstance(got, dict) and abs(got.get("celsius", 0) - celsius) < 0.006:
            raise Fail("plain BTHome from a keyed sensor was accepted: %s" % json.dumps(got))

    def advertisement_status(self):
        _, status, _, _ = self.rig.cli("status", "--json")
        return (status or {}).get("advertisements") or {}


def sc7_adverts(rig, res):
    """advertising sensors: BTHome v2 encrypted and plain, pvvx, from hci2's advertisements"""
    rig.check_central_alive()
    rig.steady("A", PERIPH_A_HCI)
    idle = cpu_share(rig, 10)
    sensor, times, sources = Sensor(rig), {}, {}
    try:
        restart_daemon(rig, "bthome_key %s = %s" % (sensor.addr, SENSOR_KEY))
        for fmt, profile, celsius in KEYED_FORMATS:
            times[fmt] = sensor.expect(fmt, profile, celsius)
        cost = cpu_share(rig, 10)       # one measurement a second from the sensor
        sensor.expect_refused(20.5)
        keyed = sensor.advertisement_status()
        if not keyed.get("errors") or keyed.get("scan_mode") != "active":
            raise Fail("status with the key, after plain BTHome: %s" % json.dumps(keyed))
        restart_daemon(rig)
        for fmt, profile, celsius in UNKEYED_FORMATS:
            times[fmt] = sensor.expect(fmt, profile, celsius)
        adverts = sensor.advertisement_status()
        if adverts.get("errors") or adverts.get("scan_mode") != "active":
            raise Fail("status without the key: %s" % json.dumps(adverts))
        # Issue 37: the same sensor through each advertisement source in turn (bluetoothd's
        # D-Bus signals, then the kernel's management socket), and what each costs blectld
        # and the system dbus-daemon per advertisement, over the same 20 s.
        for source in ("dbus", "mgmt"):
            restart_daemon(rig, "advert_source = %s" % source)
            times["pvvx/" + source] = sensor.expect("pvvx", "pvvx", 23.11 if source == "dbus" else 24.06)
            heard_mgmt = any(MGMT_LINE in line for line in rig.daemon.lines_since(0))
            if heard_mgmt != (source == "mgmt"):
                raise Fail("advert_source = %s: the log %s %r" % (source, "lacks" if source == "mgmt" else "has", MGMT_LINE))
            on = source_cost(rig, sensor, 20)
            if not on["advertisements"]:
                raise Fail("advert_source = %s: no advertisement counted in 20 s" % source)
            # The same 20 s without the sensor (thermometer A streams on): what is left of the
            # difference is the advertisements' (and the sensor's own re-registrations, on the bus).
            rig.stop_peripheral("S")
            sources[source] = {"sensor": on, "none": source_cost(rig, sensor, 20)}
        # GATT thermometer A kept streaming meanwhile.
        rig.steady("A", PERIPH_A_HCI)
    finally:
        rig.stop_peripheral("S")
        write_daemon_conf()
        if not rig.daemon.alive():
            rig.start_daemon()
    res["cpu"] = {"idle": idle, "sensor": cost}
    res["sources"] = sources
    per = {source: {who: round(1000 * (c["sensor"][who + "_cpu_s"] - c["none"][who + "_cpu_s"]
                                       * c["sensor"]["seconds"] / c["none"]["seconds"])
                            / c["sensor"]["advertisements"], 2)
                    for who in ("blectld", "dbus_daemon")} for source, c in sources.items()}
    res["sources_ms_per_advertisement"] = per
    log("advertisement sources (issue 37), ms of CPU per advertisement counted, net of the same time "
        "without the sensor: %s; raw: %s" % (json.dumps(per), json.dumps(sources)))
    res["detail"] = ("each format read %s s after it was on the air; plain BTHome refused "
                     "while the key was set (%d errors); CPU %% of a core (blectld, bluetoothd): "
                     "%s before, %s with the sensor at 1 Hz; lost packets %s, %s"
                     % (times, keyed.get("errors"), idle, cost, keyed.get("lost_packets"),
                        adverts.get("lost_packets")))


# ---------------------------------------------------------------- 14 MiBeacon and Inkbird
# Scenario 14 (issue 34; not in the default list): the sensor on hci2 sends an encrypted
# MiBeacon v5 (bind key MIBEACON_KEY, object 0x100D: tenths) and then an Inkbird IBS-TH1
# ("sps": the temperature in hundredths where bluetoothd reads the company id, so its
# ManufacturerData dictionary gains a key at each new temperature), then a Govee H5184 meat
# thermometer (0x1B36, four probes, two a frame). Every value blectld reports must be one
# sent, exactly (a probe's under its own number); a wrong or absent key must give errors,
# never a value.
MIBEACON_KEY = "814aac74c4f17b6c1581e1ab87816b99"      # the mock's (MiBeaconEncoder.mockKey)
WRONG_MIBEACON_KEY = "00112233445566778899aabbccddeeff"
# (°C, % humidity) the MiBeacon sends, in order; tenths both.
MIBEACON_VALUES = [(21.3, 48.7), (-4.6, 61.2), (23.9, 55.5)]
# °C the Inkbird sends, in order, humidity 55.5 %, battery 77 %: each a new company id, then
# back to the first one's (a key the dictionary already holds) and on.
INKBIRD_VALUES = [21.37, 22.81, -5.25, 21.37, 30.06]
# °C of the Govee H5184's four probes (two an advertisement: 1 and 2, then 3 and 4), step by
# step, each step until `read` shows all four; None: no probe plugged in (0xFFFF), which reads
# 0 °C as govee-ble shows it. No value is ever another probe's, so a value under the wrong
# probe number cannot pass; probes 2 and 3 keep a value across a step.
GOVEE_MEAT_STEPS = [(61.25, 54.5, 23.07, 71.93), (63.4, 54.5, 24.18, None), (65.02, 57.31, 24.18, 88.88)]
# The quantities besides the temperature a reading may carry (blectl's OtherQuantities).
OTHER_QUANTITIES = ("humidity", "battery", "pressure", "voltage", "co2", "dew_point")
NO_AUTH_LINE = "does not authenticate with the MiBeacon key"
NO_KEY_LINE = "no MiBeacon key is configured"


def expect_exact(rig, sensor, fmt, profile, want):
    """Seconds from the sensor sending `fmt` (values `want`) until `blectl read` returns
    exactly `want` (a dict of quantities); a reading of the profile with other values than
    the ones sent so far is a failure."""
    t, last = time.monotonic(), None
    while time.monotonic() - t < rig.args.recovery_limit:
        got = last = sensor.read()
        if isinstance(got, dict) and got.get("profile") == profile \
                and all(got.get(k) == v for k, v in want.items()):
            if not got.get("fresh") or not all(c in "0123456789abcdef" for c in got.get("raw", "x")):
                raise Fail("%s: fresh/raw wrong in %s" % (fmt, json.dumps(got)))
            return round(time.monotonic() - t, 2)
        rig.check_central_alive()
        time.sleep(0.5)
    raise Fail("%s: no reading %s %s from %s within %.0f s; last: %s"
               % (fmt, profile, want, sensor.addr, rig.args.recovery_limit, last))


def expect_error(rig, sensor, fmt, celsius, line):
    """An encrypted MiBeacon the daemon cannot open: `line` in its log, and `read` never the
    value sent; returns what `read` answered."""
    sensor.write(fmt, celsius)
    t = time.monotonic()
    while time.monotonic() - t < rig.args.recovery_limit:
        if any(line in l for l in rig.daemon.lines_since(t)):
            break
        time.sleep(0.5)
    else:
        raise Fail("%s %.1f °C: no %r in the daemon's log within %.0f s"
                   % (fmt, celsius, line, rig.args.recovery_limit))
    time.sleep(3)               # more frames, still refused
    got = sensor.read()
    if isinstance(got, dict) and "celsius" in got:
        raise Fail("%s (%s): read gave a value: %s" % (fmt, line, json.dumps(got)))
    return got


def govee_probe_value(celsius):
    """What a Govee meat thermometer's probe reads: 0 °C with none plugged in."""
    return 0.0 if celsius is None else celsius


def govee_raw_value(raw, probe):
    """The °C an H5184 frame (`raw`, hex) carries for `probe`, decoded here on its own: byte
    6 the pair (1: probes 1 and 2, 2: probes 3 and 4), the temperatures big-endian hundredths
    at 8 and 13, a negative one (no probe) 0; None when the frame does not carry that probe."""
    data = bytes.fromhex(raw)
    first = {1: 1, 2: 3}.get(data[6]) if len(data) == 17 else None
    if first is None or probe not in (first, first + 1):
        return None
    offset = 8 if probe == first else 13
    return max(0, int.from_bytes(data[offset:offset + 2], "big", signed=True)) / 100


def check_probe_rows(rows, sent, what):
    """`read`'s rows of the meat thermometer: each of probes 1-4 at most once, each a
    `govee-meat` reading of a value sent to that probe (the one its frame carries), fresh, no
    other quantity."""
    problems = []
    probes = [r.get("probe") for r in rows]
    if len(set(probes)) != len(probes):
        problems.append("a probe twice: %s" % probes)
    for r in rows:
        p = r.get("probe")
        if r.get("profile") != "govee-meat" or p not in sent:
            problems.append("not a probe's reading")
        elif r.get("celsius") not in sent[p]:
            problems.append("probe %s: %s °C never sent to it (sent %s)" % (p, r.get("celsius"), sorted(sent[p])))
        elif govee_raw_value(r.get("raw", ""), p) != r.get("celsius"):
            problems.append("probe %s: %s °C, its frame %s says %s"
                            % (p, r.get("celsius"), r.get("raw"), govee_raw_value(r.get("raw", ""), p)))
        if any(k in r for k in OTHER_QUANTITIES) or not r.get("fresh"):
            problems.append("probe %s: another quantity or not fresh" % p)
    if problems:
        raise Fail("%s: %s in %s" % (what, "; ".join(problems), json.dumps(rows)))


def expect_probes(rig, sensor, step, sent):
    """Seconds from the meat thermometer sending `step` (°C of probes 1-4) until `read`
    shows each probe's value exactly, as a reading of its own with its probe number. Every
    row before that must be a value sent to its probe (the step before's, until the pair's
    next frame): anything else fails at once. Two frames carry the four probes, so the
    limit is 5 s longer than one format's."""
    sensor.write("govee-meat " + " ".join("-" if c is None else str(c) for c in step),
                 govee_probe_value(step[0]))
    want = {i + 1: govee_probe_value(c) for i, c in enumerate(step)}
    for probe, celsius in want.items():
        sent[probe].add(celsius)
    t, last = time.monotonic(), None
    limit = rig.args.recovery_limit + 5
    while time.monotonic() - t < limit:
        rows = last = sensor.read_all()
        # Until the first frame is heard, the Inkbird's reading (no probe) is the device's.
        if isinstance(rows, list) and any(r.get("profile") == "govee-meat" for r in rows):
            check_probe_rows(rows, sent, "govee-meat %s" % (step,))
            if {r.get("probe"): r.get("celsius") for r in rows} == want:
                return round(time.monotonic() - t, 2)
        rig.check_central_alive()
        time.sleep(0.5)
    raise Fail("govee-meat: no reading of probes 1-4 = %s from %s within %.0f s; last: %s"
               % (want, sensor.addr, limit, json.dumps(last)))


def check_probe_stream(rig, sensor, since, sent):
    """Every reading of the sensor in `watch` from the meat thermometer's first on: a
    probe's, the value its frame carries for that probe and one sent to it, and each frame
    both its probes' readings. Returns (readings, frames, the largest spread of one frame's
    readings' `time` in ms)."""
    events = [e for _, e in rig.watcher.all(
        lambda e: e.get("type") == "reading" and str(e.get("address", "")).upper() == sensor.addr, since=since)]
    first = next((i for i, e in enumerate(events) if e.get("profile") == "govee-meat"), None)
    if first is None:
        raise Fail("watch: no govee-meat reading from %s" % sensor.addr)
    by_frame, times = collections.defaultdict(list), collections.defaultdict(list)
    for e in events[first:]:
        p, c = e.get("probe"), e.get("celsius")
        if e.get("profile") != "govee-meat" or p not in sent or c not in sent[p] \
                or govee_raw_value(e.get("raw", ""), p) != c or any(k in e for k in OTHER_QUANTITIES):
            raise Fail("watch: a reading of the meat thermometer that is no probe's value sent: %s" % json.dumps(e))
        by_frame[e.get("raw")].append(p)
        times[e.get("raw")].append(parse_time(e.get("time")))
    odd = {raw: probes for raw, probes in by_frame.items() if set(probes) not in ({1, 2}, {3, 4})}
    if odd:
        raise Fail("watch: frames whose readings are not both their probes: %s" % odd)
    spread = max(max(ts) - min(ts) for ts in times.values())
    return len(events) - first, len(by_frame), round(spread * 1000)


def sc14_sensors(rig, res):
    """an encrypted MiBeacon v5, an Inkbird (changing company id) and a Govee meat
    thermometer (four probes) from hci2"""
    rig.check_central_alive()
    sensor, times, t_wall = Sensor(rig), {}, time.time()
    sent = {"mibeacon": [], "inkbird": [], "govee-meat": []}
    probes_sent = {p: set() for p in (1, 2, 3, 4)}
    errors = {}
    try:
        restart_daemon(rig, "mibeacon_key %s = %s" % (sensor.addr, MIBEACON_KEY))
        for celsius, hum in MIBEACON_VALUES:
            sensor.send("mibeacon-encrypted %s" % hum, celsius)
            sent["mibeacon"].append((celsius, hum))
            times["mibeacon %s" % celsius] = expect_exact(
                rig, sensor, "mibeacon", "mibeacon", {"celsius": celsius, "humidity": hum})
        restart_daemon(rig, "mibeacon_key %s = %s" % (sensor.addr, WRONG_MIBEACON_KEY))
        errors["wrong key"] = expect_error(rig, sensor, "mibeacon-encrypted 40.0", 25.1, NO_AUTH_LINE)
        restart_daemon(rig)
        errors["no key"] = expect_error(rig, sensor, "mibeacon-encrypted 40.0", 26.2, NO_KEY_LINE)
        status = sensor.advertisement_status()
        if not status.get("errors"):
            raise Fail("status after MiBeacon frames without their key: no errors: %s" % json.dumps(status))
        for i, celsius in enumerate(INKBIRD_VALUES):
            sensor.write("inkbird", celsius)
            sent["inkbird"].append((celsius, 55.5))
            times["inkbird %d: %s" % (i + 1, celsius)] = expect_exact(
                rig, sensor, "inkbird", "inkbird", {"celsius": celsius, "humidity": 55.5, "battery": 77})
        # The meat thermometer: each probe a reading of its own, with its number.
        t_govee = time.monotonic()
        for i, step in enumerate(GOVEE_MEAT_STEPS):
            times["govee-meat %d: %s" % (i + 1, step)] = expect_probes(rig, sensor, step, probes_sent)
        sent["govee-meat"] = sorted((p, c) for p, cs in probes_sent.items() for c in cs)
        stream, frames, spread = check_probe_stream(rig, sensor, t_govee, probes_sent)
        # Every reading of the sensor in the history: a value sent, in its format, exactly.
        since, until = utc(t_wall - 5), utc(time.time() + 60)
        rc, readings, out, err = rig.cli("history", sensor.addr, "--since", since, "--until", until,
                                         "--json", timeout=60)
        if rc != 0 or not isinstance(readings, list):
            raise Fail("history --json: rc=%d %s %s" % (rc, out[:300], err[:300]))
        values = [r for r in readings if "celsius" in r]

        def key(r):
            """What was sent: (probe, °C) for the meat thermometer, (°C, %) else (a probe
            there is no value sent)."""
            if r.get("profile") == "govee-meat":
                return r.get("probe"), r.get("celsius")
            if "probe" in r:
                return "probe", r.get("probe")
            return r.get("celsius"), r.get("humidity")
        wrong = [r for r in values if key(r) not in sent.get(r.get("profile"), [])
                 or (r.get("profile") == "govee-meat" and (any(k in r for k in OTHER_QUANTITIES)
                     or govee_raw_value(r.get("raw", ""), r.get("probe")) != r.get("celsius")))]
        if wrong:
            raise Fail("history: %d readings with values never sent: %s" % (len(wrong), json.dumps(wrong[:5])))
        for c in (25.1, 26.2):
            if any(r.get("celsius") == c for r in values):
                raise Fail("history: the unreadable MiBeacon's %.1f °C was stored" % c)
        seen = {(r.get("profile"),) + key(r) for r in values}
        missing = [(p,) + v for p, vs in sent.items() for v in vs if (p,) + v not in seen]
        if missing:
            raise Fail("history: sent values never stored: %s" % missing)
        # The MiBeacon's 32-bit counters read (frame counter byte | 3-byte extension << 8).
        counters = [bytes.fromhex(r["raw"])[4] | int.from_bytes(bytes.fromhex(r["raw"])[-7:-4], "little") << 8
                    for r in values if r.get("profile") == "mibeacon"]
        rig.steady("A", PERIPH_A_HCI)
    finally:
        rig.stop_peripheral("S")
        write_daemon_conf()
        if not rig.daemon.alive():
            rig.start_daemon()
    res["detail"] = ("each value read exactly, %s s after it was sent; the wrong key read as %r, "
                     "no key as %r (%d errors in status); history: %d readings, each one sent "
                     "(%d of the meat thermometer's probes); watch: %d probe readings from %d frames, "
                     "each frame both its probes, their times at most %d ms apart; MiBeacon counters read %s"
                     % (times, errors["wrong key"], errors["no key"], status.get("errors"), len(values),
                        sum(r.get("profile") == "govee-meat" for r in values), stream, frames, spread,
                        ["0x%x" % c for c in counters]))


# ---------------------------------------------------------------- 8 silent controller
# Scenario 8's scan watchdog (scan_watchdog): short, yet longer than the kernel's LE
# discovery (10.24 s, which bluetoothd would start again, scanning again) and long enough
# for A (whose start takes up to 5 s under TCG) to advertise unheard through several of
# its 2 s re-registrations.
LADDER_PERIOD_S = 12
# The ladder's log lines (Sources/Central/Thermometer/ScanWatchdog.swift).
STEP_LINE = "nothing heard from any device in"
HEARD_LINE = "devices heard again after"
# What a step looks like on the bus: the daemon's calls, in order.
STEP_CALLS = {"restart_discovery": ("StopDiscovery", "StartDiscovery"),
              "power_cycle": ("Set Powered false", "Set Powered true")}
# The noise: an advertisement of the spacer controller (hci3) that the central hears once
# (btvirt reports it at its advertising enable): name "Noise", connectable like the spacer's.
NOISE_ADV = "020106" + "06094e6f697365"


def hci_command(hci, ogf, ocf, *params):
    """Sends one raw HCI command to a controller with hcitool (behind the kernel's
    management interface and bluetoothd); returns the status byte of its Command Complete."""
    argv = ["hcitool", "-i", hci, "cmd", "0x%02x" % ogf, "0x%04x" % ocf] + list(params)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    event = r.stdout.rpartition("> HCI Event: 0x0e")[2].split("\n")[1:2]
    if r.returncode != 0 or not event:
        raise RigError("`%s`: rc=%d %s %s" % (" ".join(argv), r.returncode, r.stdout, r.stderr))
    return int(event[0].split()[-1], 16)


def btmgmt(hci, *args):
    argv = ["btmgmt", "--index", hci[3:]] + list(args)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=15, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RigError("`%s`: rc=%d %s %s" % (" ".join(argv), r.returncode, r.stdout, r.stderr))


def central_call_kind(rig, m):
    """A daemon call as STEP_CALLS names it (Set of Adapter1.Powered with its value)."""
    if m.member == "Set" and m.arg(0) == ADAPTER and m.arg(1) == "Powered":
        return "Set Powered %s" % ("true" if m.arg(2)[1] else "false")
    return m.member


def silence_central(rig, t_noise, hci=CENTRAL_HCI):
    """The fault: LE Set Scan Enable (OGF 0x08, OCF 0x000c) = off, sent straight to hci0
    (or `hci`: scenario 13 silences one of two centrals).
    The kernel clears its scanning flag and cancels the end of its LE discovery (that
    Command Complete is handled as its own), but its discovery state, mgmt and bluetoothd
    stay "discovering": Discovering=true, nobody restarts the scan. Returns when it was sent.

    The kernel scans in 10.24 s stretches that bluetoothd starts again; between two, the
    controller is not scanning and answers Command Disallowed (0x0c): then it tries again."""
    while True:
        status = hci_command(hci, 0x08, 0x000c, "00", "00")
        t = time.monotonic()
        if t - t_noise > LADDER_PERIOD_S - 2:
            raise RigError("LE Set Scan Enable off on %s: status 0x%02x %.1f s after the last "
                           "sound, too late for a %d s watchdog"
                           % (hci, status, t - t_noise, LADDER_PERIOD_S))
        if status == 0:
            return t
        log("LE Set Scan Enable off on %s: status 0x%02x, again" % (hci, status))
        time.sleep(0.3)


def make_noise(rig):
    """Something heard: from now on devices are expected (an empty room is not silence).
    btvirt reports the advertisement to the controllers scanning when it is enabled: if
    hci0 was between two of the kernel's scans then, it is enabled again. Returns when
    BlueZ had the device on hci0."""
    for attempt in range(3):
        btmgmt(SPACER_HCI, "add-adv", "-c", "-d", NOISE_ADV, "1")
        end = time.monotonic() + 4
        while time.monotonic() < end:
            if rig.bz.central_view(rig.addr[SPACER_HCI])[0]:
                return time.monotonic()
            time.sleep(0.1)
        log("the noise advertisement was not heard on %s (attempt %d)" % (CENTRAL_HCI, attempt + 1))
        btmgmt(SPACER_HCI, "rm-adv", "1")
    raise RigError("%s never heard the noise advertisement of %s" % (CENTRAL_HCI, SPACER_HCI))


def sc8_silent_controller(rig, res):
    """silent controller: hci0 stops scanning behind bluetoothd's back; the ladder's first
    step (restart discovery) recovers"""
    silent_controller(rig, res, deaf_again=False)


def sc8p_deaf_again(rig, res):
    """silent controller that goes deaf again after the discovery restart: the ladder's
    second step (power cycle) recovers"""
    silent_controller(rig, res, deaf_again=True)


def silent_controller(rig, res, deaf_again):
    rig.steady("A", PERIPH_A_HCI)
    # A daemon that knows no thermometer and searches (discovery on, nothing else restarting
    # it), with a short scan watchdog; A gone from the air and from BlueZ. A starts again
    # now, its advertising held back until the controller is deaf (its start takes seconds
    # of python under TCG, which must not fall in the silence).
    rig.stop_daemon()
    rig.stop_peripheral("A")
    for hci in (PERIPH_A_HCI, SPACER_HCI):
        rig.bz.remove_device(CENTRAL_HCI, rig.addr[hci])
    try:
        rig.set_temp("A", 43.0)
        _, ready = rig.start_peripheral("A", PERIPH_A_HCI, extra=["--hold-advertising"])
        rig.wait_ready("A", ready, timeout=40)
        write_daemon_conf("scan_watchdog = %s" % rig.args.scan_watchdog)
        rig.start_daemon()
        end = time.monotonic() + 10
        while not rig.bz.adapters().get(CENTRAL_HCI, {}).get("Discovering"):
            if time.monotonic() > end:
                raise Fail("the daemon knows no thermometer but %s is not discovering" % CENTRAL_HCI)
            time.sleep(0.1)
        t_noise = make_noise(rig)
        fault = rig.mark("fault 8 silent-controller")
        t_fault = t_silent = silence_central(rig, t_noise)
        if deaf_again:
            # Nothing on the air when discovery restarts; the controller goes deaf again.
            btmgmt(SPACER_HCI, "rm-adv", "1")
            at_step = hcitrace.end()
            t_step = wait_step(rig, t_fault, 1, LADDER_PERIOD_S + 10)
            wait_rescan(rig, at_step)
            t_silent = silence_central(rig, t_step)
        trace_at = hcitrace.end()
        rig.periph["A"].send(signal.SIGUSR1)       # A on the air
        t_adv = time.monotonic()
        cure = "power_cycle" if deaf_again else "restart_discovery"
        check_ladder(rig, res, fault, t_fault, t_silent, t_adv, cure)
        check_silence(res, trace_at, "mgmt Set Powered" if deaf_again else "mgmt Stop Discovery")
    finally:
        # Whatever failed: A on the air, no noise, the default configuration, a daemon.
        rig.periph["A"].send(signal.SIGUSR1)
        subprocess.run(["btmgmt", "--index", SPACER_HCI[3:], "rm-adv", "1"], capture_output=True,
                       timeout=15, stdin=subprocess.DEVNULL)
        write_daemon_conf()
        if not rig.daemon.alive():
            rig.start_daemon()
    restart_daemon(rig)
    rig.steady("A", PERIPH_A_HCI, timeout=30)


def ladder_steps(rig, since):
    """When the daemon logged each ladder step since `since`."""
    return [t for t, line in list(rig.daemon.lines) if t >= since and STEP_LINE in line]


def wait_rescan(rig, offset, timeout=5):
    """Waits until the kernel enabled hci0's scanning again (the ladder's discovery restart)."""
    end = time.monotonic() + timeout
    while not hcitrace.scan_enabled(hcitrace.HCI_TRACE, offset, int(CENTRAL_HCI[3:])):
        if time.monotonic() > end:
            raise Fail("the ladder's discovery restart left %s not scanning for %d s (see the "
                       "daemon's StartDiscovery reply on the bus)" % (CENTRAL_HCI, timeout))
        time.sleep(0.1)


def wait_step(rig, since, n, timeout):
    """Waits for the daemon's n-th ladder step since `since`; returns when it was logged."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        steps = ladder_steps(rig, since)
        if len(steps) >= n:
            return steps[n - 1]
        rig.check_central_alive()
        time.sleep(0.1)
    raise Fail("no ladder step %d within %.0f s of the silence (scan_watchdog %s)"
               % (n, timeout, rig.args.scan_watchdog))


def check_silence(res, trace_at, ended_by):
    """The HCI trace from the (last) fault to the step that cured it: hci0 got no advertising
    report and the kernel reported no change of discovery, while A kept enabling its
    advertising; and the step is the one expected."""
    seen = hcitrace.silence(hcitrace.HCI_TRACE, trace_at, int(CENTRAL_HCI[3:]), int(PERIPH_A_HCI[3:]))
    if seen["ended_by"] != ended_by or seen["reports"] or seen["discovering_events"] \
            or not seen["peripheral_adv_enables"]:
        raise RigError("the HCI trace does not show a silent controller that the kernel went on "
                       "discovering with until the %s: %s" % (ended_by, seen))
    res["hci_trace"] = seen
    res["detail"] += ("; HCI trace until the %s: %s advertising reports on %s, %d mgmt "
                      "Discovering events, %d advertising enables of %s"
                      % (seen["ended_by"], seen["reports"], CENTRAL_HCI, seen["discovering_events"],
                         seen["peripheral_adv_enables"], PERIPH_A_HCI))


def check_ladder(rig, res, fault, t_fault, t_silent, t_adv, cure):
    """Readings return, by the ladder step `cure`, after a silence that was real (from
    `t_silent`, the last fault: bluetoothd says Discovering=true until the step)."""
    # the second step comes 2 periods after the last sound; then power on, scan, connect, read
    limit = 2 * LADDER_PERIOD_S + 15
    discovering = []
    new_raw = expected_raw(43.0, "F")
    while time.monotonic() < t_fault + limit:
        if not ladder_steps(rig, t_silent):
            discovering.append(bool(rig.bz.adapters().get(CENTRAL_HCI, {}).get("Discovering")))
        if rig.watcher.wait_for(rig.is_reading(PERIPH_A_HCI, new_raw), 0.3, since=t_fault):
            break
    if not all(discovering):
        raise RigError("%s stopped discovering during the silence (Discovering false %d of %d "
                       "times polled): the fault was not behind bluetoothd's back"
                       % (CENTRAL_HCI, discovering.count(False), len(discovering)))
    reading = rig.wait_new_reading("A", PERIPH_A_HCI, t_fault, limit, "after the silence")
    rc, st, out, err = rig.cli("status", "--json", timeout=15)
    ladder = (st or {}).get("scan_watchdog") if isinstance(st, dict) else None
    problems = []
    if not isinstance(ladder, dict):
        raise Fail("`status --json` has no scan_watchdog object: %r" % (out or err)[-300:])
    cured_by = ladder.get("last_recovered_by")
    if ladder.get("recoveries", 0) < 1 or cured_by != cure or ladder.get("silent"):
        problems.append("status scan_watchdog %s: want recoveries >= 1, silent false, "
                        "last_recovered_by %s" % (json.dumps(ladder), cure))
    healed = [(t, l) for t, l in list(rig.daemon.lines) if t >= t_fault and HEARD_LINE in l]
    if not ladder_steps(rig, t_fault) or not healed:
        problems.append("the log has no ladder step (%r) or no %r line" % (STEP_LINE, HEARD_LINE))
    # On the bus: the curing step's calls, then (only then) A heard on hci0.
    dev = rig.device_path(PERIPH_A_HCI)
    msgs = rig.bus_between(fault, rig.mark("check 8 silent-controller"))
    bluez = rig.bluez_names()
    added = [i for i, m in enumerate(msgs) if m.sender in bluez and m.member == "InterfacesAdded"
             and m.arg(0) == dev]
    calls = [(i, central_call_kind(rig, m)) for i, m in enumerate(msgs)
             if m.kind == "method call" and m.sender == rig.central_name
             and m.path == "/org/bluez/" + CENTRAL_HCI]
    want = STEP_CALLS[cure]
    seen = [k for i, k in calls if not added or i < added[0]]
    if not added:
        problems.append("BlueZ never added %s on %s" % (dev, CENTRAL_HCI))
    elif [k for k in seen if k in want][-len(want):] != list(want):
        problems.append("before A was heard the daemon called %s on the adapter, want %s last"
                        % (seen, " then ".join(want)))
    if problems:
        raise Fail("wrong recovery: " + "; ".join(problems))
    t_heard = healed[0][0]
    t_cure = max(t for t in ladder_steps(rig, t_fault) if t <= t_heard)
    res["recovery_s"] = round(reading, 2)
    res["cure_to_reading_s"] = round(t_fault + reading - t_cure, 2)
    res["steps_s"] = [round(t - t_fault, 2) for t in ladder_steps(rig, t_fault)]
    res["cured_by"] = cured_by
    res["detail"] = ("ladder steps at %s s; A on the air %.1f s unheard (Discovering true, "
                     "polled %d times); heard again after %s; first new reading %.2f s after "
                     "the fault, %.2f s after that step; calls before A was heard: %s"
                     % (res["steps_s"], t_heard - t_adv, len(discovering), cured_by, reading,
                        res["cure_to_reading_s"], " ".join(seen)))
    res["status_watchdog"] = ladder


# ---------------------------------------------------------------- 9 passive scanning
# The advertisement monitor blectld serves (BlueZService+AdvertisementMonitor.swift).
MONITOR_ROOT = "/org/blectl/advertisement_monitor/" + CENTRAL_HCI
MONITOR_MANAGER = "org.bluez.AdvertisementMonitorManager1"
# Scenario 9's sensor readings (format, profile, °C), each read from `blectl read`.
PASSIVE_FORMATS = [("bthome", "bthome", 24.68), ("pvvx", "pvvx", 25.79)]
PASSIVE_LINE = "advertisements: passive scanning"
ACTIVATED_LINE = "the advertisement monitor is active"


def stop_scenario_daemon(rig):
    """Ends a scenario with a peripheral S and its own configuration: S stopped, the
    default configuration written back, the watcher and blectld stopped."""
    rig.stop_peripheral("S")
    write_daemon_conf()
    if rig.watcher:
        rig.watcher.stop()
        rig.watcher = None
    if rig.daemon.alive():
        rig.daemon.stop(signal.SIGTERM, 10)


def sc9_passive(rig, res):
    """passive scanning: bluetoothd --experimental, scan_mode = passive, gatt_thermometers =
    no; the sensor on hci2 is read through the daemon's AdvertisementMonitor1, hci0 never
    scans actively, nothing connects (A advertises on hci1 all along)"""
    rig.steady("A", PERIPH_A_HCI)
    # Everything down: the daemon, A, and what hci0 remembers (a device bluetoothd kept could
    # be connected by the kernel's auto-connect, which is not the daemon's doing); bluetoothd
    # again with --experimental.
    rig.stop_daemon()
    rig.stop_peripheral("A")
    for hci in (PERIPH_A_HCI, PERIPH_B_HCI, SPACER_HCI):
        rig.bz.remove_device(CENTRAL_HCI, rig.addr[hci])
    sensor = Sensor(rig)
    try:
        rc, clean = rig.bluetoothd.stop(signal.SIGTERM, 10)
        if not clean:
            raise RigError("bluetoothd did not exit within 10 s of SIGTERM")
        rig.start_bluetoothd(experimental=True)
        if MONITOR_MANAGER not in rig.bz.objects().get(dbus.ObjectPath("/org/bluez/" + CENTRAL_HCI), {}):
            raise RigError("bluetoothd --experimental: %s offers no %s" % (CENTRAL_HCI, MONITOR_MANAGER))
        # From here on, hci0 is the daemon's alone. A (connectable, named "Thermometer") and
        # the sensor start beside the daemon (python's start-up takes seconds under TCG).
        first = rig.mark("start 9 passive")
        trace_at = hcitrace.end()
        _, ready_a = rig.start_peripheral("A", PERIPH_A_HCI)
        fmt, _, celsius = PASSIVE_FORMATS[0]
        sensor.write(fmt, celsius)
        ready_s = sensor.launch()
        write_daemon_conf("scan_mode = passive", "gatt_thermometers = no")
        rig.start_daemon()
        t_up = time.monotonic()
        end = t_up + rig.args.recovery_limit
        while not [l for l in rig.daemon.lines_since(rig.daemon.t_start) if ACTIVATED_LINE in l]:
            if time.monotonic() > end:
                raise Fail("no %r in the log within %.0f s of the daemon's start (%s)" % (
                    ACTIVATED_LINE, rig.args.recovery_limit,
                    [l for l in rig.daemon.lines_since(rig.daemon.t_start) if "scanning" in l][-2:]))
            rig.check_central_alive()
            time.sleep(0.1)
        res["monitor_active_s"] = round(time.monotonic() - t_up, 2)
        rig.wait_ready("A", ready_a)
        rig.wait_ready("S", ready_s)
        times = {}
        for fmt, profile, celsius in PASSIVE_FORMATS:
            times[fmt] = sensor.expect(fmt, profile, celsius)
        adverts = sensor.advertisement_status()
        if adverts.get("scan_mode") != "passive" or adverts.get("errors"):
            raise Fail("status --json: advertisements %s, want scan_mode passive, no errors"
                       % json.dumps(adverts))
        check_passive(rig, res, first, trace_at)
    finally:
        # The suite's bluetoothd (without --experimental), A, the default configuration.
        stop_scenario_daemon(rig)
        rig.stop_peripheral("A")
        if rig.bluetoothd.alive():
            rig.bluetoothd.stop(signal.SIGTERM, 10)
        rig.start_bluetoothd()
        _, ready = rig.start_peripheral("A", PERIPH_A_HCI)
        rig.start_daemon()
        rig.wait_ready("A", ready)
    rig.steady("A", PERIPH_A_HCI, timeout=30)
    res["detail"] = ("monitor active %.2f s after the daemon's socket answered; each format read %s s "
                     "after it was on the air; %s" % (res["monitor_active_s"], times, res.pop("how")))


def check_passive(rig, res, first, trace_at):
    """How the readings came: on the bus the daemon's RegisterMonitor and bluetoothd's Activate,
    no StartDiscovery, no Connect, hci0 never Discovering, no device connected; in the HCI
    trace hci0 set up for passive scanning only, no discovery started, no connection made."""
    msgs = rig.bus_between(first, rig.mark("check 9 passive"))
    bluez = rig.bluez_names()
    adapter = "/org/bluez/" + CENTRAL_HCI
    problems = []
    registered = rig.central_calls(msgs, "RegisterMonitor", lambda p: p == adapter)
    activated = [m for m in msgs if m.kind == "method call" and m.sender in bluez and m.member == "Activate"
                 and m.destination == rig.central_name and m.path.startswith(MONITOR_ROOT + "/")]
    if not registered:
        problems.append("the daemon never called RegisterMonitor on %s" % adapter)
    if not activated:
        problems.append("bluetoothd never called Activate on the daemon's monitor")
    discovery = rig.central_calls(msgs, "StartDiscovery")
    if discovery:
        problems.append("the daemon called StartDiscovery %d time(s)" % len(discovery))
    connects = rig.central_calls(msgs, "Connect")
    if connects:
        problems.append("the daemon called Connect on %s" % sorted({m.path for m in connects}))
    discovering = [m for m in msgs if m.sender in bluez and m.member == "PropertiesChanged"
                   and m.path == adapter and ("Discovering", "b", True) in busmon.props(m.args[1])]
    if discovering:
        problems.append("BlueZ said %s Discovering=true %d time(s)" % (CENTRAL_HCI, len(discovering)))
    connected = sorted({m.path for m in msgs if m.sender in bluez and m.member == "PropertiesChanged"
                        and m.path.startswith(adapter + "/dev_")
                        and ("Connected", "b", True) in busmon.props(m.args[1])})
    if connected:
        problems.append("BlueZ said Connected=true for %s" % connected)
    seen = hcitrace.scanning(hcitrace.HCI_TRACE, trace_at, int(CENTRAL_HCI[3:]))
    if 1 in seen["scan_types"]:
        problems.append("HCI trace: %s was set up for active scanning (scan types %s)"
                        % (CENTRAL_HCI, seen["scan_types"]))
    if seen["start_discovery"] or seen["discovering_on"]:
        problems.append("HCI trace: %d mgmt Start Discovery, %d Discovering events on %s"
                        % (seen["start_discovery"], seen["discovering_on"], CENTRAL_HCI))
    if seen["create_connection"]:
        problems.append("HCI trace: %d LE Create Connection on %s" % (seen["create_connection"], CENTRAL_HCI))
    if problems:
        raise Fail("not passive: " + "; ".join(problems))
    if not seen["scan_types"] or not seen["scan_enables"] or not seen["reports"]:
        raise RigError("the HCI trace shows no passive scanning on %s, yet the readings came: %s"
                       % (CENTRAL_HCI, seen))
    res["hci_trace"] = seen
    res["how"] = ("RegisterMonitor, Activate; no StartDiscovery, no Connect, no Discovering=true "
                  "on the bus; HCI trace of %s: scan types %s (0 = passive), %d scan enables, "
                  "%d advertising reports, no mgmt discovery, no LE Create Connection"
                  % (CENTRAL_HCI, sorted(set(seen["scan_types"])), seen["scan_enables"],
                     seen["reports"]))

# ---------------------------------------------------------------- 10 the sensor's memory
# Scenario 10 (not in the default list: `make e2e-memory`): the pvvx sensor on hci2 records
# every --memory-record-s into its memory (peripheral/pvvx_memory.py); the daemon is stopped
# for --memory-outage-s, then (separately) hci0 is powered off as long; after each, the
# history must hold a reading for every recording interval of the outage, from the sensor's
# memory, at the sensor's times, with no two readings of the device in one minute.
MEMORY_CONF = ["sensor_memory_after = 1m", "sensor_memory_interval = 10s", "history_commit_interval = 1s"]
RECORD_LOG = RUN + "/pvvx-records.jsonl"
STA_UNSYNC, TIME_ERROR = 0x0040, 5


class Timex(ctypes.Structure):
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("constant", ctypes.c_long), ("precision", ctypes.c_long), ("tolerance", ctypes.c_long),
                ("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long), ("tick", ctypes.c_long),
                ("ppsfreq", ctypes.c_long), ("jitter", ctypes.c_long), ("shift", ctypes.c_int),
                ("stabil", ctypes.c_long), ("jitcnt", ctypes.c_long), ("calcnt", ctypes.c_long),
                ("errcnt", ctypes.c_long), ("stbcnt", ctypes.c_long), ("tai", ctypes.c_int),
                ("pad", ctypes.c_int * 11)]


def adjtimex(modes=0, **fields):
    """adjtimex(2): (synchronised as blectld judges it, status bits, return value)."""
    libc = ctypes.CDLL(None, use_errno=True)
    tx = Timex(modes=modes, **fields)
    rc = libc.adjtimex(ctypes.byref(tx))
    if rc < 0:
        raise RigError("adjtimex: errno %d" % ctypes.get_errno())
    return rc != TIME_ERROR and not tx.status & STA_UNSYNC, tx.status, rc


def declare_clock_synchronized():
    """What an NTP client does once it trusts the clock: STA_UNSYNC off, the error bounds
    small (ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR). The guest's clock is the host's."""
    adjtimex(0x0010 | 0x0004 | 0x0008, status=0, maxerror=100000, esterror=0)
    return adjtimex()


def utc(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class MemorySensor:
    """The pvvx sensor with a memory and a clock on hci2 (peripheral/pvvx_memory.py)."""

    def __init__(self, rig, record_s):
        self.rig, self.record_s = rig, record_s
        rig.temp_file.setdefault("S", os.path.join(RUN, "temp-S"))
        rig.set_temp("S", 20.0)
        self.addr = rig.addr[PERIPH_B_HCI].upper()
        if os.path.exists(RECORD_LOG):
            os.unlink(RECORD_LOG)

    def launch(self):
        _, ready = self.rig.start_peripheral(
            "S", PERIPH_B_HCI, readvertise=2,
            extra=["--memory-sensor", "--record-interval", str(self.record_s),
                   "--clock-offset", str(self.rig.args.memory_clock_offset), "--record-log", RECORD_LOG])
        self.rig.wait_ready("S", ready)

    def records(self):
        with open(RECORD_LOG) as f:
            return [json.loads(l) for l in f if l.strip()]

    def log_lines(self, since_mono):
        return sensor_log_lines(self.rig, since_mono)

    def wait_live(self, timeout):
        """A fresh pvvx reading of the sensor through `read`."""
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            rc, obj, out, err = self.rig.cli("read", self.addr, "--json", "--timeout", "5", timeout=20)
            last = obj[0] if rc == 0 and isinstance(obj, list) and obj else (out.strip() or err.strip())
            if isinstance(last, dict) and last.get("profile") == "pvvx" and last.get("fresh"):
                return last
            self.rig.check_central_alive()
            time.sleep(1)
        raise Fail("no live pvvx reading of %s within %.0f s; last: %s" % (self.addr, timeout, last))

    def memory_status(self):
        _, status, _, _ = self.rig.cli("status", "--json")
        for entry in (status or {}).get("sensor_memory") or []:
            if str(entry.get("address", "")).upper() == self.addr:
                return entry
        return None

    def wait_download(self, downloads, timeout):
        end = time.monotonic() + timeout
        entry = None
        while time.monotonic() < end:
            entry = self.memory_status()
            if entry and entry.get("downloads", 0) >= downloads and entry.get("last_result"):
                return entry
            self.rig.check_central_alive()
            time.sleep(2)
        raise Fail("no memory download #%d of %s within %.0f s; status: %s"
                   % (downloads, self.addr, timeout, json.dumps(entry)))


def sensor_log_lines(rig, since_mono):
    """Peripheral S's log lines with mono= at or after since_mono: (mono, line)."""
    out = []
    with open(os.path.join(rig.out, "peripheral-S.log")) as f:
        for line in f:
            m = re.search(r"mono=([0-9.]+)", line)
            if m and float(m.group(1)) >= since_mono:
                out.append((float(m.group(1)), line.strip()))
    return out


def memory_outage(rig, sensor, kind, res):
    """One outage (`stop`: the daemon; `power`: hci0) of --memory-outage-s; returns its checks."""
    span, R = rig.args.memory_outage_s, sensor.record_s
    sensor.wait_live(30)
    time.sleep(3)                                   # live readings stored before the outage
    n_before = (sensor.memory_status() or {}).get("downloads", 0)
    t0_wall = time.time()
    if kind == "stop":
        rig.stop_daemon()
        time.sleep(span)
        rig.start_daemon()
    else:
        btmgmt_power(CENTRAL_HCI, "off")
        time.sleep(span)
        btmgmt_power(CENTRAL_HCI, "on")
    t1_wall, t1_mono = time.time(), time.monotonic()
    log("memory %s: outage of %.0f s over, waiting for the download" % (kind, t1_wall - t0_wall))
    entry = sensor.wait_download(n_before + 1, 90)
    t_done = time.time()
    # Up to 10 minutes ahead: a memory reading placed in the future must show too.
    since, until = utc(t0_wall - 2 * 60), utc(t_done + 600)
    addr = sensor.addr
    rc, readings, out, err = rig.cli("history", addr, "--since", since, "--until", until, "--json", timeout=60)
    if rc != 0 or not isinstance(readings, list):
        raise Fail("history --json: rc=%d %s %s" % (rc, out[:300], err[:300]))
    readings = [r for r in readings if r.get("type", "reading") == "reading" and "celsius" in r]
    rc_csv, _, csv_out, _ = rig.cli("history", addr, "--since", since, "--until", until, "--csv", timeout=60)
    rc_txt, _, txt_out, _ = rig.cli("history", addr, "--since", since, "--until", until, timeout=60)
    problems = []
    reason = "gateway stopped" if kind == "stop" else "adapter down"
    live = sorted(parse_time(r["time"]) for r in readings if r.get("source", "live") == "live")
    memory = [r for r in readings if r.get("source") == "memory"]     # the whole range's (CSV)
    before = [t for t in live if t < t0_wall + 1]
    after = [t for t in live if t > t1_wall - 1]
    if not before or not after:
        raise Fail("history --json: no live reading before (%d) or after (%d) the outage"
                   % (len(before), len(after)))
    l0, l1 = before[-1], after[0]
    # The ground truth: what the sensor recorded between the last live reading and the next.
    recs = [r for r in sensor.records() if l0 < r["wall"] < l1]
    buckets = {}
    for r in readings:
        buckets.setdefault(int(parse_time(r["time"]) // 60), []).append(r)
    for minute, rs in sorted(buckets.items()):
        if any(r.get("source") == "memory" for r in rs) and len(rs) > 1:
            problems.append("minute %s has %d readings, one from memory: %s" % (
                utc(minute * 60), len(rs), [(r["time"], r.get("source")) for r in rs]))
    expected, matched = 0, set()
    for rec in recs:
        rs = buckets.get(int(rec["wall"] // 60), [])
        if any(r.get("source", "live") == "live" for r in rs):
            continue                                # the edge's live reading keeps its minute
        expected += 1
        hit = [r for r in rs if r.get("source") == "memory"
               and abs(parse_time(r["time"]) - rec["wall"]) <= R / 2
               and abs(r["celsius"] - rec["celsius"]) < 0.006
               and abs(r.get("humidity", -1) - rec["humidity"]) < 0.006
               and abs(r.get("voltage", -1) - rec["mv"] / 1000) < 0.0006]
        if not hit:
            problems.append("record #%d (%s, %.2f °C) has no memory reading: its minute holds %s" % (
                rec["n"], utc(rec["wall"]), rec["celsius"],
                [(r["time"], r.get("source"), r.get("celsius")) for r in rs]))
        else:
            matched.add(hit[0]["seq"])
            res.setdefault("time_errors_s", []).append(round(parse_time(hit[0]["time"]) - rec["wall"], 1))
    # Every memory reading of the range (this outage's, the earlier one's, any placed after
    # it) must be a record at that record's time, and no record may come back twice.
    all_recs = sensor.records()
    by_values = {(rec["celsius"], rec["humidity"]): rec for rec in all_recs}
    seen = {}
    for r in memory:
        rec = by_values.get((round(r["celsius"], 2), round(r.get("humidity", -1), 2)))
        if rec is None or abs(parse_time(r["time"]) - rec["wall"]) > R / 2:
            problems.append("memory reading #%d at %s (%.2f °C, %.2f %%) is %s" % (
                r["seq"], r["time"], r["celsius"], r.get("humidity", -1),
                "no record's values" if rec is None else "record #%d, made at %s (%+.0f s)" % (
                    rec["n"], utc(rec["wall"]), parse_time(r["time"]) - rec["wall"])))
        elif rec["n"] in seen:
            problems.append("record #%d stored twice from memory: #%d and #%d" % (rec["n"], seen[rec["n"]], r["seq"]))
        if rec is not None:
            seen.setdefault(rec["n"], r["seq"])
    future = [r for r in readings if parse_time(r["time"]) > time.time() + 5]
    if future:
        problems.append("readings in the future: %s" % [(r["time"], r.get("source")) for r in future])
    if expected < max(1, int(span // R) - 1):
        problems.append("only %d recording intervals to check in an outage of %.0f s (R %.0f s)"
                        % (expected, span, R))
    # CSV: the same readings, `source` memory on the same ones.
    csv_memory = [row for row in csv.DictReader(csv_out.splitlines()) if row.get("source") == "memory"]
    if rc_csv != 0 or sorted(int(row["seq"]) for row in csv_memory) != sorted(r["seq"] for r in memory):
        problems.append("history --csv: rc=%d, memory rows %s, JSON's %s" % (
            rc_csv, sorted(int(row["seq"]) for row in csv_memory), sorted(r["seq"] for r in memory)))
    # The gap: on stderr beside JSON, in the table for a person.
    if not re.search(r"no readings from .* to .*: %s" % reason, err):
        problems.append("history --json: no gap %r on stderr (%r)" % (reason, err[-300:]))
    if rc_txt != 0 or not re.search(r"-- no readings from .* to .*: %s" % reason, txt_out):
        problems.append("history (text): no `-- no readings from … : %s` line" % reason)
    if entry.get("last_result") != "finished" or entry.get("stored", 0) < expected or entry.get("rejected"):
        problems.append("status sensor_memory: %s" % json.dumps(entry))
    # Cost: the daemon's connect to the sensor's StartNotify (connect, discovery,
    # subscription), records per second as the sensor sent them, how long the daemon held it.
    t_connect = [t for t, l in list(rig.daemon.lines) if "connecting to read its memory" in l and t >= t1_mono - 5]
    sent = sensor.log_lines(t_connect[0] if t_connect else t1_mono)
    notify = [t for t, l in sent if "StartNotify(0x1F1F)" in l]
    dl = [re.search(r"(\d+) records sent in ([0-9.]+) s", l) for _, l in sent if "records sent" in l]
    cost = {"connect_s": round(notify[0] - t_connect[0], 2) if notify and t_connect else None,
            "records": int(dl[0].group(1)) if dl else None,
            "download_s": float(dl[0].group(2)) if dl else None,
            "held_s": entry.get("connected_seconds"), "stored": entry.get("stored"),
            "duplicates": entry.get("duplicates"), "clock_result": entry.get("clock_result"),
            "clock_drift_s": entry.get("clock_drift_seconds")}
    check = {"outage_s": round(t1_wall - t0_wall, 1), "live_edges": [utc(l0), utc(l1)], "records": len(recs),
             "expected_memory": expected,
             "memory_readings": len([r for r in memory if l0 < parse_time(r["time"]) < l1]),
             "download_after_s": round(t_done - t1_wall, 1), "cost": cost, "problems": problems}
    log("memory %s: %s" % (kind, json.dumps(check)))
    return check


def memory_sensor_alone(rig):
    """hci0 for the daemon and a memory sensor alone: A stopped and forgotten (btvirt's
    handles: a second link of hci0 would not reach hci2, see spacer_link)."""
    rig.stop_daemon()
    rig.stop_peripheral("A")
    for hci in (PERIPH_A_HCI, PERIPH_B_HCI, SPACER_HCI):
        rig.bz.remove_device(CENTRAL_HCI, rig.addr[hci])


def memory_sensor_gone(rig):
    """Back to the suite's rig after a memory scenario: the sensor stopped and forgotten, A
    advertising, the daemon with the default configuration."""
    stop_scenario_daemon(rig)
    rig.bz.remove_device(CENTRAL_HCI, rig.addr[PERIPH_B_HCI])
    _, ready = rig.start_peripheral("A", PERIPH_A_HCI)
    rig.start_daemon()
    rig.wait_ready("A", ready)


def sc10_memory(rig, res):
    """the sensor's memory: a pvvx sensor recording every R s; the daemon stopped, then hci0
    powered off, each for --memory-outage-s; the history filled from the sensor's memory"""
    R = rig.args.memory_record_s
    synced0 = adjtimex()
    res["clock_at_start"] = {"synchronized": synced0[0], "status": hex(synced0[1]), "adjtimex": synced0[2]}
    memory_sensor_alone(rig)
    sensor = MemorySensor(rig, R)
    checks = {}
    try:
        sensor.launch()
        write_daemon_conf(*MEMORY_CONF)
        rig.start_daemon()
        sensor.wait_live(60)
        # Live readings stored before the first outage, a record or two in the memory.
        time.sleep(max(5, R * 1.2))
        if rig.args.memory_clock == "synced" and not synced0[0]:
            res["clock_declared"] = declare_clock_synchronized()[0]
        checks["stop"] = memory_outage(rig, sensor, "stop", res)
        checks["power"] = memory_outage(rig, sensor, "power", res)
    finally:
        memory_sensor_gone(rig)
    res["checks"] = checks
    synced = adjtimex()[0]
    want_clock = "set" if synced else "gateway-unsynchronized"
    problems = ["%s: %s" % (k, "; ".join(c["problems"])) for k, c in checks.items() if c["problems"]]
    clock = checks["stop"]["cost"]["clock_result"]
    if clock != want_clock:
        problems.append("clock_result after the restart %r, want %r (guest clock synchronised: %s)"
                        % (clock, want_clock, synced))
    res["detail"] = "; ".join(
        "%s: outage %.0f s, %d records, %d from memory (%d expected), download done %.1f s after, cost %s"
        % (k, c["outage_s"], c["records"], c["memory_readings"], c["expected_memory"], c["download_after_s"],
           json.dumps(c["cost"])) for k, c in checks.items())
    res["detail"] += "; guest clock at start %s%s; time errors %s" % (
        res["clock_at_start"], ", declared synchronised by the rig" if "clock_declared" in res else "",
        res.get("time_errors_s"))
    rig.steady("A", PERIPH_A_HCI, timeout=30)
    if problems:
        raise Fail("; ".join(problems) + " — " + res["detail"])



# ---------------------------------------------------------------- 10s Xiaomi stock memory
# Scenario 10s (make e2e-memory, after 10): a Xiaomi sensor with its stock firmware on hci2
# (peripheral/xiaomi_memory.py), a LYWSD03MMC, then a LYWSD02: its encrypted MiBeacon, two
# days of hourly records in its memory, its clock --memory-clock-offset s off. Hourly records
# leave no outage to wait for in a rig run: each model's history starts empty (the state
# directory set aside), `blectl memory ADDRESS` asks for the look-back (30 days), and then
# again for the same range.
STOCK_RECORD_LOG = RUN + "/stock-records.jsonl"
STOCK_HOURS = 48
STOCK_MODELS = {"lywsd03mmc": "LYWSD03MMC", "lywsd02": "LYWSD02"}
STATE_DIR = RUN + "/state"


def sc10s_stock_memory(rig, res):
    """the Xiaomi stock firmware's memory and clock (a LYWSD03MMC, then a LYWSD02): its
    hourly records read by `blectl memory` once each, at their times, the clock set first;
    asked again, nothing stored twice"""
    if not adjtimex()[0]:
        res["clock_declared"] = declare_clock_synchronized()[0]
    memory_sensor_alone(rig)
    sensor = Sensor(rig)
    checks = {}
    aside = STATE_DIR + ".before-10s"
    os.rename(STATE_DIR, aside)
    try:
        for model in STOCK_MODELS:
            checks[model] = stock_download(rig, sensor, model)
        checks["gatt_live"] = stock_gatt_live(rig, sensor)
    finally:
        memory_sensor_gone(rig)
        rig.stop_daemon()
        shutil.rmtree(STATE_DIR, ignore_errors=True)
        os.rename(aside, STATE_DIR)
        rig.start_daemon()
    res["checks"] = checks
    problems = ["%s: %s" % (m, "; ".join(c["problems"])) for m, c in checks.items() if c["problems"]]
    res["detail"] = "; ".join("%s: %d records, %d stored, cost %s" % (
        m, c["records"], c["stored"], json.dumps(c["cost"])) for m, c in checks.items() if m in STOCK_MODELS)
    res["detail"] += "; gatt_live: %s" % json.dumps(checks["gatt_live"])
    rig.steady("A", PERIPH_A_HCI, timeout=30)
    if problems:
        raise Fail("; ".join(problems) + " — " + res["detail"])


def stock_download(rig, sensor, model):
    """One model: a fresh history, the sensor heard, two downloads; returns the checks."""
    rig.stop_daemon()
    shutil.rmtree(STATE_DIR, ignore_errors=True)
    rig.stop_peripheral("S")
    write_daemon_conf(*MEMORY_CONF, "mibeacon_key %s = %s" % (sensor.addr, MIBEACON_KEY))
    sensor.write("mibeacon-encrypted 55.5", 23.4)
    _, ready = rig.start_peripheral("S", PERIPH_B_HCI, readvertise=1, extra=[
        "--sensor", sensor.format_file, "--mibeacon-key", MIBEACON_KEY, "--stock-memory-sensor", model,
        "--stock-hours", str(STOCK_HOURS), "--clock-offset", str(rig.args.memory_clock_offset),
        "--record-log", STOCK_RECORD_LOG])
    rig.wait_ready("S", ready, timeout=40)
    rig.start_daemon()
    live = stock_wait_live(rig, sensor, STOCK_MODELS[model], 60)
    t_ask, w_first = time.monotonic(), time.time()
    first = stock_memory_row(rig, sensor)
    second = stock_memory_row(rig, sensor)
    with open(STOCK_RECORD_LOG) as f:
        recs = [json.loads(l) for l in f if l.strip()]
    rc, readings, out, err = rig.cli("history", sensor.addr, "--since", utc(recs[0]["wall"] - 3600),
                                     "--until", utc(time.time() + 600), "--json", timeout=60)
    if rc != 0 or not isinstance(readings, list):
        raise Fail("history --json: rc=%d %s %s" % (rc, out[:300], err[:300]))
    memory = [r for r in readings if r.get("source") == "memory"]
    # The rule: a record whose minute holds a live reading is dropped (its wall minute is the
    # clock offset's, :55 with 300 s; the sensor started then has one).
    live_minutes = {int(parse_time(r["time"]) // 60) for r in readings if r.get("source", "live") == "live"}
    recs = [rec for rec in recs if int(rec["wall"] // 60) not in live_minutes]
    # a record made at a whole hour once the first download began is the second's to store
    late = len([rec for rec in recs if rec["wall"] >= w_first])
    problems = stock_problems(rig, recs, memory, first, second, late)
    cost = stock_cost(rig, t_ask, first)
    check = {"live": {k: live.get(k) for k in ("celsius", "model", "profile")}, "records": len(recs),
             "stored": first.get("stored"), "second": {k: second.get(k) for k in ("stored", "duplicates")},
             "cost": cost, "problems": problems}
    log("stock memory %s: %s" % (model, json.dumps(check)))
    return check


def stock_gatt_live(rig, sensor):
    """`gatt_live ADDRESS = yes`, no bind key: the sensor (the LYWSD02 left running) followed
    over GATT, its live value `ebe0ccc1` read and notified (profile xiaomi-gatt)."""
    restart_daemon(rig, *MEMORY_CONF, "gatt_live %s = yes" % sensor.addr)
    t0 = time.monotonic()
    end, rows, first = t0 + 60, None, None
    while time.monotonic() < end:
        rows = sensor.read_all()
        live = [r for r in rows if isinstance(r, dict) and r.get("profile") == "xiaomi-gatt" and r.get("fresh")] \
            if isinstance(rows, list) else []
        if live and first is None:
            first = (time.monotonic() - t0, live[0])
        elif live and live[0].get("time") != first[1].get("time"):
            break                               # a later value: the notifications flow
        rig.check_central_alive()
        time.sleep(1)
    problems = []
    if first is None:
        problems.append("no xiaomi-gatt reading within 60 s; read: %s" % rows)
    else:
        got = live[0] if live else first[1]
        if abs(got.get("celsius", 0) - 23.4) > 0.006 or got.get("humidity") != 56:
            problems.append("the live value read %s °C, %s %%, want 23.4 and 56" % (got.get("celsius"), got.get("humidity")))
        if not live or live[0].get("time") == first[1].get("time"):
            problems.append("no second value within 60 s (notifications of ebe0ccc1)")
    # The link down before the sensor goes: bluetoothd 5.66 died (general protection fault)
    # when the sensor's application went away under a subscribed link of the same bluetoothd.
    rig.stop_daemon()
    return {"first_s": round(first[0], 2) if first else None, "problems": problems}


def stock_wait_live(rig, sensor, model, timeout):
    """A fresh MiBeacon reading of the sensor naming `model`."""
    end, last = time.monotonic() + timeout, None
    while time.monotonic() < end:
        last = sensor.read()
        if isinstance(last, dict) and last.get("profile") == "mibeacon" and last.get("fresh"):
            if last.get("model") != model:
                raise Fail("the sensor's reading names the model %r, want %r: %s" % (last.get("model"), model, last))
            return last
        rig.check_central_alive()
        time.sleep(1)
    raise Fail("no live MiBeacon reading of %s within %.0f s; last: %s" % (sensor.addr, timeout, last))


def stock_memory_row(rig, sensor):
    """`blectl memory ADDRESS`: a download now, waited for; its row."""
    rc, row, out, err = rig.cli("memory", sensor.addr, "--timeout", "120", "--json", timeout=150)
    row = row[0] if isinstance(row, list) and row else row
    if rc != 0 or not isinstance(row, dict):
        raise Fail("blectl memory %s: rc=%d %s %s" % (sensor.addr, rc, out[:300], err[:300]))
    return row


def stock_problems(rig, recs, memory, first, second, late):
    """Every record one memory reading at its wall time with its midpoints; the clock set;
    the second download storing nothing."""
    problems = []
    by_minute = collections.defaultdict(list)
    for r in memory:
        by_minute[int(parse_time(r["time"]) // 60)].append(r)
    for minute, rs in sorted(by_minute.items()):
        if len(rs) > 1:
            problems.append("minute %s has %d memory readings" % (utc(minute * 60), len(rs)))
    for rec in recs:
        hit = [r for r in memory if abs(parse_time(r["time"]) - rec["wall"]) <= 2
               and abs(r["celsius"] - rec["celsius"]) < 0.006 and abs(r.get("humidity", -1) - rec["humidity"]) < 0.006]
        if len(hit) != 1:
            near = [(r["time"], r["celsius"], r.get("humidity")) for r in memory
                    if abs(parse_time(r["time"]) - rec["wall"]) < 1800]
            problems.append("record index %d (%s, %.2f °C, %.1f %%): %d memory readings; near it %s"
                            % (rec["index"], utc(rec["wall"]), rec["celsius"], rec["humidity"], len(hit), near))
    if len(memory) != len(recs):
        problems.append("%d memory readings for %d records" % (len(memory), len(recs)))
    offset = rig.args.memory_clock_offset
    if first.get("last_result") != "finished" or first.get("stored") != len(recs) - late or first.get("rejected"):
        problems.append("first download's row: %s" % json.dumps(first))
    if first.get("clock_result") != "set" or abs((first.get("clock_drift_seconds") or 0) - offset) > 2:
        problems.append("clock: result %r, drift %r s, want set and %+.0f s"
                        % (first.get("clock_result"), first.get("clock_drift_seconds"), offset))
    if second.get("last_result") != "finished" or second.get("stored") != late \
            or second.get("duplicates") != first.get("stored", 0) + first.get("duplicates", 0):
        problems.append("second download of the same range: %s (want 0 stored, the first's records "
                        "all duplicates)" % json.dumps(second))
    if abs(second.get("clock_drift_seconds") or 0) > 2:
        problems.append("the clock is %r s off after it was set" % second.get("clock_drift_seconds"))
    return problems


def stock_cost(rig, t_ask, first):
    """The first download's cost: the daemon's connect to the records' StartNotify (connect,
    discovery, clock and range read, clock set, index written), the records' notifications
    as the sensor sent them, how long the daemon held the sensor."""
    t_connect = [t for t, l in list(rig.daemon.lines) if "connecting to read its memory" in l and t >= t_ask]
    sent = sensor_log_lines(rig, t_connect[0] if t_connect else t_ask)
    notify = [t for t, l in sent if "StartNotify(ebe0ccbc)" in l]
    dl = [re.search(r"(\d+) records sent in ([0-9.]+) s", l) for _, l in sent if "records sent" in l]
    records, seconds = (int(dl[0].group(1)), float(dl[0].group(2))) if dl else (None, None)
    return {"connect_s": round(notify[0] - t_connect[0], 2) if notify and t_connect else None,
            "records": records, "download_s": seconds,
            "records_per_s": round(records / seconds, 1) if records and seconds else None,
            "held_s": first.get("connected_seconds")}

# ---------------------------------------------------------------- 10t ThermoPro display clock
# Scenario 10t (make e2e-memory, after 10s): a ThermoPro TP358 on hci2 (its advertisement,
# and peripheral/thermopro_clock.py: the write-only clock characteristic ...2b11). blectld
# sets the clock at the first hearing (the sensor keeps no records blectl reads, so nothing
# else ever connects to it), in local time, by one write; it cannot read it back. The daemon
# runs with TZ=IST-5:30 (a POSIX zone: no tzdata), so local time is not UTC.
THERMOPRO_TZ, THERMOPRO_UTC_OFFSET = "IST-5:30", 19800


def sc10t_thermopro_clock(rig, res):
    """a ThermoPro TP358's display clock: set at the first hearing, in local time, one write"""
    if not adjtimex()[0]:
        res["clock_declared"] = declare_clock_synchronized()[0]
    memory_sensor_alone(rig)
    sensor = Sensor(rig)
    try:
        rig.stop_peripheral("S")
        write_daemon_conf(*MEMORY_CONF)
        sensor.write("thermopro 55.5", 21.5)
        _, ready = rig.start_peripheral("S", PERIPH_B_HCI, readvertise=1, extra=[
            "--sensor", sensor.format_file, "--thermopro-clock-sensor"])
        rig.wait_ready("S", ready, timeout=40)
        t0 = time.monotonic()
        os.environ["TZ"] = THERMOPRO_TZ             # the daemon's zone (it inherits the driver's)
        try:
            rig.start_daemon()
        finally:
            del os.environ["TZ"]
        entry = thermopro_clock_entry(rig, sensor, 60)
        time.sleep(3)                                   # a second write would show
        writes = [l for _, l in sensor_log_lines(rig, t0) if "write clock" in l]
        reading = sensor.read()
        t_connect = [t for t, l in list(rig.daemon.lines) if "connecting to read its memory" in l and t >= t0]
        rig.stop_daemon()
    finally:
        memory_sensor_gone(rig)
    problems = thermopro_clock_problems(entry, writes, reading)
    t_write = [float(re.search(r"mono=([0-9.]+)", l).group(1)) for l in writes]
    res["cost"] = {"connect_to_write_s": round(t_write[0] - t_connect[0], 2) if t_write and t_connect else None,
                   "first_write_after_start_s": round(t_write[0] - t0, 2) if t_write else None}
    res["detail"] = "entry %s; writes %s; cost %s" % (json.dumps(entry), [w.split("write clock ")[1][:20] for w in writes],
                                                      json.dumps(res["cost"]))
    rig.steady("A", PERIPH_A_HCI, timeout=30)
    if problems:
        raise Fail("; ".join(problems) + " — " + res["detail"])


def thermopro_clock_entry(rig, sensor, timeout):
    """The sensor's `sensor_memory` entry once it has a clock_result."""
    end, entry = time.monotonic() + timeout, None
    while time.monotonic() < end:
        _, status, _, _ = rig.cli("status", "--json")
        entry = next((e for e in (status or {}).get("sensor_memory") or []
                      if str(e.get("address", "")).upper() == sensor.addr), None)
        if entry and entry.get("clock_result"):
            return entry
        rig.check_central_alive()
        time.sleep(1)
    raise Fail("no clock result for %s within %.0f s; entry %s" % (sensor.addr, timeout, json.dumps(entry)))


def thermopro_clock_problems(entry, writes, reading):
    """One write, the local time at its arrival (± 2 s), a 24-hour display; status `set`, no
    drift (the clock cannot be read) and no download; the reading names the TP358."""
    problems = []
    if entry.get("clock_result") != "set" or entry.get("clock_drift_seconds") is not None or entry.get("downloads"):
        problems.append("status sensor_memory: %s (want clock_result set, no drift, no download)" % json.dumps(entry))
    if len(writes) != 1:
        problems.append("%d clock writes, want 1: %s" % (len(writes), writes))
    for line in writes[:1]:
        m = re.search(r"write clock ([0-9a-f]{20}) \S+ wall=([0-9.]+)", line)
        if not m:
            problems.append("a clock write of other than 10 bytes: %s" % line)
            continue
        v, wall = bytes.fromhex(m.group(1)), float(m.group(2))
        try:
            shown = datetime.datetime(2000 + v[1], v[2], v[3], v[4], v[5], v[6])
        except ValueError as e:
            problems.append("the clock write %s is no date: %s" % (m.group(1), e))
            continue
        local = datetime.datetime.fromtimestamp(wall + THERMOPRO_UTC_OFFSET, datetime.timezone.utc).replace(tzinfo=None)
        if abs((shown - local.replace(microsecond=0)).total_seconds()) > 2 or v[7] != local.isoweekday() \
                or (v[0], v[8], v[9]) != (0xA5, 0x01, 0x5A):
            problems.append("the clock write %s shows %s (weekday %d), want the local time %s (weekday %d)"
                            % (m.group(1), shown, v[7], local, local.isoweekday()))
    if not isinstance(reading, dict) or reading.get("profile") != "thermopro" or reading.get("model") != "TP358":
        problems.append("the sensor's reading: %s (want profile thermopro, model TP358)" % reading)
    return problems

# ---------------------------------------------------------------- 11-13 two central controllers
# Scenarios 11-13 (issue 36) give the daemon two central controllers, hci0 and hci3 (the
# spacer, which only scenarios 6 and 8 use otherwise): `--adapters hci0,hci3`. A stays on
# hci1, the sensor on hci2. btvirt's controllers share one radio, so both centrals hear every
# advertiser, at the same RSSI (127, "not known": the daemon's ownership ignores it and the
# first adapter in the list keeps a device).
SECOND_HCI = SPACER_HCI
CENTRALS = (CENTRAL_HCI, SECOND_HCI)
BTHOME_UUID = "0000fcd2-0000-1000-8000-00805f9b34fb"
# Scenario 11's sensor: plain BTHome v2, its packet id (the counter) in the third byte.
HEARD_TWICE = ("bthome", "bthome", 26.5)


def two_centrals(rig, *conf):
    """The daemon again, with both central controllers and `conf` in its configuration."""
    rig.stop_daemon()
    write_daemon_conf(*conf)
    rig.adapter_args = ["--adapters", ",".join(CENTRALS)]
    rig.start_daemon()


def one_central(rig):
    """Back to the suite's daemon (hci0 alone, the default configuration), both centrals
    powered and hci3 knowing neither A nor the sensor (scenario 6's spacer link starts from
    a clean hci3)."""
    if rig.watcher:
        rig.watcher.stop()
        rig.watcher = None
    if rig.daemon and rig.daemon.alive():
        rig.daemon.stop(signal.SIGTERM, 10)
    rig.adapter_args = ["--adapter", CENTRAL_HCI]
    write_daemon_conf()
    power_on_centrals(rig)
    for hci in (PERIPH_A_HCI, PERIPH_B_HCI):
        rig.bz.remove_device(SECOND_HCI, rig.addr[hci])
    rig.start_daemon()


def power_on_centrals(rig):
    """Both central controllers powered (after a scenario that powered one off)."""
    for hci in CENTRALS:
        if not rig.bz.adapters().get(hci, {}).get("Powered"):
            btmgmt_power(hci, "on")
    rig.bz.wait_adapters(list(CENTRALS), 10)


def dev_path(central, periph_hci, rig):
    return "/org/bluez/%s/dev_%s" % (central, rig.addr[periph_hci].upper().replace(":", "_"))


def bthome_counter(raw):
    """The packet id of a plain BTHome v2 payload (hex), or None."""
    raw = str(raw or "")
    return int(raw[4:6], 16) if raw.startswith("4000") and len(raw) >= 6 else None


def heard_counters(rig, msgs, path):
    """The BTHome counters bluetoothd announced for the device object `path` (its ServiceData
    in PropertiesChanged, or InterfacesAdded for a new object), in order."""
    bluez = rig.bluez_names()
    found = []
    for m in msgs:
        if m.sender not in bluez:
            continue
        if m.member == "PropertiesChanged" and m.path == path and m.arg(0) == DEVICE:
            props = busmon.props(m.args[1])
        elif m.member == "InterfacesAdded" and m.arg(0) == path:
            props = [p for _, (iface, array) in m.args[1][1] if iface[1] == DEVICE
                     for p in busmon.props(array)]
        else:
            continue
        for name, _, value in props:
            if name != "ServiceData":
                continue
            for _, (uuid, data) in value:
                inner = data[1] if data[0] == "v" else data
                counter = bthome_counter(inner[1]) if uuid[1] == BTHOME_UUID else None
                if counter is not None:
                    found.append(counter)
    return found


def sensor_readings(rig, addr, since):
    """The BTHome counters of the sensor's readings in `watch` since `since`, in order."""
    return [bthome_counter(e.get("raw")) for _, e in rig.watcher.all(
        lambda e: e.get("type") == "reading" and str(e.get("address", "")).upper() == addr, since=since)]


def sc11_heard_twice(rig, res):
    """two central controllers hear the advertising sensor: each measurement is one reading"""
    rig.steady("A", PERIPH_A_HCI)
    sensor = Sensor(rig)
    try:
        two_centrals(rig, "history_commit_interval = 1s")
        t_on = time.monotonic()
        res["first_s"] = sensor.expect(*HEARD_TWICE)
        first = rig.mark("start 11 heard twice")
        w_first = time.time()
        time.sleep(rig.args.heard_twice_s)
        last = rig.mark("check 11 heard twice")
        time.sleep(2.0)     # the last advertisements' readings reach watch and the history
        check_once(rig, res, sensor, first, last, t_on, w_first)
        rig.steady("A", PERIPH_A_HCI)
    finally:
        rig.stop_peripheral("S")
        one_central(rig)
    rig.steady("A", PERIPH_A_HCI, timeout=30)


def each_once(rig, sensor, either, t_on, w_since):
    """What is wrong with the sensor's readings in `watch` since `t_on` (monotonic) and in
    the history since `w_since` (wall), against `either`, the counters BlueZ announced: a
    measurement read twice or not at all; an advertisement error in `status`. Returns
    (problems, watch's counters, the history's, the status entry)."""
    live = collections.Counter(sensor_readings(rig, sensor.addr, t_on))
    rc, hist, out, err = rig.cli("history", sensor.addr, "--since", utc(w_since),
                                 "--until", utc(time.time() + 60), "--json", timeout=60)
    if rc != 0 or not isinstance(hist, list):
        raise Fail("history --json: rc=%d %s %s" % (rc, out[:300], err[:300]))
    stored = collections.Counter(bthome_counter(r.get("raw")) for r in hist if isinstance(r, dict))
    adverts = sensor.advertisement_status()
    problems = []
    for what, counts in (("watch", live), ("the history", stored)):
        twice = {c: n for c, n in sorted(counts.items()) if c is not None and n > 1}
        if twice:
            problems.append("%s has measurements more than once {counter: readings}: %s" % (what, twice))
        missing = sorted(either - set(counts))
        if missing:
            problems.append("%s lacks measurements BlueZ announced: counters %s" % (what, missing))
    if adverts.get("errors"):
        problems.append("status advertisements errors %s" % adverts.get("errors"))
    return problems, live, stored, adverts


def check_once(rig, res, sensor, first, last, t_on, w_first):
    """Every counter either central heard between the marks is one reading in `watch` and one
    in the history; none is two."""
    msgs = rig.bus_between(first, last)
    heard = {hci: heard_counters(rig, msgs, "/org/bluez/%s/dev_%s" % (hci, sensor.addr.replace(":", "_")))
             for hci in CENTRALS}
    both = set(heard[CENTRAL_HCI]) & set(heard[SECOND_HCI])
    either = set(heard[CENTRAL_HCI]) | set(heard[SECOND_HCI])
    if len(both) < 5:
        raise RigError("both centrals heard only %d of the sensor's measurements (%s: %s, %s: %s): "
                       "nothing to judge" % (len(both), CENTRAL_HCI, heard[CENTRAL_HCI], SECOND_HCI,
                                             heard[SECOND_HCI]))
    problems, live, stored, adverts = each_once(rig, sensor, either, t_on, w_first - 60)
    if problems:
        raise Fail("; ".join(problems))
    heard = {hci: set(counters) for hci, counters in heard.items()}
    res.update(heard={hci: len(heard[hci]) for hci in CENTRALS}, heard_by_both=len(both),
               measurements=len(either), duplicates=adverts.get("duplicates"))
    res["detail"] = ("%d measurements in %.0f s; %s heard %d, %s %d, both %d; each one reading in "
                     "watch and in the history (%d and %d readings of the sensor); status: %s "
                     "duplicates, %s lost packets; first reading %.2f s after the sensor was on "
                     "the air" % (len(either), rig.args.heard_twice_s, CENTRAL_HCI,
                                  len(heard[CENTRAL_HCI]), SECOND_HCI, len(heard[SECOND_HCI]),
                                  len(both), sum(live.values()), sum(stored.values()),
                                  adverts.get("duplicates"), adverts.get("lost_packets"),
                                  res["first_s"]))


def link_holder(rig):
    """The central controller whose link to A is up (BlueZ's Connected), or None."""
    objs = rig.bz.objects()
    for hci in CENTRALS:
        d = objs.get(dbus.ObjectPath(dev_path(hci, PERIPH_A_HCI, rig)), {}).get(DEVICE)
        if d and bool(d.get("Connected")):
            return hci
    return None


def adapter_status(rig):
    """`status --json` adapters, by interface name."""
    rc, st, out, err = rig.cli("status", "--json", timeout=15)
    return {a.get("interface"): a for a in (st.get("adapters") or [] if isinstance(st, dict) else [])}


def sc12_failover(rig, res):
    """the central controller holding A's link is powered off: A is read again through the
    other one (repeated, alternating)"""
    rig.steady("A", PERIPH_A_HCI)
    runs = []
    try:
        two_centrals(rig)
        rig.steady("A", PERIPH_A_HCI, timeout=30)
        for n in range(rig.args.failover_reps):
            runs.append(failover_once(rig, n))
    finally:
        res["runs"] = runs
        one_central(rig)
    rig.steady("A", PERIPH_A_HCI, timeout=30)
    times = sorted(r["recovery_s"] for r in runs)
    res["recovery_s"] = times[len(times) // 2] if len(times) % 2 else \
        round((times[len(times) // 2 - 1] + times[len(times) // 2]) / 2, 2)
    res["detail"] = ("%d power-offs; first new reading through the other controller %s s after "
                     "the link was lost (median %.2f s, max %.2f s); %s"
                     % (len(runs), [r["recovery_s"] for r in runs], res["recovery_s"], times[-1],
                        ", ".join("%s->%s" % (r["from"], r["to"]) for r in runs)))


def failover_once(rig, n):
    end = time.monotonic() + 10
    holder = link_holder(rig)
    while holder is None and time.monotonic() < end:
        time.sleep(0.2)
        holder = link_holder(rig)
    if holder is None:
        raise Fail("power-off %d: A is read but BlueZ shows its link up on neither %s" % (n + 1, CENTRALS))
    other = [h for h in CENTRALS if h != holder][0]
    rig.steady("A", PERIPH_A_HCI)
    fault = rig.mark("fault 12 power off %s" % holder)
    t_fault = time.monotonic()
    btmgmt_power(holder, "off")
    t_lost = time.monotonic()           # power off returned: the kernel has dropped the link
    rig.set_temp("A", 45.5 + n)         # only a reading made after the loss carries it
    recovery = rig.wait_new_reading("A", PERIPH_A_HCI, t_lost, rig.args.recovery_limit,
                                    "power-off %d of %s" % (n + 1, holder), since=t_lost)
    t_read = t_lost + recovery
    now_on = link_holder(rig)
    msgs = rig.bus_between(fault, rig.mark("read 12 through %s" % other))
    problems = []
    if now_on != other:
        problems.append("after the reading BlueZ shows A's link on %s, want %s" % (now_on, other))
    if not rig.central_calls(msgs, "Connect", lambda p: p == dev_path(other, PERIPH_A_HCI, rig)):
        problems.append("no Connect of the daemon on %s" % dev_path(other, PERIPH_A_HCI, rig))
    # The daemon's view: the controller off, the link through the other (with several
    # adapters the daemon stays poweredOn while one is: no adapter_state event is expected).
    adapters = adapter_status(rig)
    if adapters.get(holder, {}).get("powered") is not False or not adapters.get(other, {}).get("connected"):
        problems.append("status adapters %s: want %s powered false, a link through %s"
                        % (json.dumps(adapters), holder, other))
    rig.no_watchdog(t_fault, problems)
    if problems:
        raise Fail("power-off %d of %s: %s" % (n + 1, holder, "; ".join(problems)))
    log("power-off %d: %s off in %.2f s, A read through %s %.2f s after" % (
        n + 1, holder, t_lost - t_fault, other, recovery))
    # The controller back on, taken up again by the daemon, before the next power-off.
    t_on = time.monotonic()
    btmgmt_power(holder, "on")
    end = t_on + 10
    while not (rig.bz.adapters().get(holder, {}).get("Discovering")
               and adapter_status(rig).get(holder, {}).get("powered")):
        if time.monotonic() > end:
            raise Fail("%s powered on again but not discovering, or not powered in status, within 10 s: %s"
                       % (holder, json.dumps(adapter_status(rig))))
        time.sleep(0.3)
    rig.steady("A", PERIPH_A_HCI)
    return {"from": holder, "to": other, "recovery_s": round(recovery, 2),
            "power_off_s": round(t_lost - t_fault, 2), "read_at": round(t_read - t_fault, 2)}


def sc13_one_silenced(rig, res):
    """one of two central controllers silenced (its scanning switched off behind bluetoothd's
    back): its own ladder restarts its discovery, while the other goes on hearing the sensor
    and A keeps streaming"""
    rig.steady("A", PERIPH_A_HCI)
    sensor = Sensor(rig)
    try:
        two_centrals(rig, "scan_watchdog = %s" % rig.args.scan_watchdog)
        rig.steady("A", PERIPH_A_HCI, timeout=30)
        sensor.expect(*HEARD_TWICE)
        holder = link_holder(rig)
        deaf = SECOND_HCI if holder != SECOND_HCI else CENTRAL_HCI
        other = [h for h in CENTRALS if h != deaf][0]
        rig.mark("fault 13 silence %s" % deaf)
        t_fault = silence_central(rig, time.monotonic(), deaf)
        # What the controller reported just before the command may still be on its way.
        time.sleep(1.0)
        silent = rig.mark("silent 13 %s" % deaf)
        step_line = "adapter %s: %s" % (deaf, STEP_LINE)
        healed_line = "adapter %s: %s" % (deaf, HEARD_LINE)
        step = heard = None
        end = t_fault + LADDER_PERIOD_S + 15
        while time.monotonic() < end and not heard:
            lines = rig.daemon.lines_since(t_fault)
            step = step or next((l for l in lines if step_line in l), None)
            heard = next((l for l in lines if healed_line in l), None)
            rig.check_central_alive()
            time.sleep(0.2)
        t_heard = time.monotonic()
        if not step or not heard:
            raise Fail("silenced %s: no %r%s within %.0f s (scan_watchdog %s)" % (
                deaf, step_line if not step else healed_line, "" if not step else " after the step",
                end - t_fault, rig.args.scan_watchdog))
        # What the controller heard first may be A or the sensor's RSSI; its next measurements
        # (one a second) follow.
        time.sleep(3.0)
        check_one_silenced(rig, res, sensor, silent, t_fault, t_heard, deaf, other)
        rig.steady("A", PERIPH_A_HCI)
    finally:
        rig.stop_peripheral("S")
        one_central(rig)
    rig.steady("A", PERIPH_A_HCI, timeout=30)


def check_one_silenced(rig, res, sensor, silent, t_fault, t_heard, deaf, other):
    """On the bus: the deaf controller announced none of the sensor's measurements from a
    second after the fault (the mark `silent`) to the daemon's discovery restart there, and some after it; the other announced
    them throughout. In `watch`: the sensor's readings went on (no gap over 3 s). In
    `status`: a step on the deaf controller only, cured by restarting discovery."""
    msgs = rig.bus_between(silent, rig.mark("check 13 one silenced"))
    restart = [i for i, m in enumerate(msgs) if m.kind == "method call" and m.sender == rig.central_name
               and m.member == "StartDiscovery" and m.path == "/org/bluez/" + deaf]
    if not restart:
        raise Fail("no StartDiscovery of the daemon on %s after the silence" % deaf)
    path = {h: "/org/bluez/%s/dev_%s" % (h, sensor.addr.replace(":", "_")) for h in CENTRALS}
    deaf_before = heard_counters(rig, msgs[:restart[0]], path[deaf])
    deaf_after = heard_counters(rig, msgs[restart[0]:], path[deaf])
    other_during = heard_counters(rig, msgs[:restart[0]], path[other])
    if deaf_before or len(other_during) < 3:
        raise RigError("the silence of %s was not real: before the discovery restart it announced "
                       "%d measurements, %s %d" % (deaf, len(deaf_before), other, len(other_during)))
    readings = rig.watcher.all(
        lambda e: e.get("type") == "reading" and str(e.get("address", "")).upper() == sensor.addr,
        since=t_fault - 2)
    times = [t for t, _ in readings]
    gaps = [b - a for a, b in zip(times, times[1:]) if b <= t_heard]
    # Judged by what the other controller announced, not by the time between readings: the
    # sensor's own cadence (python re-registering every second) stalled for 3 s at a load
    # average of 32 (2026-12-05 22:47).
    missing = sorted(set(other_during) - {bthome_counter(e.get("raw")) for _, e in readings})
    rc, st, out, err = rig.cli("status", "--json", timeout=15)
    st = st if isinstance(st, dict) else {}
    ladder = st.get("scan_watchdog") or {}
    steps = {a.get("interface"): a.get("recovery_steps") for a in st.get("adapters") or []}
    problems = []
    if not deaf_after:
        problems.append("%s announced no measurement after the daemon's discovery restart" % deaf)
    if missing:
        problems.append("measurements %s announced by %s while %s was deaf are no readings"
                        % (missing, other, deaf))
    if ladder.get("last_recovered_by") != "restart_discovery" or ladder.get("silent"):
        problems.append("status scan_watchdog %s: want last_recovered_by restart_discovery" % json.dumps(ladder))
    if not steps.get(deaf) or steps.get(other):
        problems.append("status adapters' recovery_steps %s: want steps on %s only" % (steps, deaf))
    if [l for l in rig.daemon.lines_since(t_fault) if "adapter %s: %s" % (other, STEP_LINE) in l]:
        problems.append("the ladder of %s took a step too" % other)
    if problems:
        raise Fail("; ".join(problems))
    res["recovery_s"] = round(t_heard - t_fault, 2)
    res["detail"] = ("%s silenced; its ladder restarted its discovery and it heard again %.1f s "
                     "later (%d measurements announced by %s meanwhile, each a reading; %d by %s "
                     "after); the sensor's largest gap between readings %.2f s; recovery_steps %s"
                     % (deaf, res["recovery_s"], len(set(other_during)), other, len(set(deaf_after)),
                        deaf, max(gaps or [0]), steps))


# Scenario 15: a controller of its own (vhci-relay.py through btvirt's server socket), removed
# and re-added under a new index with its address.
RELAY_SERVER = "/tmp/bt-server-le"


def start_relay(rig, relays, name, placeholder=False, timeout=20):
    """vhci-relay.py: a controller the kernel can remove on its own (or, as a placeholder, one
    that holds its index and is never set up); returns its interface name."""
    ready = os.path.join(RUN, "relay-%s.ready" % name)
    if os.path.exists(ready):
        os.unlink(ready)
    argv = [PY, os.path.join(rig.W, "guest", "vhci-relay.py"), "--ready", ready]
    relays[name] = Proc("relay-" + name, argv + (["--placeholder"] if placeholder else []),
                        os.path.join(rig.out, "relay.log"))
    end = time.monotonic() + timeout
    while not os.path.exists(ready):
        if not relays[name].alive() or time.monotonic() > end:
            raise RigError("vhci-relay.py %s: no controller (rc=%s), see relay.log"
                           % (name, relays[name].p.poll()))
        time.sleep(0.1)
    with open(ready) as f:
        return f.read().strip()


def stop_relays(rig, relays):
    """Every relay stopped, its controller gone from the kernel, bluetoothd rid of it."""
    for p in relays.values():
        p.stop(signal.SIGTERM, 5)
    end = time.monotonic() + 10
    while time.monotonic() < end and set(os.listdir("/sys/class/bluetooth")) - set(ALL_HCI):
        time.sleep(0.1)


def sensor_hearing(rig, addr, hci):
    """The sensor's `status` entry of `hci` (advertisements' sensors' adapters), or None."""
    rc, st, out, err = rig.cli("status", "--json", timeout=15)
    sensors = ((st or {}).get("advertisements") or {}).get("sensors") or [] if isinstance(st, dict) else []
    for s in sensors:
        if str(s.get("address", "")).upper() == addr:
            return next((a for a in s.get("adapters") or [] if a.get("adapter") == hci), None)
    return None


def sc15_readded(rig, res):
    """the central controller holding A's link is removed from the kernel: A is read again
    through hci0; the controller comes back under a new index with its address, is taken up
    again and hears the sensor, each measurement one reading"""
    rig.steady("A", PERIPH_A_HCI)
    if not os.path.exists(RELAY_SERVER):
        raise RigError("btvirt has no server socket %s (btvirt -s)" % RELAY_SERVER)
    sensor = Sensor(rig)
    relays = {}
    try:
        removable = start_relay(rig, relays, "first")
        addr = str(rig.bz.wait_adapters([removable], 15, power_if_needed_after=8)[0][removable]).upper()
        centrals = (removable, CENTRAL_HCI)
        rig.stop_daemon()
        write_daemon_conf("history_commit_interval = 1s")
        rig.adapter_args = ["--adapters", ",".join(centrals)]
        rig.start_daemon()
        rig.steady("A", PERIPH_A_HCI, timeout=30)
        sensor.expect(*HEARD_TWICE)
        holder = link_holder15(rig, centrals)
        if holder == CENTRAL_HCI:
            # The daemon reconnects A where BlueZ knows it (hci0, from the suite's daemon), and
            # the new controller has not heard A yet: hci0 off for a moment moves the link.
            btmgmt_power(CENTRAL_HCI, "off")
            t_off = time.monotonic()
            rig.set_temp("A", 46.5)
            rig.wait_new_reading("A", PERIPH_A_HCI, t_off, 30, "moving A's link to %s" % removable,
                                 since=t_off)
            btmgmt_power(CENTRAL_HCI, "on")
            rig.bz.wait_adapters([CENTRAL_HCI], 10)
            holder = link_holder15(rig, centrals)
            log("A's link moved from %s to %s (%s powered off and on)" % (CENTRAL_HCI, holder, CENTRAL_HCI))
            res["link_moved"] = True
        if holder != removable:
            raise RigError("A's link is on %s, not on %s" % (holder, removable))
        # ---- the removal
        rig.steady("A", PERIPH_A_HCI)
        fault = rig.mark("fault 15 remove %s" % removable)
        t_fault = time.monotonic()
        relays["first"].send(signal.SIGTERM)
        while os.path.exists("/sys/class/bluetooth/" + removable):
            if time.monotonic() - t_fault > 5:
                raise RigError("%s still in the kernel 5 s after its relay's SIGTERM" % removable)
            time.sleep(0.02)
        t_lost = time.monotonic()       # the kernel has unregistered the controller
        rig.set_temp("A", 47.25)
        recovery = rig.wait_new_reading("A", PERIPH_A_HCI, t_lost, rig.args.recovery_limit,
                                        "%s removed" % removable, since=t_lost)
        relays["first"].stop(signal.SIGTERM, 5)
        msgs = rig.bus_between(fault, rig.mark("read 15 through %s" % CENTRAL_HCI))
        problems = []
        if link_holder15(rig, centrals) != CENTRAL_HCI:
            problems.append("BlueZ shows A's link on %s, want %s" % (link_holder15(rig, centrals), CENTRAL_HCI))
        if removable in rig.bz.adapters():
            problems.append("bluetoothd still has %s" % removable)
        if not rig.central_calls(msgs, "Connect", lambda p: p == dev_path(CENTRAL_HCI, PERIPH_A_HCI, rig)):
            problems.append("no Connect of the daemon on %s" % dev_path(CENTRAL_HCI, PERIPH_A_HCI, rig))
        adapters = adapter_status(rig)
        if removable in adapters or not adapters.get(CENTRAL_HCI, {}).get("connected"):
            problems.append("status adapters %s: want %s gone, a link through %s"
                            % (json.dumps(adapters), removable, CENTRAL_HCI))
        rig.no_watchdog(t_fault, problems)
        if problems:
            raise Fail("%s removed: %s" % (removable, "; ".join(problems)))
        log("%s removed; A read through %s %.2f s after" % (removable, CENTRAL_HCI, recovery))
        # ---- the same controller back under the next index: its old one held meanwhile
        held = start_relay(rig, relays, "placeholder", placeholder=True)
        if held != removable:
            raise RigError("the placeholder got %s, want %s (the index freed)" % (held, removable))
        added = rig.mark("add 15 again")
        t_add = time.monotonic()
        w_add = time.time()
        again = start_relay(rig, relays, "again")
        t_created = time.monotonic()    # the kernel has the controller (python's start is not counted)
        got = str(rig.bz.wait_adapters([again], 15, power_if_needed_after=8)[0][again]).upper()
        if again == removable or got != addr:
            raise RigError("re-added as %s %s, want a new index with %s" % (again, got, addr))
        end = t_created + 20
        while True:
            st = adapter_status(rig).get(again) or {}
            if str(st.get("adapter_address", "")).upper() == addr and st.get("powered") \
                    and st.get("discovering") and rig.bz.adapters().get(again, {}).get("Discovering"):
                break
            if time.monotonic() > end:
                raise Fail("%s (%s) re-added: not powered and discovering in status within 20 s: %s"
                           % (again, addr, json.dumps(adapter_status(rig))))
            time.sleep(0.3)
        t_taken = time.monotonic()
        back_line = "configured adapter %s (now %s) present again" % (removable, again)
        while not [l for l in rig.daemon.lines_since(t_add) if back_line in l]:
            if time.monotonic() > t_taken + 3:
                raise Fail("%s taken up again, but the daemon's log lacks %r" % (again, back_line))
            time.sleep(0.2)
        hearing = None
        while time.monotonic() < t_created + 30:
            hearing = sensor_hearing(rig, sensor.addr, again)
            if hearing and hearing.get("last_heard") and parse_time(hearing["last_heard"]) > w_add:
                break
            hearing = None
            time.sleep(0.5)
        if not hearing:
            raise Fail("the sensor not heard through %s within 30 s of its re-adding (status: %s)"
                       % (again, sensor_hearing(rig, sensor.addr, again)))
        t_heard = time.monotonic()
        time.sleep(rig.args.heard_twice_s / 3)
        last = rig.mark("check 15 each measurement once")
        time.sleep(2.0)     # the last advertisements' readings reach watch and the history
        counted = check_once15(rig, sensor, added, last, t_add, w_add, (again, CENTRAL_HCI))
        rig.steady("A", PERIPH_A_HCI)
        res.update(recovery_s=round(recovery, 2), taken_up_s=round(t_taken - t_created, 2),
                   sensor_heard_s=round(t_heard - t_created, 2), new_interface=again, **counted)
        res["detail"] = ("%s (%s) removed: A read through %s %.2f s after; re-added as %s: in "
                         "status powered and discovering %.2f s after the kernel created it, the "
                         "sensor heard through it after %.2f s; %d measurements since (%s %d, %s %d), each "
                         "one reading in watch and in the history"
                         % (removable, addr, CENTRAL_HCI, recovery, again, t_taken - t_created,
                            t_heard - t_created, counted["measurements"], again, counted["heard_new"],
                            CENTRAL_HCI, counted["heard_hci0"]))
    finally:
        rig.stop_peripheral("S")
        stop_relays(rig, relays)
        one_central(rig)
        # also after a failure: the suite's daemon reading A again before whatever comes next
        if rig.watcher:
            rig.watcher.wait_for(rig.is_reading(PERIPH_A_HCI), 30, since=time.monotonic())
    rig.steady("A", PERIPH_A_HCI, timeout=30)


def link_holder15(rig, centrals):
    """Which of `centrals` BlueZ shows A's link on, or None (waits up to 10 s for one)."""
    end = time.monotonic() + 10
    while True:
        objs = rig.bz.objects()
        for hci in centrals:
            d = objs.get(dbus.ObjectPath(dev_path(hci, PERIPH_A_HCI, rig)), {}).get(DEVICE)
            if d and bool(d.get("Connected")):
                return hci
        if time.monotonic() > end:
            return None
        time.sleep(0.2)


def check_once15(rig, sensor, first, last, t_first, w_first, centrals):
    """Every counter the two controllers announced between the marks is one reading in `watch`
    and one in the history; the re-added one announced some."""
    msgs = rig.bus_between(first, last)
    heard = {hci: set(heard_counters(rig, msgs, "/org/bluez/%s/dev_%s" % (hci, sensor.addr.replace(":", "_"))))
             for hci in centrals}
    either = heard[centrals[0]] | heard[centrals[1]]
    if not heard[centrals[0]]:
        raise Fail("on the bus %s announced none of the sensor's measurements after its re-adding"
                   % centrals[0])
    # From the re-adding on only: the sensor of an earlier scenario (11, 13) sent the same
    # counters a minute before (its process starts counting from 1 again).
    problems = each_once(rig, sensor, either, t_first, w_first - 2)[0]
    if problems:
        raise Fail("after the re-adding: " + "; ".join(problems))
    return {"measurements": len(either), "heard_new": len(heard[centrals[0]]),
            "heard_hci0": len(heard[centrals[1]])}


# key -> (name, function, slug for the begin/end marks on the bus) or a list of them
SCENARIOS = {
    "1": ("1 discover/connect/read", sc1_read, "1-read"),
    "2": ("2 notifications", sc2_notify, "2-notify"),
    "3": ("3 peripheral app restart", sc3_periph_restart, "3-app-restart"),
    "4": [("4a bluetoothd SIGTERM restart", sc4a_bluetoothd_term, "4a-bluetoothd-term"),
          ("4b bluetoothd SIGKILL restart", sc4b_bluetoothd_kill, "4b-bluetoothd-kill")],
    "5": ("5 adapter power off/on", sc5_power, "5-power"),
    "6": ("6 two peripherals", sc6_two, "6-two"),
    "7": ("7 advertising sensors", sc7_adverts, "7-adverts"),
    "8": ("8 silent controller", sc8_silent_controller, "8-silent-controller"),
    "8p": ("8p silent controller, deaf again", sc8p_deaf_again, "8p-deaf-again"),
    "9": ("9 passive scanning", sc9_passive, "9-passive"),
    "10": ("10 the sensor's memory", sc10_memory, "10-memory"),
    "10s": ("10s Xiaomi stock firmware's memory", sc10s_stock_memory, "10s-stock-memory"),
    "10t": ("10t ThermoPro display clock", sc10t_thermopro_clock, "10t-thermopro-clock"),
    "11": ("11 two centrals, each measurement once", sc11_heard_twice, "11-heard-twice"),
    "12": ("12 two centrals, the link's controller powered off", sc12_failover, "12-failover"),
    "13": ("13 two centrals, one silenced", sc13_one_silenced, "13-one-silenced"),
    "14": ("14 MiBeacon encrypted, Inkbird, Govee probes", sc14_sensors, "14-sensors"),
    "15": ("15 a central controller removed, re-added under a new index", sc15_readded, "15-readded"),
    "scanprobe": ("scan probe (rig measurement)", scanprobe, "scanprobe"),
}


def reset_after_failure(rig):
    """Fresh daemon, peripheral A and bluetoothd running, readings flowing (best effort)."""
    log("reset after the failure: restarting the daemon under test")
    try:
        write_daemon_conf()
        rig.adapter_args = ["--adapter", CENTRAL_HCI]
        if rig.watcher:
            rig.watcher.stop()
            rig.watcher = None
        if rig.daemon:
            rc, clean = rig.daemon.stop(signal.SIGTERM, 10)
            log("daemon stopped rc=%s%s" % (rc, "" if clean else " (needed SIGKILL)"))
        if rig.bluetoothd and rig.bluetoothd.alive() and rig.bluetoothd_experimental:
            rig.stop_peripheral("S")
            rig.bluetoothd.stop(signal.SIGTERM, 10)     # back to the suite's bluetoothd
            rig.stop_peripheral("A")
        if not (rig.bluetoothd and rig.bluetoothd.alive()):
            rig.start_bluetoothd()
        power_on_centrals(rig)
        if not (rig.periph.get("A") and rig.periph["A"].alive()):
            _, ready = rig.start_peripheral("A", PERIPH_A_HCI)
            rig.wait_ready("A", ready)
        rig.start_daemon()
        hit = rig.watcher.wait_for(rig.is_reading(PERIPH_A_HCI), 30)
        log("reset: %s" % ("readings flowing again" if hit else "still no reading after 30 s"))
    except (Fail, SetupError, RigError) as e:
        log("reset failed: %s" % e)


# ================================================================ main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--central", choices=["blectl", "standin"], default="blectl")
    ap.add_argument("--bin-dir", default=None)
    ap.add_argument("--cli-arg", action="append", default=[],
                    help="extra argument put before the verb of every blectl call")
    # 7 and 9 before 6: they use hci2; 8 before 6: it needs A alone, and 6 links hci2 to
    # hci3 (9 restarts bluetoothd, which B's link would not survive: see spacer_link); 11-13
    # before 6: hci3 is their second central
    ap.add_argument("--scenarios", default="1,2,3,4,5,7,8,9,12,6")
    # 360: 300 until scenario 12 joined the default list (up to a minute under load)
    ap.add_argument("--deadline", type=float, default=360,
                    help="start no scenario after this many seconds (whole suite)")
    # well below the daemon's data watchdog (16 s): a recovery by the watchdog fails
    ap.add_argument("--recovery-limit", type=float, default=10)
    ap.add_argument("--notify-slack", type=float, default=2.5)
    ap.add_argument("--two-limit", type=float, default=45)
    ap.add_argument("--readvertise", type=float, default=2.0)
    # scenario 8's scan_watchdog; `off` shows that the scenario fails without the ladder
    ap.add_argument("--scan-watchdog", default="%ds" % LADDER_PERIOD_S)
    # scenarios 11 and 12 (two central controllers): how long the sensor is counted, how many
    # times the controller holding A's link is powered off
    ap.add_argument("--heard-twice-s", type=float, default=15)
    ap.add_argument("--failover-reps", type=int, default=3)
    ap.add_argument("--probe-scans", type=int, default=12)
    ap.add_argument("--probe-window", type=float, default=4.0)
    # scenario 10 (make e2e-memory): the sensor's recording interval, each outage's length,
    # and whether the rig declares the guest's clock synchronised (adjtimex) before the first
    ap.add_argument("--memory-record-s", type=float, default=60)
    ap.add_argument("--memory-outage-s", type=float, default=180)
    ap.add_argument("--memory-clock", choices=["synced", "as-is"], default="synced")
    ap.add_argument("--memory-clock-offset", type=float, default=300,
                    help="the sensor's clock minus the wall clock until blectld sets it")
    args = ap.parse_args()
    t_suite = time.monotonic()
    os.makedirs(RUN, exist_ok=True)
    write_daemon_conf()
    results = []

    def save(status_line):
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump({"central": args.central, "results": results, "status": status_line,
                       "retries": rig.retries if rig else {},
                       "suite_s": round(time.monotonic() - t_suite, 1)}, f, indent=1)

    rig = Rig(args)
    rig.periph_unit = {"A": "F", "B": "C"}
    for n in ("A", "B"):
        rig.temp_file[n] = os.path.join(RUN, "temp-%s" % n)
    rig.set_temp("A", 44.72)
    rig.set_temp("B", 36.6)
    probe_only = all(k.strip().endswith("probe") for k in args.scenarios.split(","))
    # The rig first: what fails here is the rig's (exit 2), nothing was tested.
    try:
        if not rig.standin and not os.access(rig.daemon_argv[0], os.X_OK):
            raise SetupError("no executable %s" % rig.daemon_argv[0])
        addrs = rig.start_bluetoothd()
        log("bluetoothd up; adapters %s" % addrs)
        _, ready = rig.start_peripheral("A", PERIPH_A_HCI)
        rig.wait_ready("A", ready)
        log("peripheral A advertising on %s (%s)" % (PERIPH_A_HCI, addrs[PERIPH_A_HCI]))
    except (SetupError, RigError) as e:
        log("SETUP ERROR: %s" % e)
        results.append({"name": "setup", "status": "RIG", "detail": str(e)})
        save("SETUP")
        return 2
    # Then the daemon: one that dies at start (or never listens) is the product's failure.
    if not probe_only:
        try:
            rig.start_daemon()
        except Fail as e:
            log("FAIL daemon start: %s" % e)
            results.append({"name": "daemon start", "status": "FAIL", "detail": str(e)})
            rig.stop_all()
            save("FAIL")
            return 1

    plan = []
    for key in args.scenarios.split(","):
        if key.strip() == "7" and rig.standin:
            log("scenario 7 left out: the stand-in central reads no advertisements")
            continue
        if key.strip() in ("8", "8p") and rig.standin:
            log("scenario 8 left out: the stand-in central has no scan watchdog")
            continue
        if key.strip() in ("10", "10s", "10t") and rig.standin:
            log("scenario 10 left out: the stand-in central reads no sensor memory")
            continue
        if key.strip() == "14" and rig.standin:
            log("scenario 14 left out: the stand-in central reads no advertisements")
            continue
        if key.strip() == "9" and rig.standin:
            log("scenario 9 left out: the stand-in central reads no advertisements")
            continue
        if key.strip() in ("11", "12", "13", "15") and rig.standin:
            log("scenario %s left out: the stand-in central uses one adapter" % key.strip())
            continue
        entry = SCENARIOS[key.strip()]
        plan += entry if isinstance(entry, list) else [entry]
    for name, fn, slug in plan:
        res = {"name": name}
        t = time.monotonic()
        if t - t_suite > args.deadline:
            res.update(status="FAIL", detail="not run: suite deadline (%.0f s) passed"
                       % args.deadline)
        else:
            log("---- %s" % name)
            rig.mark("begin %s %s" % (slug, name))
            try:
                fn(rig, res)
                res["status"] = "PASS"
            except Fail as e:
                res.update(status="FAIL", detail=str(e))
            except (RigError, SetupError) as e:
                res.update(status="RIG", detail="rig failure, nothing said about the daemon: "
                           "%s" % e)
            except Exception as e:   # a driver bug must not hang or hide the run
                res.update(status="RIG", detail="driver error: %r" % e)
                import traceback
                traceback.print_exc()
            rig.mark("end %s" % slug)
        res["duration_s"] = round(time.monotonic() - t, 2)
        log("%s %s: %s" % (res["status"], name, res.get("detail", "")))
        results.append(res)
        save("RUNNING")
        # keep going after a failure, from a fresh start, so that each later
        # scenario says something on its own instead of failing its precondition
        if res["status"] != "PASS" and (name, fn, slug) != plan[-1]:
            reset_after_failure(rig)

    # ---- teardown: every process stopped, each by its pid
    if rig.watcher:
        if rig.watcher.bad_lines:
            results.append({"name": "watch output", "status": "FAIL",
                            "detail": "%d non-JSON line(s), first: %r"
                            % (len(rig.watcher.bad_lines), rig.watcher.bad_lines[0])})
        rig.watcher.stop()
    if rig.daemon:
        res = {"name": "daemon SIGTERM"}
        rig.mark("begin sigterm daemon SIGTERM")
        try:
            sigterm_check(rig, res)
        except Fail as e:
            res.update(status="FAIL", detail=str(e))
        except RigError as e:
            res.update(status="RIG", detail=str(e))
        rig.mark("end sigterm")
        log("%s daemon SIGTERM: %s" % (res["status"], res.get("detail", "")))
        results.append(res)
    rig.stop_all()
    status = suite_status(results)
    save(status)
    log("suite %s in %.1f s" % (status, time.monotonic() - t_suite))
    return {"PASS": 0, "FAIL": 1}.get(status, 2)


def suite_status(results):
    """FAIL if the daemon failed anything; else RIG if the rig did; else PASS."""
    kinds = {r["status"] for r in results}
    return "FAIL" if "FAIL" in kinds else "RIG" if "RIG" in kinds else "PASS"


def sigterm_check(rig, res):
    """SIGTERM: the daemon exits 0 after turning notifications off and taking its links
    down (as the bus shows), and removes its socket."""
    if not rig.daemon.alive():
        raise Fail("the daemon was no longer running (rc=%s)" % rig.daemon.p.returncode)
    central = "/org/bluez/%s/" % CENTRAL_HCI
    thermometers = {rig.addr[h].upper() for h in (PERIPH_A_HCI, PERIPH_B_HCI) if h in rig.addr}
    objs = rig.bz.objects()
    links = sorted(str(p) for p, i in objs.items() if DEVICE in i and str(p).startswith(central)
                   and bool(i[DEVICE].get("Connected"))
                   and str(i[DEVICE]["Address"]).upper() in thermometers)
    notifying = sorted(str(p) for p, i in objs.items() if CHRC in i
                       and bool(i[CHRC].get("Notifying"))
                       and any(str(p).startswith(l + "/") for l in links))
    first = rig.mark("daemon SIGTERM")
    rc, clean = rig.daemon.stop(signal.SIGTERM, 10)
    msgs = rig.bus_between(first, rig.mark("daemon stopped"))
    problems = []
    if not clean:
        problems.append("still running 10 s after SIGTERM (killed)")
    elif rc != 0:
        problems.append("exit status %s, want 0" % rc)
    if rig.standin:
        res.update(status="PASS" if not problems else "FAIL",
                   detail="; ".join(problems) or "exit 0")
        return
    if not links:
        problems.append("no thermometer link was up before SIGTERM (nothing to check)")
    for path in links:
        if not rig.central_calls(msgs, "Disconnect", lambda p: p == path):
            problems.append("no Disconnect of %s" % path.split("/")[-1])
    for path in notifying:
        if not rig.central_calls(msgs, "StopNotify", lambda p: p == path):
            problems.append("no StopNotify of %s" % path.split("/", 4)[-1])
    if os.path.exists(SOCK):
        problems.append("the socket %s is still there" % SOCK)
    if problems:
        raise Fail("; ".join(problems))
    res.update(status="PASS", detail="exit 0; StopNotify of %d characteristic(s) and "
               "Disconnect of %d link(s) on the bus; socket removed" % (len(notifying), len(links)))


if __name__ == "__main__":
    sys.exit(main())
