#!/usr/bin/python3
"""The Debian package under real systemd; runs INSIDE the systemd guest (run-e2e.sh --systemd).

The guest booted Debian 12's systemd with dbus as the system bus; systemd-main.sh started
btvirt (hci0 = the central, hci1 = the peripheral). This driver installs the .deb the way
the README says (apt install ./blectl_*.deb), then checks the package's units as systemd
runs them: systemd-analyze security, socket activation, STATUS=, the journal's priorities,
the sandbox and the bluetooth group, the watchdog, Restart=on-failure, reload and stop.

Writes OUT/results.json like driver.py; exit 0 all passed, 1 a failure, 2 setup error.
"""
import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver import PY, BlueZ, Fail, Proc, SetupError, expected_raw, log  # noqa: E402

CONF = "/etc/blectl/blectld.conf"
SOCK = "/run/blectl/blectld.sock"
DROPIN_DIR = "/run/systemd/system/blectld.service.d"
# Where docs/mqtt.md and docs/http.md tell an administrator to put the package's drop-ins.
ADMIN_DROPIN_DIR = "/etc/systemd/system/blectld.service.d"
PACKAGE_DOCS = "/usr/share/doc/blectl"
HTTP_LISTEN = "127.0.0.1:9266"
BLUEZ_POLICY = "/etc/dbus-1/system.d/bluetooth.conf"
RUN = "/run/e2e"
REFUSED = ("BlueZ refused access (D-Bus AccessDenied): run blectld as root or as a member of the "
           "'bluetooth' group")


class Guest:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        self.commands = open(os.path.join(args.out, "commands.log"), "a")
        self.temp_file = os.path.join(RUN, "temp-A")
        self.celsius = 44.72
        self.peripheral = None
        self.address = None

    # ------------------------------------------------------------ commands
    def sh(self, *argv, timeout=60, user=None):
        """Runs a command (as `user` when given); logs it with its output; returns the result."""
        if user:
            argv = ("runuser", "-u", user, "--") + argv
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise Fail("`%s` did not finish within %ds" % (" ".join(argv), timeout))
        self.commands.write("$ %s\nrc=%d\n%s%s\n" % (" ".join(argv), r.returncode, r.stdout, r.stderr))
        self.commands.flush()
        return r

    def must(self, *argv, timeout=60):
        r = self.sh(*argv, timeout=timeout)
        if r.returncode != 0:
            raise Fail("`%s` failed (rc=%d): %s" % (" ".join(argv), r.returncode, (r.stderr or r.stdout).strip()))
        return r.stdout

    def prop(self, name, unit="blectld.service"):
        return self.sh("systemctl", "show", "-p", name, "--value", unit).stdout.strip()

    def wait_until(self, what, timeout, probe, interval=0.25):
        """Calls probe() until it returns something true; returns it, or fails after timeout s."""
        end = time.monotonic() + timeout
        while True:
            value = probe()
            if value:
                return value
            if time.monotonic() > end:
                raise Fail("%s: not within %ds" % (what, timeout))
            time.sleep(interval)

    def journal(self, since_cursor=None):
        """blectld's journal entries (as JSON objects), after `since_cursor` if given."""
        argv = ["journalctl", "-u", "blectld.service", "-o", "json", "--no-pager"]
        if since_cursor:
            argv += ["--after-cursor", since_cursor]
        lines = self.sh(*argv).stdout.splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    def cursor(self):
        entries = self.journal()
        return entries[-1]["__CURSOR"] if entries else None

    def blectl(self, *verb, timeout=90, user=None):
        """blectl on the default socket; returns (rc, JSON or None, stderr)."""
        r = self.sh("blectl", "--json", *verb, timeout=timeout, user=user)
        try:
            obj = json.loads(r.stdout)
        except ValueError:
            obj = None
        return r.returncode, obj, r.stderr.strip()

    # ------------------------------------------------------------ the rig
    def set_temp(self, celsius):
        self.celsius = celsius
        with open(self.temp_file + ".new", "w") as f:
            f.write("%s\n" % celsius)
        os.rename(self.temp_file + ".new", self.temp_file)

    def start_bluez_and_peripheral(self):
        self.must("systemctl", "start", "bluetooth.service")
        addresses, _ = BlueZ().wait_adapters(["hci0", "hci1"], 25, power_if_needed_after=8)
        self.address = addresses["hci1"]
        self.set_temp(self.celsius)
        ready = os.path.join(RUN, "peripheral-A.ready")
        self.peripheral = Proc("peripheral-A", [
            PY, os.path.join(self.args.work, "peripheral", "thermometer-peripheral.py"), "--adapter", "hci1",
            "--temp-file", self.temp_file, "--unit", "F", "--ready-file", ready, "--readvertise", "2"],
            os.path.join(self.out, "peripheral-A.log"))
        self.wait_until("the peripheral registered", 30, lambda: os.path.exists(ready) or not self.peripheral.alive())
        if not self.peripheral.alive():
            raise SetupError("the peripheral exited at start, see peripheral-A.log")
        log("peripheral on hci1 (%s) advertising" % self.address)

    def fresh_reading(self, what, timeout=90):
        """A reading of the peripheral's current temperature through `blectl read`."""
        want = expected_raw(self.celsius, "F")

        def probe():
            rc, readings, _ = self.blectl("read", "--timeout", "30", timeout=60)
            if rc != 0 or not isinstance(readings, list):
                return None
            return next((r for r in readings if r.get("address") == self.address and r.get("raw") == want), None)

        reading = self.wait_until("%s: blectl read returning %r" % (what, want), timeout, probe, interval=1)
        if abs(reading.get("celsius", 0) - self.celsius) > 0.051:
            raise Fail("%s: celsius %s for %r" % (what, reading.get("celsius"), want))
        return reading

    def main_pid(self):
        return int(self.prop("MainPID") or 0)

    def main_status(self):
        """/proc/MAINPID/status of blectld as a dict of its fields."""
        with open("/proc/%d/status" % self.main_pid()) as f:
            return dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)

    def main_uid(self):
        return int(self.main_status()["Uid"].split()[0])

    def main_groups(self):
        return self.main_status()["Groups"].split()

    def bluetooth_gid(self):
        return self.must("getent", "group", "bluetooth").split(":")[2]

    def restarted(self, old_pid, what, timeout):
        """Waits for blectld to run again under a new pid (and be active); returns the pid."""
        return self.wait_until(
            what, timeout,
            lambda: self.main_pid() not in (0, old_pid) and self.prop("ActiveState") == "active" and self.main_pid())

    def drop_in(self, name, text):
        os.makedirs(DROPIN_DIR, exist_ok=True)
        path = os.path.join(DROPIN_DIR, name)
        if text is None:
            os.unlink(path)
        else:
            with open(path, "w") as f:
                f.write(text)
        self.must("systemctl", "daemon-reload")

    def set_config(self, text):
        with open(CONF, "w") as f:
            f.write(text)

    def install_documented_drop_in(self, name):
        """`install -D -m 0644 blectld-NAME.conf /etc/systemd/system/blectld.service.d/NAME.conf`
        and `systemctl daemon-reload`, as docs/NAME.md says, from the package's doc directory."""
        source = os.path.join(PACKAGE_DOCS, "blectld-%s.conf" % name)
        self.must("install", "-D", "-m", "0644", source, os.path.join(ADMIN_DROPIN_DIR, "%s.conf" % name))
        self.must("systemctl", "daemon-reload")

    def remove_documented_drop_in(self, name):
        path = os.path.join(ADMIN_DROPIN_DIR, "%s.conf" % name)
        if os.path.exists(path):
            os.unlink(path)
            self.must("systemctl", "daemon-reload")

    def mqtt_status(self):
        return (self.blectl("status")[1] or {}).get("mqtt") or {}


# ================================================================ scenarios
def install(g, res):
    debs = glob.glob(os.path.join(g.args.work, "deb", "blectl_*.deb"))
    if len(debs) != 1:
        raise SetupError("want one .deb in %s/deb, found %s" % (g.args.work, debs))
    # As the README says; apt needs the file where its sandbox user can read it.
    os.makedirs(RUN, exist_ok=True)
    deb = os.path.join(RUN, os.path.basename(debs[0]))
    g.must("cp", debs[0], deb)
    g.must("sh", "-c", "cd %s && apt install -y ./%s" % (RUN, os.path.basename(deb)), timeout=180)
    units = ("blectld.service", "blectld.socket")
    enabled = [g.sh("systemctl", "is-enabled", u).stdout.strip() for u in units]

    def active():  # Type=notify: active once blectld said READY=1
        states = [g.sh("systemctl", "is-active", u).stdout.strip() for u in units]
        return states if "activating" not in states else None
    states = g.wait_until("blectld started after the install", 60, active)
    if enabled != ["enabled", "enabled"] or states != ["active", "active"]:
        raise Fail("after install: enabled %s, active %s (want both enabled and started)" % (enabled, states))
    if CONF not in g.must("dpkg-query", "-W", "-f", "${Conffiles}", "blectl"):
        raise Fail("%s is not a conffile" % CONF)
    version = g.must("dpkg-query", "-W", "-f", "${Version}", "blectl").strip()
    for program in ("blectl", "blectld", "blectl-mock"):
        line = g.must(program, "--version").strip()
        if line != "%s %s" % (program, version):
            raise Fail("%s --version says %r, the package %s" % (program, line, version))
    for path in ("/usr/share/man/man1/blectl.1.gz", "/usr/share/man/man8/blectld.8.gz",
                 "/usr/share/man/man5/blectld.conf.5.gz", "/usr/share/man/man1/blectl-mock.1.gz",
                 "/usr/share/bash-completion/completions/blectl", "/usr/share/doc/blectl/copyright"):
        if not os.path.exists(path):
            raise Fail("the package did not install %s" % path)
    res["detail"] = "%s; units enabled and started; conffile; one version %s" % (os.path.basename(deb), version)
    # From here on a known state: stopped, told which adapter is the central's.
    g.must("systemctl", "stop", "blectld.service", "blectld.socket")
    g.set_config("adapter = hci0\n")


# What the unit must at least be rated (systemd-analyze's verdicts, best first: SAFE below
# 1.0, OK below 3.0, then MEDIUM, EXPOSED, UNSAFE).
SECURITY_VERDICTS = ("SAFE", "OK")
SECURITY_LINE = re.compile(r"Overall exposure level for (\S+): (\d+\.\d+) (\w+)")


def analyze_security(g, unit_file):
    """`systemd-analyze security UNIT` as an administrator runs it; the whole table saved in
    systemd-analyze-security.txt; returns (exposure, verdict, the overall line)."""
    r = g.sh("systemd-analyze", "security", "--no-pager", "blectld.service", timeout=120)
    with open(os.path.join(g.out, "systemd-analyze-security.txt"), "a") as f:
        f.write("==== systemd-analyze security blectld.service (%s), rc=%d\n%s%s\n"
                % (unit_file, r.returncode, r.stdout, r.stderr))
    m = SECURITY_LINE.search(r.stdout)
    if not m:
        raise Fail("systemd-analyze security blectld.service (%s) printed no overall exposure (rc=%d): %r"
                   % (unit_file, r.returncode, (r.stderr or r.stdout).strip()[-200:]))
    return float(m.group(2)), m.group(3), m.group(0)


def security(g, res):
    """`systemd-analyze security blectld.service` of the installed unit (the figure the README
    quotes), then with each drop-in the docs tell an administrator to install (docs/mqtt.md,
    docs/http.md, the README's adapter reset), one at a time. The unit must rate OK or better."""
    exposure, verdict, line = analyze_security(g, "the unit as installed")
    res["security"] = {"unit": {"exposure": exposure, "verdict": verdict, "line": line}}
    with_drop_ins = []
    for name in ("mqtt", "http", "adapter-reset"):
        g.install_documented_drop_in(name)
        try:
            e, v, _ = analyze_security(g, "with blectld-%s.conf" % name)
        finally:
            g.remove_documented_drop_in(name)
        res["security"][name] = {"exposure": e, "verdict": v}
        with_drop_ins.append("%s %.1f %s" % (name, e, v))
    systemd = g.sh("systemctl", "--version").stdout.splitlines()[0]
    res["detail"] = "%s (%s); with a drop-in: %s" % (line, systemd, ", ".join(with_drop_ins))
    if verdict not in SECURITY_VERDICTS:
        raise Fail("systemd-analyze security rates the unit %.1f %s, want %s" % (
            exposure, verdict, " or ".join(SECURITY_VERDICTS)))


def socket_activation(g, res):
    g.must("systemctl", "start", "blectld.socket")
    if g.prop("ActiveState") != "inactive":
        raise Fail("blectld.service is %s before any client came" % g.prop("ActiveState"))
    started = time.monotonic()
    reading = g.fresh_reading("first read after socket start")
    if g.prop("ActiveState") != "active" or g.prop("TriggeredBy") != "blectld.socket":
        raise Fail("blectld.service is %s (triggered by %r) after the read"
                   % (g.prop("ActiveState"), g.prop("TriggeredBy")))
    res["detail"] = "first read started blectld: %s = %r in %.1f s" % (
        reading["address"], reading["raw"], time.monotonic() - started)


def status_line(g, res):
    out = g.sh("systemctl", "status", "--no-pager", "blectld.service").stdout
    line = next((l.strip() for l in out.splitlines() if l.strip().startswith("Status:")), None)
    if not line or "hci0 poweredOn, 1 connected" not in line:
        raise Fail("no STATUS= line with the adapter and the link in `systemctl status`: %r" % line)
    res["detail"] = line


def journal_priorities(g, res):
    entries = g.journal()
    prefixed = [e["MESSAGE"] for e in entries if str(e.get("MESSAGE", "")).startswith("<")]
    if prefixed:
        raise Fail("journal messages still carry their <N> prefix: %r" % prefixed[:2])
    ready = [e for e in entries if str(e.get("MESSAGE", "")).startswith("ready: socket")]
    if not ready or ready[-1].get("PRIORITY") != "5":
        raise Fail("'ready: socket' not logged at notice (5): %r" % [e.get("PRIORITY") for e in ready])
    blectld = [e for e in entries if e.get("_COMM") == "blectld"]
    if any(e.get("PRIORITY") == "7" for e in blectld):
        raise Fail("debug lines in the journal at log_level info")
    priorities = sorted({e.get("PRIORITY") for e in blectld})
    res["detail"] = "%d lines from blectld, priorities %s; 'ready' at 5 (notice)" % (len(blectld), priorities)


def sandbox(g, res):
    uid = g.main_uid()
    groups = g.main_groups()
    bluetooth_gid = g.bluetooth_gid()
    user = g.must("getent", "passwd", str(uid)).split(":")[0]
    if user != "blectld" or bluetooth_gid not in groups:
        raise Fail("blectld runs as %s (uid %d) with groups %s (want the system user blectld in bluetooth, %s)"
                   % (user, uid, groups, bluetooth_gid))
    # D-Bus (the readings above came through BlueZ) and the socket work under the sandbox;
    # a member of the socket's group may use it, anyone else gets EX_NOPERM (77).
    g.must("useradd", "--no-create-home", "--groups", "bluetooth", "e2e-member")
    g.must("useradd", "--no-create-home", "e2e-outsider")
    member = g.blectl("status", user="e2e-member")
    outsider = g.blectl("status", user="e2e-outsider")
    if member[0] != 0 or outsider[0] != 77:
        raise Fail("blectl status: a bluetooth member got rc=%d, an outsider rc=%d %r (want 0 and 77)"
                   % (member[0], outsider[0], outsider[2]))
    res["detail"] = "user blectld (uid %d), groups %s; a bluetooth member's blectl rc 0, an outsider's rc 77 (%s)" % (
        uid, groups, outsider[2][:60])


def bus_view_of_blectld(g):
    """What dbus-daemon knows of blectld's connection (its groups decide the policy), and
    whether the user blectld without the group gets through to org.bluez from a bare unit."""
    pid = str(g.main_pid())
    names = [f[0] for f in (l.split() for l in g.sh("busctl", "--system", "--no-pager", "--no-legend",
                                                     "list").stdout.splitlines())
             if len(f) > 1 and f[0].startswith(":") and f[1] == pid]
    credentials = [g.sh("busctl", "--system", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus", "GetConnectionCredentials", "s", n).stdout.strip() for n in names]
    probe = g.sh("systemd-run", "--wait", "--pipe", "-p", "User=blectld", "/usr/bin/busctl", "--system",
                 "call", "org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
    return "dbus-daemon's credentials of %s: %s; user blectld alone, GetManagedObjects: rc %d %s" % (
        names, credentials, probe.returncode, " | ".join((probe.stderr + probe.stdout).strip().splitlines())[:200])


def without_group(g, res):
    """Debian 12's BlueZ policy lets everyone send to org.bluez (a `context="default"` allow);
    upstream's, and other distributions', only root, the console and the groups they name.
    The test takes that stance by removing the default allow from bluetooth.conf itself for
    the check (an extra file denying it does not work reliably: dbus-daemon reads an
    includedir's files in no defined order, and the run saw the extra deny read first and
    overridden), so that the bluetooth group is what lets blectld in."""
    cursor = g.cursor()
    with open(BLUEZ_POLICY) as f:
        debian_policy = f.read()
    strict_policy, removed = re.subn(r'<policy context="default">.*?</policy>', "", debian_policy, flags=re.S)
    if removed != 1:
        raise Fail("%s has %d default-context policies, expected Debian's one" % (BLUEZ_POLICY, removed))
    write_policy(g, strict_policy)
    g.drop_in("no-bluetooth-group.conf", "[Service]\nSupplementaryGroups=\n")
    try:
        g.must("systemctl", "restart", "blectld.service")
        groups = g.main_groups()
        if g.bluetooth_gid() in groups:
            raise Fail("SupplementaryGroups= did not take: blectld runs with groups %s (%s)"
                       % (groups, g.prop("DropInPaths")))
        try:
            g.wait_until("state 'unauthorized' without the bluetooth group", 30,
                         lambda: (g.blectl("status")[1] or {}).get("state") == "unauthorized")
        except Fail as e:
            raise Fail("%s; %s" % (e, bus_view_of_blectld(g)))
        messages = [e.get("MESSAGE") for e in g.journal(cursor) if e.get("PRIORITY") == "3"]
        if not any(REFUSED in str(m) for m in messages):
            raise Fail("no error-level (3) journal line with %r; errors: %r" % (REFUSED, messages))
        # The group alone, under the same strict policy, lets it in again.
        g.drop_in("no-bluetooth-group.conf", None)
        g.must("systemctl", "restart", "blectld.service")
        g.fresh_reading("with the group again, under the strict policy")
    finally:
        write_policy(g, debian_policy)
        if os.path.exists(os.path.join(DROPIN_DIR, "no-bluetooth-group.conf")):
            g.drop_in("no-bluetooth-group.conf", None)
            g.sh("systemctl", "restart", "blectld.service")
    res["detail"] = ("bluetooth.conf without its default allow: without the group state unauthorized and the "
                     "documented error at priority 3; with it, readings")


def write_policy(g, text):
    """Replaces BlueZ's D-Bus policy (renamed into place: dbus-daemon reloads on inotify and
    must never read half a file) and has dbus-daemon reload it."""
    with open(BLUEZ_POLICY + ".new", "w") as f:
        f.write(text)
    os.rename(BLUEZ_POLICY + ".new", BLUEZ_POLICY)
    g.must("systemctl", "reload", "dbus.service")


def watchdog(g, res):
    seconds = g.prop("WatchdogUSec")
    pid = g.main_pid()
    restarts = int(g.prop("NRestarts"))
    cursor = g.cursor()
    stopped = time.monotonic()
    os.kill(pid, signal.SIGSTOP)
    new_pid = g.restarted(pid, "blectld restarted after SIGSTOP (WatchdogSec=%s)" % seconds, 120)
    took = time.monotonic() - stopped
    if not any("Watchdog timeout" in str(e.get("MESSAGE")) for e in g.journal(cursor)):
        raise Fail("restarted, but systemd logged no 'Watchdog timeout'")
    if int(g.prop("NRestarts")) != restarts + 1:
        raise Fail("NRestarts %s, want %d" % (g.prop("NRestarts"), restarts + 1))
    g.set_temp(41.3)
    g.fresh_reading("after the watchdog restart")
    res["detail"] = "WatchdogSec=%s: pid %d frozen, pid %d running %.1f s later; reading again" % (
        seconds, pid, new_pid, took)


def kill9(g, res):
    pid = g.main_pid()
    restarts = int(g.prop("NRestarts"))
    killed = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    new_pid = g.restarted(pid, "blectld restarted after SIGKILL", 30)
    took = time.monotonic() - killed
    if int(g.prop("NRestarts")) != restarts + 1:
        raise Fail("NRestarts %s, want %d" % (g.prop("NRestarts"), restarts + 1))
    g.set_temp(39.9)
    g.fresh_reading("after kill -9")
    res["detail"] = "pid %d killed, pid %d running %.1f s later (Restart=on-failure); reading again" % (
        pid, new_pid, took)


def reload(g, res):
    pid = g.main_pid()
    cursor = g.cursor()
    g.set_config("adapter = hci0\nlog_level = debug\n")
    g.must("systemctl", "reload", "blectld.service")
    reloaded = "reloaded %s: log level debug" % CONF
    g.wait_until("the reload logged", 30,
                 lambda: any(reloaded in str(e.get("MESSAGE")) for e in g.journal(cursor)))
    # At debug, a client's connection is logged (at info it is not: see journal_priorities).
    g.blectl("status")

    def connection_logged_at_debug():
        entries = g.journal(cursor)
        logged = any(e.get("PRIORITY") == "7" and "connected" in str(e.get("MESSAGE")) for e in entries)
        return entries if logged else None
    entries = g.wait_until("a debug line (7) for blectl's connection after the reload", 30,
                           connection_logged_at_debug)
    notice = next(e for e in entries if "reloaded" in str(e.get("MESSAGE")))
    if notice.get("PRIORITY") != "5" or g.main_pid() != pid:
        raise Fail("reload: priority %s, pid %d -> %d (want 5, the same pid)"
                   % (notice.get("PRIORITY"), pid, g.main_pid()))
    debug = sum(1 for e in entries if e.get("PRIORITY") == "7")
    res["detail"] = "SIGHUP: %r at 5 (notice), then %d debug (7) lines, same pid" % (notice["MESSAGE"], debug)


def mqtt(g, res):
    """docs/mqtt.md: the unit alone allows no IP traffic, so blectld cannot reach a broker;
    with the package's drop-in installed as documented it connects and publishes readings.
    The broker is Debian's mosquitto in the guest (its own unit, listening on localhost)."""
    if g.sh("systemctl", "is-active", "mosquitto.service").stdout.strip() != "active":
        raise Fail("mosquitto.service is not active in the guest (the image's package set lacks it?)")
    conf = "adapter = hci0\nmqtt_url = mqtt://localhost\nmqtt_gateway = e2e\n"
    g.set_config(conf)
    g.must("systemctl", "restart", "blectld.service")
    blocked = g.wait_until("blectld's MQTT error under the bare unit", 30,
                           lambda: (lambda m: m if m.get("last_error") else None)(g.mqtt_status()))
    # RestrictAddressFamilies=AF_UNIX: socket(AF_INET) fails with EAFNOSUPPORT.
    if blocked.get("state") == "connected" or "Address family not supported" not in blocked["last_error"]:
        raise Fail("under the bare unit (RestrictAddressFamilies=AF_UNIX) MQTT is %r: %r, not EAFNOSUPPORT"
                   % (blocked.get("state"), blocked["last_error"]))
    g.fresh_reading("readings go on while MQTT cannot connect")
    # The drop-in, as docs/mqtt.md says; a subscriber waits for a reading of a new temperature.
    g.install_documented_drop_in("mqtt")
    sub_log = os.path.join(g.out, "mosquitto-sub.log")
    sub = Proc("mosquitto_sub", ["mosquitto_sub", "-h", "localhost", "-v", "-t", "blectl/#"], sub_log)
    try:
        g.set_temp(37.5)
        started = time.monotonic()
        g.must("systemctl", "restart", "blectld.service")
        want = expected_raw(g.celsius, "F")
        topic = "blectl/%s/state" % g.address.replace(":", "").lower()

        def published():
            if not sub.alive():
                raise Fail("mosquitto_sub exited: %s" % open(sub_log).read().strip()[-200:])
            for line in open(sub_log).read().splitlines():
                if line.startswith(topic + " "):
                    state = json.loads(line.split(" ", 1)[1])
                    if state.get("raw") == want and state.get("gateway") == "e2e":
                        return state
            return None
        state = g.wait_until("a state message with %r on %s" % (want, topic), 60, published, interval=0.5)
        took = time.monotonic() - started
    finally:
        sub.stop()
    status = g.mqtt_status()
    if status.get("state") != "connected":
        raise Fail("a reading arrived but blectl status says MQTT is %r" % status)
    res["detail"] = ("without the drop-in: %r (%s); with it: %s = %r on the broker %.1f s after the restart"
                     % (blocked.get("last_error"), blocked.get("state"), topic, state["raw"], took))


def http(g, res):
    """docs/http.md: under the bare unit http_listen fails at start with the documented
    error; with the package's drop-in the page's /metrics answers on localhost."""
    g.remove_documented_drop_in("mqtt")
    g.set_config("adapter = hci0\nhttp_listen = %s\n" % HTTP_LISTEN)
    cursor = g.cursor()
    g.sh("systemctl", "restart", "blectld.service")  # fails: blectld exits before READY=1
    hint = "http_listen; under systemd install systemd/blectld-http.conf"
    error = g.wait_until("the documented http_listen error under the bare unit", 30, lambda: next(
        (e for e in g.journal(cursor) if hint in str(e.get("MESSAGE"))), None))
    g.install_documented_drop_in("http")
    g.sh("systemctl", "reset-failed", "blectld.service")
    g.must("systemctl", "restart", "blectld.service")
    g.fresh_reading("with the HTTP drop-in")
    url = "http://%s/metrics" % HTTP_LISTEN
    metrics = g.must("/usr/bin/python3", "-c",
                     "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10)"
                     ".read().decode())", url)
    line = next((l for l in metrics.splitlines()
                 if l.startswith("blectl_temperature_celsius{") and g.address in l), None)
    if line is None or abs(float(line.rsplit(" ", 1)[1]) - g.celsius) > 0.051:
        raise Fail("%s has no blectl_temperature_celsius %.2f for %s: %r" % (url, g.celsius, g.address, line))
    res["detail"] = "without the drop-in: %r (priority %s); with it: %s" % (
        error.get("MESSAGE"), error.get("PRIORITY"), line)


def stop(g, res):
    cursor = g.cursor()
    peripheral_log = os.path.join(g.out, "peripheral-A.log")
    before = open(peripheral_log).read().count("StopNotify")
    g.must("systemctl", "stop", "blectld.service", "blectld.socket")
    status, result = g.prop("ExecMainStatus"), g.prop("Result")
    if status != "0" or result != "success":
        raise Fail("systemctl stop: exit status %s, result %s (want 0, success)" % (status, result))
    if os.path.exists(SOCK):
        raise Fail("%s is still there after the stop" % SOCK)
    if not any("received SIGTERM" in str(e.get("MESSAGE")) for e in g.journal(cursor)):
        raise Fail("blectld did not log the SIGTERM")
    g.wait_until("the peripheral saw StopNotify", 15,
                 lambda: open(peripheral_log).read().count("StopNotify") > before)
    res["detail"] = "exit 0 (Result=success), socket removed, peripheral unsubscribed (StopNotify)"


def diagnose(g):
    """After a failure: blectld's unit as systemd sees it, and whether its user (and, for
    comparison, a dynamic one: systemd issue #22737) reaches the system bus (diagnostics.log)."""
    probes = [
        ("systemctl", "status", "--no-pager", "blectld.service", "blectld.socket"),
        ("ls", "-la", "/run/blectl", "/run/private"),
        ("systemd-run", "--wait", "--pipe", "-p", "DynamicUser=yes", "/bin/sh", "-c",
         "id; getent passwd $(id -u); busctl --system list --no-pager | head -3"),
        ("systemd-run", "--wait", "--pipe", "-p", "User=blectld", "-p", "SupplementaryGroups=bluetooth",
         "/usr/bin/busctl", "--system", "tree", "org.bluez", "--no-pager"),
    ]
    with open(os.path.join(g.out, "diagnostics.log"), "a") as f:
        for argv in probes:
            try:
                r = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
                f.write("$ %s\nrc=%d\n%s%s\n" % (" ".join(argv), r.returncode, r.stdout, r.stderr))
            except subprocess.TimeoutExpired:
                f.write("$ %s\ntimed out\n" % " ".join(argv))


SCENARIOS = [
    ("install: apt install ./blectl_*.deb", install),
    ("systemd-analyze security", security),
    ("socket activation: first read", socket_activation),
    ("systemctl status: STATUS=", status_line),
    ("journal: priorities", journal_priorities),
    ("sandbox: system user, group, socket", sandbox),
    ("without the bluetooth group (strict policy)", without_group),
    ("watchdog: SIGSTOP", watchdog),
    ("kill -9: Restart=on-failure", kill9),
    ("systemctl reload (SIGHUP)", reload),
    ("MQTT: the unit, then its drop-in", mqtt),
    ("HTTP: the unit, then its drop-in", http),
    ("systemctl stop: clean exit", stop),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(RUN, exist_ok=True)
    t_suite = time.monotonic()
    results = []

    def save(status):
        with open(os.path.join(args.out, "results.json"), "w") as f:
            security = next((r["security"] for r in results if "security" in r), None)
            json.dump({"central": "blectl (.deb, systemd)", "results": results, "status": status,
                       "security": security, "suite_s": round(time.monotonic() - t_suite, 1)}, f, indent=1)

    g = Guest(args)
    for name, scenario in SCENARIOS:
        res = {"name": name}
        t = time.monotonic()
        log("---- %s" % name)
        try:
            scenario(g, res)
            if scenario is install:
                g.start_bluez_and_peripheral()
            res["status"] = "PASS"
        except SetupError as e:
            res.update(status="FAIL", detail=str(e))
            results.append(res)
            log("SETUP ERROR: %s" % e)
            save("SETUP")
            return 2
        except Fail as e:
            res.update(status="FAIL", detail=str(e))
        except Exception as e:  # a driver bug must not hang or hide the run
            import traceback
            traceback.print_exc()
            res.update(status="FAIL", detail="driver error: %r" % e)
        res["duration_s"] = round(time.monotonic() - t, 2)
        log("%s %s: %s" % (res["status"], name, res.get("detail", "")))
        if res["status"] == "FAIL":
            diagnose(g)
        results.append(res)
        save("RUNNING")
        if scenario is install and res["status"] == "FAIL":
            break  # nothing else can be judged without the package
    if g.peripheral:
        g.peripheral.stop(signal.SIGTERM, 5)
    failed = [r for r in results if r["status"] == "FAIL"]
    save("FAIL" if failed else "PASS")
    log("suite %s in %.1f s" % ("FAIL" if failed else "PASS", time.monotonic() - t_suite))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
