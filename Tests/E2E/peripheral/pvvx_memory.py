"""The rig's pvvx sensor with a memory and a clock (thermometer-peripheral.py --memory-sensor).

What the pvvx/ATC firmware does, as docs/sensor-memory.md describes it (and
Sources/MockBlueZ/MemorySensor*.swift model it), on a real bluetoothd:

  service 0x1F10, characteristic 0x1F1F: read, write-without-response, notify
  35 cc cc [ss ss]  records ss+1 .. cc, newest first (1 = the newest when asked), each a
                    notification 35 nn nn + u32 time + s16 temp x100 + u16 hum x100 + u16 mV,
                    then 35 00 00; 35 00 00 stops a download under way
  23                the clock: 23 + u32 time now + u32 time last set (0 until set)
  23 tt tt tt tt    sets it; the same answer
  anything else     cc FF

Every --record-interval seconds (aligned to the middle of the interval on the wall clock,
so that a record's minute is not in doubt) it records the measurement of the step into its
memory, stamped with its own clock (the wall clock + --clock-offset until the clock is
set), whether or not anyone listens, and appends the record to --record-log as a JSON line
(the driver's ground truth: the wall time, the stamp, the values).
"""
import json
import struct
import time

import dbus
import dbus.service
from gi.repository import GLib

SERVICE_UUID = "00001f10-0000-1000-8000-00805f9b34fb"
COMMAND_UUID = "00001f1f-0000-1000-8000-00805f9b34fb"
LOGGER, CLOCK = 0x35, 0x23
MILLIVOLTS = 2950


class Memory:
    """The clock, the records and the step's measurement."""

    def __init__(self, interval, clock_offset, record_log, log):
        self.interval = interval
        self.offset = clock_offset          # sensor clock - wall clock, seconds
        self.last_set = 0
        self.records = []                   # oldest first: dicts
        self.record_log = record_log
        self.log = log
        self.step = 0

    def now(self):
        return int(time.time() + self.offset) & 0xFFFFFFFF

    def set_clock(self, value):
        self.offset = value - time.time()
        self.last_set = value
        self.log("clock set to %d (now %.1f s off the wall clock)" % (value, self.offset))

    def measurement(self):
        """The step's values: they move with each record, so every record is told apart."""
        return 20.0 + 0.01 * (self.step % 1000), 50.0 + 0.1 * (self.step % 400), MILLIVOLTS

    def start(self):
        """Records at every interval, at the middle of it on the wall clock."""
        wall = time.time()
        first = (wall // self.interval) * self.interval + self.interval / 2
        if first <= wall:
            first += self.interval
        GLib.timeout_add(max(1, int((first - wall) * 1000)), self._first)

    def _first(self):
        self.record()
        GLib.timeout_add(int(self.interval * 1000), self.record)
        return False

    def record(self):
        temp, hum, mv = self.measurement()
        rec = {"n": len(self.records) + 1, "wall": round(time.time(), 3), "stamp": self.now(),
               "celsius": round(temp, 2), "humidity": round(hum, 2), "mv": mv}
        self.records.append(rec)
        with open(self.record_log, "a") as f:
            f.write(json.dumps(rec) + "\n")
        self.log("recorded #%d stamp %d %.2f C %.2f %%" % (rec["n"], rec["stamp"], temp, hum))
        self.step += 1
        return True

    @staticmethod
    def block(rec):
        return struct.pack("<IhHH", rec["stamp"], round(rec["celsius"] * 100), round(rec["humidity"] * 100),
                           rec["mv"])


def dbus_bytes(data):
    return dbus.Array([dbus.Byte(b) for b in data], signature="y")


def build_service(bus, path, memory, log, pace_ms, peripheral):
    """The 0x1F10 service for an Application (peripheral = thermometer-peripheral's module)."""
    service = peripheral.Service(bus, path, SERVICE_UUID)
    service.characteristics = [CommandCharacteristic(bus, path + "/char0000", service, memory, log, pace_ms,
                                                     peripheral)]
    return service


def CommandCharacteristic(bus, path, service, memory, log, pace_ms, peripheral):
    Characteristic = peripheral.Characteristic
    CHRC_IFACE = peripheral.CHRC_IFACE

    class Command(Characteristic):
        def __init__(self):
            Characteristic.__init__(self, bus, path, COMMAND_UUID,
                                    ["read", "write-without-response", "notify"], service)
            self.notifying = False
            self.value = b""
            self.download = None        # GLib source of a download under way
            self.stats = {"downloads": 0, "records_sent": 0}

        def answer(self, data):
            self.value = bytes(data)
            if self.notifying:
                self.PropertiesChanged(CHRC_IFACE, {"Value": dbus_bytes(data)}, [])

        def stop_download(self):
            if self.download is not None:
                GLib.source_remove(self.download)
                self.download = None
                st = self.dl_state
                log("download stopped: %d records sent in %.3f s mono=%.3f"
                    % (st["sent"], time.monotonic() - st["t0"], time.monotonic()))

        @dbus.service.method(CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
        def ReadValue(self, options):
            return dbus_bytes(self.value)

        @dbus.service.method(CHRC_IFACE, in_signature="aya{sv}")
        def WriteValue(self, value, options):
            data = bytes(bytearray(value))
            log("write %s (%s)" % (data.hex(), options.get("type", "?")))
            if not data:
                return
            if data[0] == LOGGER and len(data) >= 3:
                self.stop_download()
                count = data[1] | data[2] << 8
                skip = data[3] | data[4] << 8 if len(data) >= 5 else 0
                if count > 0:
                    self.start_download(count, skip)
            elif data[0] == CLOCK:
                if len(data) > 1:
                    memory.set_clock(int.from_bytes(data[1:5].ljust(4, b"\0"), "little"))
                self.answer(bytes([CLOCK]) + struct.pack("<II", memory.now(), memory.last_set))
            else:
                self.answer(bytes([data[0], 0xFF]))

        def start_download(self, count, skip):
            snapshot = list(memory.records)
            self.stats["downloads"] += 1
            state = self.dl_state = {"number": skip + 1, "sent": 0, "t0": time.monotonic()}

            def tick():
                n = state["number"]
                if n > count or n > len(snapshot):
                    self.answer(bytes([LOGGER, 0, 0]))
                    log("download (35 %d, skip %d): %d records sent in %.3f s, then 35 00 00 mono=%.3f"
                        % (count, skip, state["sent"], time.monotonic() - state["t0"], time.monotonic()))
                    self.download = None
                    return False
                rec = snapshot[len(snapshot) - n]
                self.answer(bytes([LOGGER]) + struct.pack("<H", n) + Memory.block(rec))
                state["number"] += 1
                state["sent"] += 1
                self.stats["records_sent"] += 1
                return True
            self.download = GLib.timeout_add(pace_ms, tick)

        @dbus.service.method(CHRC_IFACE)
        def StartNotify(self):
            log("StartNotify(0x1F1F) mono=%.3f" % time.monotonic())
            self.notifying = True

        @dbus.service.method(CHRC_IFACE)
        def StopNotify(self):
            log("StopNotify(0x1F1F)")
            self.notifying = False
            self.stop_download()

    return Command()
