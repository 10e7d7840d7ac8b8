#!/usr/bin/python3
"""A stand-in for blectld + blectl, used only to validate the e2e rig.

It speaks the same command lines and the same JSON shapes as the real tools, so
the scenario driver runs unchanged against either:

  standin-central.py daemon --adapter hci0 --socket PATH [--log-level debug]
  standin-central.py [--socket PATH] read --json [--timeout S]
  standin-central.py [--socket PATH] watch --json
  standin-central.py [--socket PATH] status --json

The daemon is a small BlueZ central (python3-dbus + GLib): it scans, connects
every device that advertised the name "Thermometer", subscribes to the
temperature characteristic (either UUID spelling) and recovers from the rig's
faults (GATT app restart, bluetoothd stop/crash, adapter power off/on).

On top of the daemon's events (reading, adapter_state, connected, disconnected,
peripheral_seen) it emits rig-only events that let the driver check the rig
itself: gatt_info (the peer's GATT layout, descriptor texts, unit write),
gatt_removed / gatt_added (with the link state), bluez_gone / bluez_back (what
BlueZ sent before its name vanished). blectl has none of those; the driver only
looks at them with --central standin.

Socket protocol (private to the stand-in): one JSON request line
{"cmd": "read"|"watch"|"status", ...}; replies are JSON lines.
"""
import argparse
import datetime
import json
import os
import re
import signal
import socket
import sys
import time

DEFAULT_SOCKET = "/run/blectl/standin.sock"
SUFFIXES = ("710e-4a5b-8d75-3e5b444bc3cf", "710e-4a5b-8d75-3e5b444b3c3f")
SVC_UUIDS = tuple("00000001-" + s for s in SUFFIXES)
TEMP_UUIDS = tuple("00000002-" + s for s in SUFFIXES)
UNIT_UUIDS = tuple("00000003-" + s for s in SUFFIXES)
CUD_UUID = "00002901-0000-1000-8000-00805f9b34fb"
NAME = "Thermometer"
VALUE_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*([CF])\s*$")


def rfc3339_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")


# ============================================================== client side
def client(args):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(args.socket)
    except OSError as e:
        print(json.dumps({"error": "cannot reach the daemon at %s: %s" % (args.socket, e)}))
        return 1
    req = {"cmd": args.verb}
    if args.verb == "read":
        req["timeout"] = args.timeout
    s.sendall((json.dumps(req) + "\n").encode())
    f = s.makefile("r")
    if args.verb == "watch":
        for line in f:
            sys.stdout.write(line)
            sys.stdout.flush()
        return 0
    line = f.readline()
    if not line:
        print(json.dumps({"error": "daemon closed the connection"}))
        return 1
    obj = json.loads(line)
    print(json.dumps(obj))
    return 1 if isinstance(obj, dict) and "error" in obj else 0


# ============================================================== daemon side
def daemon(args):
    import dbus
    import dbus.mainloop.glib
    from gi.repository import GLib

    BLUEZ = "org.bluez"
    OM = "org.freedesktop.DBus.ObjectManager"
    PROPS = "org.freedesktop.DBus.Properties"
    ADAPTER = "org.bluez.Adapter1"
    DEVICE = "org.bluez.Device1"
    SERVICE = "org.bluez.GattService1"
    CHRC = "org.bluez.GattCharacteristic1"
    DESC = "org.bluez.GattDescriptor1"
    T0 = time.monotonic()
    debug = args.log_level == "debug"

    def log(msg, level="info"):
        if level == "debug" and not debug:
            return
        sys.stderr.write("[standin %8.3f] %s\n" % (time.monotonic() - T0, msg))
        sys.stderr.flush()

    def plain(v):
        if isinstance(v, (dbus.Array, list)):
            if v and all(isinstance(x, dbus.Byte) for x in v):
                return bytes(bytearray(v)).decode("ascii", "replace")
            return [plain(x) for x in v]
        if isinstance(v, (dbus.Dictionary, dict)):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, dbus.Boolean):
            return bool(v)
        if isinstance(v, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32,
                          dbus.Int64, dbus.UInt64)):
            return int(v)
        if isinstance(v, dbus.Double):
            return float(v)
        return str(v)

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    loop = GLib.MainLoop()
    apath = "/org/bluez/" + args.adapter
    NOOPT = dbus.Dictionary({}, signature="sv")   # introspect=False: say the signature

    # ---------------------------------------------------------- state
    objs = {}            # mirror: path -> {iface: {prop: plain value}}
    st = {"owner": None, "powered": None, "seq": 0, "disc_pending": False,
          "gone_saw_removed": False, "gone_saw_disconnected": False,
          "snapshot_pending": False}
    thermos = {}         # address -> per-device state (survives bluetoothd restarts)
    rig = {"seen": {}, "gatt_info": {}}   # rig-check material, served by `status`
    watchers = []        # sockets of watch clients
    pending_reads = []   # (socket, deadline)

    def emit(ev):
        st["seq"] += 1
        ev = dict(ev)
        ev.setdefault("time", rfc3339_now())
        ev["seq"] = st["seq"]
        line = (json.dumps(ev) + "\n").encode()
        log("event %s" % line.decode().strip(), "debug")
        for w in list(watchers):
            try:
                w.sendall(line)
            except OSError:
                watchers.remove(w)
                w.close()
        if ev["type"] == "reading":
            answer_reads()
        return ev

    def dev_state(addr):
        if addr not in thermos:
            thermos[addr] = {"path": None, "connecting": False, "next_try": 0.0,
                             "sub_path": None, "sub_pending": False,
                             "last_reading": None, "last_reading_t": 0.0,
                             "connected_since": None, "info_paths": set(),
                             "connected": False}
        return thermos[addr]

    def device_props(path):
        return objs.get(path, {}).get(DEVICE)

    def addr_of(path):
        d = device_props(path)
        return d.get("Address") if d else None

    # ---------------------------------------------------------- readings
    def on_value(path, raw):
        # Any temperature characteristic of a known thermometer counts, not only the
        # one we subscribed: after a reconnect BlueZ re-enables our old notify
        # session by itself and the peer's first value arrives BEFORE our own
        # StartNotify returns (measured in scenario 5).
        uuid = str(objs.get(path, {}).get(CHRC, {}).get("UUID", "")).lower()
        if uuid not in TEMP_UUIDS:
            return
        for addr, t in thermos.items():
            if t["path"] and path.startswith(t["path"] + "/"):
                m = VALUE_RE.match(raw)
                if not m:
                    log("unparsable value %r from %s" % (raw, addr))
                    return
                v, unit = float(m.group(1)), m.group(2)
                c = (v - 32.0) * 5.0 / 9.0 if unit == "F" else v
                t["last_reading_t"] = time.monotonic()
                ev = {"type": "reading", "address": addr, "name": NAME,
                      "celsius": round(c, 3), "raw": raw, "unit": unit}
                t["last_reading"] = emit(ev)
                return

    def answer_reads(force=False):
        now = time.monotonic()
        current = [t["last_reading"] for t in thermos.values()
                   if t["last_reading"] and t["connected"]]
        for item in list(pending_reads):
            sock, deadline = item
            if current:
                reply = current
            elif force or now >= deadline:
                reply = {"error": "no reading within the timeout"}
            else:
                continue
            pending_reads.remove(item)
            try:
                sock.sendall((json.dumps(reply) + "\n").encode())
            except OSError:
                pass
            sock.close()

    # ---------------------------------------------------------- BlueZ mirror
    def merge(path, ifaces):
        entry = objs.setdefault(str(path), {})
        for iface, props in ifaces.items():
            entry.setdefault(str(iface), {}).update(plain(props))

    def consider_device(path):
        d = device_props(path)
        if not d or d.get("Adapter") != apath:
            return
        addr = d.get("Address")
        if d.get("Name") == NAME and addr not in thermos:
            dev_state(addr)
            rig["seen"][addr] = emit({"type": "peripheral_seen", "address": addr, "name": NAME,
                                      "rssi": d.get("RSSI"), "tx_power": d.get("TxPower"),
                                      "uuids": d.get("UUIDs", []), "adapter": args.adapter})
        if addr in thermos:
            thermos[addr]["path"] = path
            connected = bool(d.get("Connected"))
            if connected != thermos[addr]["connected"]:
                set_connected(addr, connected)

    def set_connected(addr, connected):
        t = thermos[addr]
        t["connected"] = connected
        if connected:
            t["connected_since"] = time.monotonic()
            t["last_reading_t"] = time.monotonic()
            emit({"type": "connected", "address": addr, "name": NAME})
        else:
            t["sub_path"] = None
            t["sub_pending"] = False
            t["connected_since"] = None
            st["gone_saw_disconnected"] = True
            emit({"type": "disconnected", "address": addr, "name": NAME})

    def set_powered(p):
        if p == st["powered"]:
            return
        st["powered"] = p
        emit({"type": "adapter_state", "adapter": args.adapter,
              "state": "poweredOn" if p else "poweredOff"})
        if not p:
            st["disc_pending"] = False
            for addr, t in thermos.items():
                if t["connected"]:
                    set_connected(addr, False)
                if t["path"] in objs:        # the link is gone with the power
                    objs[t["path"]].get(DEVICE, {})["Connected"] = False

    def device_of_gatt(path):
        for addr, t in thermos.items():
            if t["path"] and (path + "/").startswith(t["path"] + "/") and path != t["path"]:
                return addr
        return None

    def on_ifaces_added(path, ifaces):
        path = str(path)
        merge(path, ifaces)
        if ADAPTER in ifaces and path == apath:
            log("adapter %s appeared" % path)
            set_powered(bool(objs[path][ADAPTER].get("Powered")))
        if DEVICE in ifaces:
            consider_device(path)
        if CHRC in ifaces:
            addr = device_of_gatt(path)
            uuid = str(ifaces[CHRC].get("UUID", "")).lower()
            if addr and uuid in TEMP_UUIDS:
                t = thermos[addr]
                emit({"type": "gatt_added", "address": addr, "path": path,
                      "connected": t["connected"]})

    def on_ifaces_removed(path, ifaces):
        path = str(path)
        if path == apath and ADAPTER in ifaces:
            st["gone_saw_removed"] = True
        entry = objs.get(path, {})
        if CHRC in ifaces:
            addr = device_of_gatt(path)
            if addr and str(entry.get(CHRC, {}).get("UUID", "")).lower() in TEMP_UUIDS:
                t = thermos[addr]
                emit({"type": "gatt_removed", "address": addr, "path": path,
                      "connected": t["connected"]})
                if t["sub_path"] == path:
                    t["sub_path"] = None
                    t["sub_pending"] = False
        if DEVICE in ifaces:
            for addr, t in thermos.items():
                if t["path"] == path:
                    if t["connected"]:
                        set_connected(addr, False)
                    t["path"] = None
                    t["connecting"] = False
        for i in ifaces:
            entry.pop(str(i), None)
        if not entry:
            objs.pop(path, None)

    def on_props_changed(iface, changed, invalidated, path=None):
        path = str(path)
        if path not in objs:
            return          # not in the snapshot yet; the snapshot will be newer
        entry = objs[path].setdefault(str(iface), {})
        entry.update(plain(changed))
        for name in invalidated:
            entry.pop(str(name), None)
        if iface == ADAPTER and path == apath and "Powered" in changed:
            set_powered(bool(changed["Powered"]))
        elif iface == DEVICE:
            consider_device(path)
        elif iface == CHRC and "Value" in changed:
            on_value(path, plain(changed["Value"]))

    def on_owner_changed(name, old, new):
        if name != BLUEZ:
            return
        if old and not new:
            log("org.bluez left the bus")
            emit({"type": "bluez_gone", "saw_adapter_removed": st["gone_saw_removed"],
                  "saw_disconnected": st["gone_saw_disconnected"]})
            st["owner"] = None
            objs.clear()
            set_powered(False)
            for t in thermos.values():
                t.update(path=None, connecting=False, sub_path=None, sub_pending=False,
                         info_paths=set())
        if new:
            log("org.bluez is on the bus (%s)" % new)
            st["owner"] = str(new)
            st["gone_saw_removed"] = False
            st["gone_saw_disconnected"] = False
            emit({"type": "bluez_back"})
            snapshot()

    def snapshot():
        if st["snapshot_pending"]:
            return
        st["snapshot_pending"] = True

        def ok(managed):
            st["snapshot_pending"] = False
            objs.clear()
            for p, i in managed.items():
                merge(p, i)
            if apath in objs:
                set_powered(bool(objs[apath][ADAPTER].get("Powered")))
            for p in list(objs):
                if DEVICE in objs[p]:
                    consider_device(p)
            log("snapshot: %d objects" % len(objs))

        def err(e):
            st["snapshot_pending"] = False
            log("GetManagedObjects failed: %s" % e)
        dbus.Interface(bus.get_object(BLUEZ, "/", introspect=False), OM).GetManagedObjects(
            reply_handler=ok, error_handler=err, timeout=10)

    # subscribe first, snapshot second
    bus.add_signal_receiver(on_ifaces_added, dbus_interface=OM,
                            signal_name="InterfacesAdded", bus_name=BLUEZ)
    bus.add_signal_receiver(on_ifaces_removed, dbus_interface=OM,
                            signal_name="InterfacesRemoved", bus_name=BLUEZ)
    bus.add_signal_receiver(on_props_changed, dbus_interface=PROPS,
                            signal_name="PropertiesChanged", path_keyword="path",
                            bus_name=BLUEZ)
    bus.add_signal_receiver(on_owner_changed, dbus_interface="org.freedesktop.DBus",
                            signal_name="NameOwnerChanged", arg0=BLUEZ)
    if bus.name_has_owner(BLUEZ):
        st["owner"] = bus.get_name_owner(BLUEZ)
        snapshot()

    # ---------------------------------------------------------- actions
    def iface(path, name):
        return dbus.Interface(bus.get_object(BLUEZ, path, introspect=False), name)

    def adapter_discovering():
        return bool(objs.get(apath, {}).get(ADAPTER, {}).get("Discovering"))

    def start_discovery():
        st["disc_pending"] = True

        def done(*_):
            st["disc_pending"] = False
            log("discovery on", "debug")

        def err(e):
            st["disc_pending"] = False
            if "InProgress" not in str(e.get_dbus_name()):
                log("StartDiscovery: %s" % e)
        a = iface(apath, ADAPTER)
        a.SetDiscoveryFilter(dbus.Dictionary({"Transport": dbus.String("le")}, signature="sv"),
                             reply_handler=lambda: a.StartDiscovery(
                                 reply_handler=done, error_handler=err, timeout=10),
                             error_handler=err, timeout=10)

    def stop_discovery(then):
        iface(apath, ADAPTER).StopDiscovery(reply_handler=lambda: then(),
                                            error_handler=lambda e: then(), timeout=10)

    def connect(addr):
        t = thermos[addr]
        t["connecting"] = True
        path = t["path"]

        def done(*_):
            t["connecting"] = False
            # the connect race: Connected=true may never be signalled; ask.
            try:
                c = bool(iface(path, PROPS).Get(DEVICE, "Connected", timeout=5))
            except dbus.DBusException:
                c = False
            if path in objs and DEVICE in objs[path]:
                objs[path][DEVICE]["Connected"] = c
                consider_device(path)
            log("Connect(%s) returned; Connected=%s" % (addr, c))

        def err(e):
            t["connecting"] = False
            t["next_try"] = time.monotonic() + 2.0
            log("Connect(%s) failed: %s: %s" % (addr, e.get_dbus_name(), e))

        def go():
            log("connecting %s" % addr)
            iface(path, DEVICE).Connect(reply_handler=done, error_handler=err, timeout=25)
        stop_discovery(go)      # connecting while scanning is less reliable

    def find_chars(addr):
        t = thermos[addr]
        base = t["path"] + "/"
        temp = unit = svc = None
        for p, i in objs.items():
            if not p.startswith(base):
                continue
            if CHRC in i:
                u = str(i[CHRC].get("UUID", "")).lower()
                if u in TEMP_UUIDS:
                    temp = p
                elif u in UNIT_UUIDS:
                    unit = p
            if SERVICE in i and str(i[SERVICE].get("UUID", "")).lower() in SVC_UUIDS:
                svc = p
        return svc, temp, unit

    def subscribe(addr, temp_path):
        t = thermos[addr]
        t["sub_pending"] = True
        chrc = iface(temp_path, CHRC)

        def ok(*_):
            t["sub_pending"] = False
            t["sub_path"] = temp_path
            t["last_reading_t"] = time.monotonic()
            log("StartNotify ok on %s" % temp_path)

        def err(e):
            t["sub_pending"] = False
            t["next_try"] = time.monotonic() + 1.0
            log("StartNotify on %s failed: %s" % (temp_path, e))
        log("subscribing %s" % temp_path)
        chrc.StartNotify(reply_handler=ok, error_handler=err, timeout=10)

    def gatt_info(addr, svc, temp, unit):
        """Rig check material: the peer's GATT layout, as BlueZ shows it."""
        t = thermos[addr]
        if addr in rig["gatt_info"] or t["info_paths"]:
            return          # once per peripheral: the unit write must not race readings
        t["info_paths"].add(temp)
        info = {"type": "gatt_info", "address": addr, "temp_path": temp,
                "service_uuid": objs[svc][SERVICE]["UUID"] if svc else None,
                "chars": {}, "descriptors": {}}
        try:
            for p in (temp, unit):
                if p:
                    c = objs[p][CHRC]
                    info["chars"][c["UUID"]] = sorted(c.get("Flags", []))
                    for dp, di in objs.items():
                        if DESC in di and di[DESC].get("Characteristic") == p and \
                                str(di[DESC].get("UUID")).lower() == CUD_UUID:
                            v = iface(dp, DESC).ReadValue(NOOPT, timeout=5)
                            info["descriptors"][c["UUID"]] = plain(v)
            if unit:
                u = iface(unit, CHRC)
                info["unit_value"] = plain(u.ReadValue(NOOPT, timeout=5))
                # write the other unit, read back, then restore the original
                before = info["unit_value"]
                other = "C" if before == "F" else "F"
                for letter, key in ((other, "unit_after_writing_other"),
                                    (before, "unit_after_restoring")):
                    u.WriteValue(dbus.Array([dbus.Byte(ord(letter))], signature="y"),
                                 dbus.Dictionary({"type": dbus.String("request")},
                                                 signature="sv"), timeout=5)
                    info[key] = plain(u.ReadValue(NOOPT, timeout=5))
            d = device_props(t["path"]) or {}
            info["device_name_now"] = d.get("Name")
        except dbus.DBusException as e:
            info["error"] = "%s: %s" % (e.get_dbus_name(), e)
        rig["gatt_info"][addr] = emit(info)

    def reconcile():
        now = time.monotonic()
        answer_reads()
        if not st["owner"] or apath not in objs or not st["powered"]:
            return True
        connecting = False
        for addr, t in thermos.items():
            if not t["path"] or t["path"] not in objs:
                continue
            d = objs[t["path"]][DEVICE]
            if t["connecting"]:
                connecting = True
                continue
            if not t["connected"]:
                if now >= t["next_try"]:
                    connect(addr)
                    connecting = True
                continue
            if not d.get("ServicesResolved"):
                if now - (t["connected_since"] or now) > 20:
                    log("%s: ServicesResolved never came; disconnecting" % addr)
                    iface(t["path"], DEVICE).Disconnect(
                        reply_handler=lambda: None, error_handler=lambda e: None, timeout=10)
                    t["connected_since"] = now
                continue
            svc, temp, unit = find_chars(addr)
            if not temp:
                continue        # GATT app gone (restarting); it comes back at new paths
            if args.rig_info:
                gatt_info(addr, svc, temp, unit)
            if args.bug == "subscribe-once" and t.get("subscribed_once"):
                continue
            if t["sub_path"] != temp and not t["sub_pending"] and now >= t["next_try"]:
                t["subscribed_once"] = True
                subscribe(addr, temp)
            elif t["sub_path"] == temp and now - t["last_reading_t"] > 16:
                log("%s: no data for 16 s (watchdog); re-subscribing" % addr)
                t["sub_path"] = None
                iface(temp, CHRC).StopNotify(reply_handler=lambda: None,
                                             error_handler=lambda e: None, timeout=5)
        if not connecting and not adapter_discovering() and not st["disc_pending"]:
            start_discovery()
        return True

    # ---------------------------------------------------------- socket server
    sockdir = os.path.dirname(args.socket)
    if sockdir:
        os.makedirs(sockdir, exist_ok=True)
    if os.path.exists(args.socket):
        os.unlink(args.socket)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(args.socket)
    srv.listen(16)

    def on_client(sock):
        sock.settimeout(5)
        try:
            req = json.loads(sock.makefile("r").readline() or "{}")
        except (OSError, ValueError):
            sock.close()
            return
        cmd = req.get("cmd")
        if cmd is None:               # connected and left without a request (a probe)
            sock.close()
        elif cmd == "watch":
            sock.settimeout(10)
            watchers.append(sock)
        elif cmd == "read":
            pending_reads.append((sock, time.monotonic() + float(req.get("timeout") or 10)))
            answer_reads()
        elif cmd == "status":
            connected = [{"address": a, "name": NAME, "last_reading": t["last_reading"]}
                         for a, t in thermos.items() if t["connected"]]
            state = "poweredOn" if st["owner"] and st["powered"] else \
                ("poweredOff" if st["owner"] else "unknown")
            sock.sendall((json.dumps({"state": state, "connected": connected,
                                      "adapter": args.adapter, "rig": rig}) + "\n").encode())
            sock.close()
        else:
            sock.sendall(b'{"error": "unknown command"}\n')
            sock.close()

    def on_accept(*_):
        try:
            c, _ = srv.accept()
            on_client(c)
        except OSError as e:          # e.g. a client that connects and leaves at once
            log("client: %s" % e, "debug")
        return True

    GLib.io_add_watch(srv.fileno(), GLib.IO_IN, on_accept)
    GLib.timeout_add(500, reconcile)

    def stop():
        log("SIGTERM: exiting")
        loop.quit()
        return False
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, stop)
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGINT, stop)
    log("stand-in central on %s, socket %s" % (args.adapter, args.socket))
    loop.run()
    answer_reads(force=True)
    for w in watchers:
        w.close()
    srv.close()
    os.unlink(args.socket)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", default=DEFAULT_SOCKET)
    sub = ap.add_subparsers(dest="verb", required=True)
    d = sub.add_parser("daemon")
    d.add_argument("--adapter", required=True)
    d.add_argument("--socket", dest="dsocket", default=None)
    d.add_argument("--log-level", default="info")
    d.add_argument("--no-rig-info", dest="rig_info", action="store_false",
                   help="do not emit gatt_info (the rig-check probe of the GATT layout)")
    d.add_argument("--bug", choices=["subscribe-once"], default=None,
                   help="rig self-test: behave like a typical buggy reader (StartNotify "
                        "once per device, never again); the suite must catch it")
    for verb in ("read", "watch", "status"):
        p = sub.add_parser(verb)
        p.add_argument("--json", action="store_true")
        p.add_argument("--socket", dest="vsocket", default=None)
        if verb == "read":
            p.add_argument("--timeout", type=float, default=10)
    args = ap.parse_args()
    for k in ("dsocket", "vsocket"):
        if getattr(args, k, None):
            args.socket = getattr(args, k)
    if args.verb == "daemon":
        return daemon(args)
    return client(args)


if __name__ == "__main__":
    sys.exit(main())
