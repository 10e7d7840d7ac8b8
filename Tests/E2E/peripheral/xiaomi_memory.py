"""The rig's Xiaomi stock-firmware sensor with hourly records and a clock
(thermometer-peripheral.py --stock-memory-sensor MODEL).

What Xiaomi's stock firmware on the LYWSD03MMC (and MHO-C401) and the LYWSD02 serves, as
docs/sensor-memory.md ("Xiaomi stock firmware") describes it and
Sources/MockBlueZ/StockMemoryGatt.swift models it, on a real bluetoothd. Service
ebe0ccb0-7a0a-4b0c-8a1a-6ff2997da3a6, all little-endian:

  ebe0ccb7  read, write   the clock: u32 seconds since 1970 (the LYWSD02 adds an int8 zone hour)
  ebe0ccb9  read          u32 the newest record's index, u32 the next index
  ebe0ccba  read, write   u32 the index records are sent from
  ebe0ccbc  notify        at StartNotify, the records from that index to the newest, oldest
                          first, one notification each, no end marker: u32 index, u32 time
                          (a whole hour of the sensor's clock), int16 the hour's highest
                          temperature (0.1 °C; the LYWSD02's 0.01 °C), u8 its highest humidity
                          %, int16 its lowest temperature, u8 its lowest humidity
  ebe0ccc1  read, notify  the live value: int16 0.01 °C, u8 humidity %, u16 mV (the LYWSD02's
                          first 3 bytes)

It starts with --stock-hours records already in its memory, one per whole hour of its clock
before now (the wall clock + --clock-offset until the clock is set), and records one more
at each whole hour of its clock while it runs. Every record is a JSON line of --record-log
(the driver's ground truth: its index, the sensor's stamp, the wall time it stands for, the
extremes and their midpoints, which blectl stores).
"""
import json
import struct
import time

import dbus
import dbus.service
from gi.repository import GLib


def uuid(prefix):
    return prefix + "-7a0a-4b0c-8a1a-6ff2997da3a6"


SERVICE_UUID = uuid("ebe0ccb0")
CLOCK_UUID, RANGE_UUID, INDEX_UUID = uuid("ebe0ccb7"), uuid("ebe0ccb9"), uuid("ebe0ccba")
RECORDS_UUID, LIVE_UUID = uuid("ebe0ccbc"), uuid("ebe0ccc1")
FIRST_INDEX = 100           # the memory was not new: indices go on from earlier records
MILLIVOLTS = 2950
HOUR = 3600


class Memory:
    """The clock and the hourly records."""

    def __init__(self, model, hours, clock_offset, record_log, log):
        self.model = model                  # "lywsd03mmc" or "lywsd02"
        self.steps = 100 if model == "lywsd02" else 10      # record units per °C
        self.offset = clock_offset          # sensor clock - wall clock, seconds
        self.records = []                   # oldest first: dicts
        self.record_log = record_log
        self.log = log
        self.send_from = 0
        open(record_log, "w").close()
        newest = int(self.now()) // HOUR * HOUR
        for back in range(hours, 0, -1):
            self.record(newest - back * HOUR)

    def now(self):
        return time.time() + self.offset

    def set_clock(self, value, zone=None):
        self.offset = value - time.time()
        self.log("clock set to %d%s (now %.1f s off the wall clock)"
                 % (value, "" if zone is None else " zone %+d h" % zone, self.offset))

    def clock_bytes(self):
        value = struct.pack("<I", int(self.now()) & 0xFFFFFFFF)
        return value + (b"\x00" if self.model == "lywsd02" else b"")

    def next_index(self):
        return FIRST_INDEX + len(self.records)

    def record(self, stamp):
        """The hour ending at `stamp`: extremes that differ from every other record's."""
        n = len(self.records)
        low = 180 + 7 * (n % 40)                      # tenths of a °C
        high = low + 4 + n % 5
        hum_low, hum_high = 40 + n % 30, 45 + n % 30 + n % 3
        scale = self.steps // 10
        rec = {"index": self.next_index(), "stamp": stamp, "wall": round(stamp - self.offset, 3),
               "high": high * scale, "low": low * scale, "hum_high": hum_high, "hum_low": hum_low,
               "celsius": round((high + low) / 20, 2), "humidity": (hum_high + hum_low) / 2}
        self.records.append(rec)
        with open(self.record_log, "a") as f:
            f.write(json.dumps(rec) + "\n")
        return rec

    def start(self):
        """One more record at each whole hour of the sensor's clock."""
        wait = HOUR - self.now() % HOUR
        GLib.timeout_add(max(1, int(wait * 1000)), self._hour)

    def _hour(self):
        rec = self.record(int(round(self.now())) // HOUR * HOUR)
        self.log("recorded index %d stamp %d" % (rec["index"], rec["stamp"]))
        self.start()
        return False

    @staticmethod
    def block(rec):
        return struct.pack("<IIhBhB", rec["index"], rec["stamp"], rec["high"], rec["hum_high"],
                           rec["low"], rec["hum_low"])


def dbus_bytes(data):
    return dbus.Array([dbus.Byte(b) for b in data], signature="y")


def build_service(bus, path, memory, live, log, pace_ms, peripheral):
    """The ebe0ccb0 service for an Application (peripheral = thermometer-peripheral's module;
    live() = the live value's (°C, humidity %))."""
    service = peripheral.Service(bus, path, SERVICE_UUID)
    P = peripheral
    service.characteristics = [
        Clock(P, bus, path + "/char0000", service, memory, log),
        Range(P, bus, path + "/char0001", service, memory),
        Index(P, bus, path + "/char0002", service, memory, log),
        Records(P, bus, path + "/char0003", service, memory, log, pace_ms),
        Live(P, bus, path + "/char0004", service, memory, live),
    ]
    return service


def Clock(P, bus, path, service, memory, log):
    class Clock(P.Characteristic):
        @dbus.service.method(P.CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
        def ReadValue(self, options):
            return dbus_bytes(memory.clock_bytes())

        @dbus.service.method(P.CHRC_IFACE, in_signature="aya{sv}")
        def WriteValue(self, value, options):
            data = bytes(bytearray(value))
            log("write clock %s (%s) mono=%.3f" % (data.hex(), options.get("type", "?"), time.monotonic()))
            if len(data) < 4:
                raise P.InvalidArgs()
            zone = struct.unpack("<b", data[4:5])[0] if len(data) > 4 else None
            memory.set_clock(struct.unpack("<I", data[:4])[0], zone)
    return Clock(bus, path, CLOCK_UUID, ["read", "write"], service)


def Range(P, bus, path, service, memory):
    class Range(P.Characteristic):
        @dbus.service.method(P.CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
        def ReadValue(self, options):
            nxt = memory.next_index()
            return dbus_bytes(struct.pack("<II", max(0, nxt - 1), nxt))
    return Range(bus, path, RANGE_UUID, ["read"], service)


def Index(P, bus, path, service, memory, log):
    class Index(P.Characteristic):
        @dbus.service.method(P.CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
        def ReadValue(self, options):
            return dbus_bytes(struct.pack("<I", memory.send_from))

        @dbus.service.method(P.CHRC_IFACE, in_signature="aya{sv}")
        def WriteValue(self, value, options):
            data = bytes(bytearray(value))
            log("write index %s (%s)" % (data.hex(), options.get("type", "?")))
            if len(data) != 4:
                raise P.InvalidArgs()
            memory.send_from = struct.unpack("<I", data)[0]
    return Index(bus, path, INDEX_UUID, ["read", "write"], service)


def Records(P, bus, path, service, memory, log, pace_ms):
    class Records(P.Characteristic):
        def __init__(self):
            P.Characteristic.__init__(self, bus, path, RECORDS_UUID, ["notify"], service)
            self.download = None

        @dbus.service.method(P.CHRC_IFACE)
        def StartNotify(self):
            log("StartNotify(ebe0ccbc) mono=%.3f" % time.monotonic())
            self.stop()
            todo = [r for r in memory.records if r["index"] >= memory.send_from]
            state = {"sent": 0, "t0": time.monotonic()}

            def tick():
                if state["sent"] == len(todo):
                    log("download from index %d: %d records sent in %.3f s mono=%.3f"
                        % (memory.send_from, state["sent"], time.monotonic() - state["t0"], time.monotonic()))
                    self.download = None
                    return False
                self.PropertiesChanged(P.CHRC_IFACE, {"Value": dbus_bytes(Memory.block(todo[state["sent"]]))}, [])
                state["sent"] += 1
                return True
            self.download = GLib.timeout_add(pace_ms, tick)

        @dbus.service.method(P.CHRC_IFACE)
        def StopNotify(self):
            log("StopNotify(ebe0ccbc) mono=%.3f" % time.monotonic())
            self.stop()

        def stop(self):
            if self.download is not None:
                GLib.source_remove(self.download)
                self.download = None
                log("download stopped by StopNotify")
    return Records()


def Live(P, bus, path, service, memory, live, every_ms=2000):
    """The live value; notified every `every_ms` while subscribed (the firmware's pace is
    about 6 s)."""
    class Live(P.Characteristic):
        def __init__(self):
            P.Characteristic.__init__(self, bus, path, LIVE_UUID, ["read", "notify"], service)
            self.timer = None

        def value(self):
            celsius, hum = live()
            value = struct.pack("<hBH", round(celsius * 100), round(hum), MILLIVOLTS)
            return dbus_bytes(value[:3] if memory.model == "lywsd02" else value)

        @dbus.service.method(P.CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
        def ReadValue(self, options):
            return self.value()

        def tick(self):
            self.PropertiesChanged(P.CHRC_IFACE, {"Value": self.value()}, [])
            return True

        @dbus.service.method(P.CHRC_IFACE)
        def StartNotify(self):
            if self.timer is None:
                self.timer = GLib.timeout_add(every_ms, self.tick)

        @dbus.service.method(P.CHRC_IFACE)
        def StopNotify(self):
            if self.timer is not None:
                GLib.source_remove(self.timer)
                self.timer = None
    return Live()
