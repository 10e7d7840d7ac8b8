#!/usr/bin/python3
"""traces.py - turns a real-BlueZ run's bus log into the compact trace the mock is checked
against (what `make traces` runs after `make e2e`).

Usage: traces.py [--from LAST_RUN_TAR_GZ|LOG_DIR] [--out FILE] [--adapter hciN] [--stats]

Reads dbus-monitor.log and summary.json from the run's logs (default
/tmp/blectl-e2e/last-run.tar.gz, which every run writes, pass or fail) and writes, gzipped,
one JSON object per message (default Tests/Fixtures/traces/real-bluez-5.66-e2e.jsonl.gz):

  {"kind": "signal"|"call"|"return"|"error", "from": ROLE, "to": ROLE, "path": P,
   "interface": I, "member": M, "error": NAME, "reply_to": INDEX, "args": [VALUE, ...]}

VALUE is [signature, value]: a variant [["v"], VALUE], an array [sig, [VALUE...]], a dict
entry [sig, [KEY, VALUE]], bytes as hex. Normalised so that the file is the same for every
run of the same flow: unique bus names become roles (bluez, central, rig, peripheral, bus,
other), serials become the index of the call a reply answers, times are dropped, and the
rig's controller addresses become their controller (00:AA:01:01:00:01 -> <hci1>, in paths
dev_hci1), any other address <addr1>, <addr2>... in order of appearance. Only the central's
view is kept: its calls and their replies, the rig's marks (which name each scenario) and
the rig's own queries, and bluetoothd's signals about hci0 and its devices; the
peripheral side's traffic is left out. --stats prints how often each flow the mock
models happened (the connect race among them) instead of writing.
"""
import argparse
import gzip
import json
import os
import re
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest"))
import busmon  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "Fixtures", "traces", "real-bluez-5.66-e2e.jsonl.gz")
RIG_ADDRESS = re.compile(r"00([:_-])AA\1(01)\1(0[0-9])\1(?:00)\1(0[0-9])", re.I)
ADDRESS = re.compile(r"(?<![0-9A-F])[0-9A-F]{2}([:_-])[0-9A-F]{2}(?:\1[0-9A-F]{2}){4}(?![0-9A-F])", re.I)
CENTRAL_CALLS = {"SetDiscoveryFilter", "StartDiscovery", "Connect", "StartNotify"}
PERIPHERAL_CALLS = {"RegisterApplication", "RegisterAdvertisement"}


def read_run(tar_path):
    """(dbus-monitor.log text, summary dict) from a run's tarball (or its log directory)."""
    if os.path.isdir(tar_path):
        with open(os.path.join(tar_path, "dbus-monitor.log"), errors="replace") as f:
            log = f.read()
        try:
            with open(os.path.join(tar_path, "summary.json")) as f:
                return log, json.load(f)
        except OSError:
            return log, {}
    with tarfile.open(tar_path) as tar:
        files = {os.path.basename(m.name): m for m in tar.getmembers() if m.isfile()}
        if "dbus-monitor.log" not in files:
            raise SystemExit("traces: %s has no dbus-monitor.log" % tar_path)
        log = tar.extractfile(files["dbus-monitor.log"]).read().decode(errors="replace")
        summary = json.load(tar.extractfile(files["summary.json"])) if "summary.json" in files else {}
    return log, summary


def roles(messages):
    """Unique bus name -> role, from what each name did."""
    names = {"org.freedesktop.DBus": "bus", "org.bluez": "bluez"}
    for m in messages:
        if m.kind != "signal":
            continue
        if m.interface == busmon.MARK_IFACE:
            names.setdefault(m.sender, "rig")
        elif m.path.startswith("/org/bluez") or (m.path == "/" and m.interface == "org.freedesktop.DBus.ObjectManager"):
            names.setdefault(m.sender, "bluez")
    for m in messages:
        if m.kind == "method call" and m.member in PERIPHERAL_CALLS:
            names.setdefault(m.sender, "peripheral")
    for m in messages:
        if m.kind == "method call" and m.member in CENTRAL_CALLS and names.get(m.destination) == "bluez":
            names.setdefault(m.sender, "central")
    return names


class Addresses:
    """Rig controllers keep their index; any other address gets a number."""

    def __init__(self):
        self.others = {}

    def __call__(self, text):
        def one(m):
            rig = RIG_ADDRESS.fullmatch(m.group(0))
            if rig and rig.group(3) == rig.group(4):
                return "<hci%d>" % int(rig.group(3))
            key = re.sub(r"[:_-]", ":", m.group(0)).upper()
            return self.others.setdefault(key, "<addr%d>" % (len(self.others) + 1))
        return ADDRESS.sub(one, text)

    def path(self, path):
        return re.sub(r"dev_<([^>]+)>", r"dev_\1", self(path))


def value(v, addresses):
    sig, inner = v
    if sig == "v":
        return ["v", value(inner, addresses)]
    if sig in ("s", "o", "g"):
        return [sig, addresses.path(inner) if sig == "o" else addresses(inner)]
    if sig.startswith("{"):
        return [sig, [value(inner[0], addresses), value(inner[1], addresses)]]
    if sig.startswith("a") and sig != "ay" or sig.startswith("("):
        return [sig, [value(x, addresses) for x in inner]]
    return [sig, inner]


def about_central(m, who, adapter):
    """Whether a message belongs to the central's view (see the module's docstring)."""
    ends = (who.get(m.sender, "other"), who.get(m.destination, "other"))
    if m.kind == "signal":
        if ends[0] == "rig":
            return m.interface == busmon.MARK_IFACE
        if ends[0] == "bus":
            return m.member == "NameOwnerChanged" and m.arg(0) == "org.bluez"
        if ends[0] != "bluez":
            return False
        subject = m.arg(0) if m.member in ("InterfacesAdded", "InterfacesRemoved") else m.path
        root = "/org/bluez/" + adapter
        return isinstance(subject, str) and (subject == root or subject.startswith(root + "/"))
    return "central" in ends or ("rig" in ends and "bluez" in ends)


def normalise(messages, adapter="hci0"):
    who = roles(messages)
    addresses = Addresses()
    out, calls = [], {}
    for m in messages:
        if not about_central(m, who, adapter):
            continue
        kind = {"method call": "call", "method return": "return"}.get(m.kind, m.kind)
        entry = {"kind": kind, "from": who.get(m.sender, "other"), "to": who.get(m.destination, "")}
        if kind in ("signal", "call"):
            entry.update(path=addresses.path(m.path), interface=m.interface, member=m.member)
        if kind == "call":
            calls[(m.sender, m.serial)] = len(out)
        else:
            call = calls.get((m.destination, m.reply_serial))
            if kind != "signal":
                if call is None:
                    continue            # a reply to a call we left out
                entry["reply_to"] = call
                entry["member"] = out[call]["member"]
        if kind == "error":
            entry["error"] = m.error_name
        entry["args"] = [value(a, addresses) for a in m.args]
        out.append(entry)
    return out


def connect_flows(trace):
    """For every Connect the central made: whether BlueZ said Connected=true before its
    reply, after it, or never (the connect race), and whether the reply was an error."""
    flows = []
    for i, e in enumerate(trace):
        if e["kind"] != "call" or e["member"] != "Connect" or e["from"] != "central":
            continue
        reply = next((j for j in range(i + 1, len(trace)) if trace[j].get("reply_to") == i), None)
        said = None
        for j in range(i + 1, len(trace)):
            s = trace[j]
            if s["kind"] == "signal" and s["path"] == e["path"] and s["member"] == "PropertiesChanged" \
                    and any(k[1] == "Connected" and v[1][1] for k, v in (d[1] for d in s["args"][1][1])):
                said = "before" if reply is None or j < reply else "after"
                break
            if s["kind"] == "call" and s["from"] == "central" and s["path"] == e["path"] \
                    and s["member"] in ("Connect", "Disconnect"):
                break
        flows.append({"path": e["path"], "connected_signal": said or "never",
                      "reply": trace[reply]["kind"] if reply is not None else "none"})
    return flows


def main():
    ap = argparse.ArgumentParser(description="Record a real-BlueZ run's bus log as a compact trace.")
    ap.add_argument("--from", dest="source", default="/tmp/blectl-e2e/last-run.tar.gz")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--adapter", default="hci0", help="the central's adapter (default hci0)")
    ap.add_argument("--stats", action="store_true", help="print the connect flows, write nothing")
    args = ap.parse_args()
    log, summary = read_run(args.source)
    trace = normalise(busmon.parse(log), args.adapter)
    if args.stats:
        for flow in connect_flows(trace):
            print(json.dumps(flow))
        return
    if summary and summary.get("code") != 0:
        raise SystemExit("traces: %s is not a passing run (summary code %s): nothing written"
                         % (args.source, summary.get("code")))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    body = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in trace).encode()
    with open(args.out + ".tmp", "wb") as f:
        # mtime 0: the same trace gives the same bytes
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
            z.write(body)
    os.rename(args.out + ".tmp", args.out)
    print("traces: %d messages (%d bytes, %d gzipped) from %s -> %s"
          % (len(trace), len(body), os.path.getsize(args.out), args.source, os.path.relpath(args.out)))


if __name__ == "__main__":
    main()
