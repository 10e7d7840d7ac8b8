#!/usr/bin/python3
"""The project's test peripheral: a BLE "Thermometer" GATT server on BlueZ.

Reproduces the reference peripheral (cputemp on a Raspberry Pi, see
shared/docs/reference-peripheral.md) on one adapter of a real bluetoothd:

  advertisement  type peripheral, LocalName "Thermometer", IncludeTxPower,
                 NO service UUID advertised
  service        00000001-710e-4a5b-8d75-3e5b444bc3cf (primary)
    temperature  ...0002...  read, notify  text "112.5 F" (str(round(t, 1)) + " " + unit)
      0x2901     "CPU Temperature"
    unit         ...0003...  read, write   "F" or "C"; the write handler is the
                                           original's: str(value[0]).upper() compared
                                           with "C"/"F" (python3-dbus 1.3: str(dbus.Byte(67))
                                           is "C", so writing "C" switches the unit)
      0x2901     "Temperature Units (F or C)"
  notify         one value at StartNotify, then one every 5 s until StopNotify

The temperature (degrees Celsius) is read from --temp-file at every read and
notification, so a test controls it.

Rig-only behaviour (not in the original): --readvertise S re-registers the
advertisement every S seconds (default 2; 0 = never). BlueZ's emulated
controllers (btvirt) send ONE advertising report per scan/advertising enable and
never repeat it; re-registering re-enables advertising, which makes the
emulated radio repeat the advertisement roughly like a real one does.

Usage (run with /usr/bin/python3: it needs python3-dbus and python3-gi):
  thermometer-peripheral.py --adapter hci1 --temp-file /tmp/t [--unit F|C]
      [--uuid-spelling code|printed] [--readvertise 2] [--ready-file PATH]
      [--app-path /com/blectl/e2e/thermometer]
--sensor FORMAT_FILE makes it an advertising sensor instead (no GATT application, an
advertisement from the adapter's own address, without a name): its service data carries the temperature of
--temp-file, 55.5 % humidity and 77 % battery in the format named in FORMAT_FILE
(bthome, bthome-encrypted with the key of --bthome-key, pvvx, mibeacon-encrypted with the
bind key of --mibeacon-key, or inkbird: manufacturer data under the name "sps"; a second word
in FORMAT_FILE is the humidity instead), read again at every re-registration, each one a new
measurement (the sensor's counter one higher). `govee-meat P1 P2 P3 P4` is a Govee H5184 meat
thermometer instead (manufacturer data 0x1B36 under the name GVH5184_xxxx): the four probes' °C
(`-`: no probe plugged in, sent as 0xFFFF), two probes an advertisement, 1 and 2 then 3 and 4
in turn by measurement; the temperature file is not read.

--memory-sensor makes it a pvvx sensor with a memory and a clock (pvvx_memory.py): the pvvx
advertisement under the name ATC_xxxxxx (its values the memory's step, a new counter at every
re-registration) and a GATT application with the command characteristic 0x1F1F; it records
every --record-interval s with its clock at --clock-offset s from the wall clock, each record
a line of --record-log.

--stock-memory-sensor lywsd03mmc|lywsd02 makes it a Xiaomi sensor with its stock firmware
(xiaomi_memory.py): the encrypted MiBeacon of --sensor's format file with that model's product
id (0x055B, 0x045B), and a GATT application with the service ebe0ccb0: a clock at
--clock-offset s from the wall clock, --stock-hours hourly records already in its memory and
one more at each whole hour, each record a line of --record-log.

--thermopro-clock-sensor adds a ThermoPro TP358's display clock to --sensor's advertisement
(format thermopro: manufacturer data under the name TP358 (xxxx)): service ...1910 with the
write-only characteristic ...2b11 (thermopro_clock.py), each write logged.

--ready-file is created once the application (if any) AND the advertisement are
registered; it holds JSON: the pid and when each registration was answered
(time.monotonic(), CLOCK_MONOTONIC, the driver's clock). Exit status: 0 on SIGTERM/SIGINT, 1 on a registration failure or
when bluetoothd goes away (a peripheral does not outlive its bluetoothd here).
"""
import argparse
import json
import os
import signal
import sys
import time

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = "org.bluez"
OM_IFACE = "org.freedesktop.DBus.ObjectManager"
PROP_IFACE = "org.freedesktop.DBus.Properties"
GATT_MANAGER = "org.bluez.GattManager1"
ADV_MANAGER = "org.bluez.LEAdvertisingManager1"
SERVICE_IFACE = "org.bluez.GattService1"
CHRC_IFACE = "org.bluez.GattCharacteristic1"
DESC_IFACE = "org.bluez.GattDescriptor1"
ADV_IFACE = "org.bluez.LEAdvertisement1"

# The two spellings of the UUID suffix (reference-peripheral.md).
SUFFIX = {"code": "710e-4a5b-8d75-3e5b444bc3cf", "printed": "710e-4a5b-8d75-3e5b444b3c3f"}
CUD_UUID = "2901"
NOTIFY_MS = 5000

T0 = time.monotonic()


def log(msg):
    print("[peripheral %8.3f] %s" % (time.monotonic() - T0, msg), flush=True)


class InvalidArgs(dbus.exceptions.DBusException):
    _dbus_error_name = "org.freedesktop.DBus.Error.InvalidArgs"


class NotSupported(dbus.exceptions.DBusException):
    _dbus_error_name = "org.bluez.Error.NotSupported"


def ascii_bytes(text):
    return dbus.Array([dbus.Byte(b) for b in text.encode("ascii")], signature="y")


# ---------------------------------------------------------------- GATT objects
class Application(dbus.service.Object):
    def __init__(self, bus, path):
        self.path = path
        self.services = []
        dbus.service.Object.__init__(self, bus, path)

    @dbus.service.method(OM_IFACE, out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        out = {}
        for s in self.services:
            out[s.get_path()] = s.get_properties()
            for c in s.characteristics:
                out[c.get_path()] = c.get_properties()
                for d in c.descriptors:
                    out[d.get_path()] = d.get_properties()
        return out


class Service(dbus.service.Object):
    def __init__(self, bus, path, uuid):
        self.path = path
        self.uuid = uuid
        self.characteristics = []
        dbus.service.Object.__init__(self, bus, path)

    def get_path(self):
        return dbus.ObjectPath(self.path)

    def get_properties(self):
        return {SERVICE_IFACE: {
            "UUID": self.uuid, "Primary": dbus.Boolean(True),
            "Characteristics": dbus.Array([c.get_path() for c in self.characteristics],
                                          signature="o")}}

    @dbus.service.method(PROP_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != SERVICE_IFACE:
            raise InvalidArgs()
        return self.get_properties()[SERVICE_IFACE]


class Characteristic(dbus.service.Object):
    def __init__(self, bus, path, uuid, flags, service):
        self.path = path
        self.uuid = uuid
        self.flags = flags
        self.service = service
        self.descriptors = []
        dbus.service.Object.__init__(self, bus, path)

    def get_path(self):
        return dbus.ObjectPath(self.path)

    def get_properties(self):
        return {CHRC_IFACE: {
            "Service": self.service.get_path(), "UUID": self.uuid,
            "Flags": dbus.Array(self.flags, signature="s"),
            "Descriptors": dbus.Array([d.get_path() for d in self.descriptors],
                                      signature="o")}}

    @dbus.service.method(PROP_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != CHRC_IFACE:
            raise InvalidArgs()
        return self.get_properties()[CHRC_IFACE]

    @dbus.service.method(CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        raise NotSupported()

    @dbus.service.method(CHRC_IFACE, in_signature="aya{sv}")
    def WriteValue(self, value, options):
        raise NotSupported()

    @dbus.service.method(CHRC_IFACE)
    def StartNotify(self):
        raise NotSupported()

    @dbus.service.method(CHRC_IFACE)
    def StopNotify(self):
        raise NotSupported()

    @dbus.service.signal(PROP_IFACE, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class Descriptor(dbus.service.Object):
    def __init__(self, bus, path, chrc, text):
        self.path = path
        self.chrc = chrc
        self.text = text
        dbus.service.Object.__init__(self, bus, path)

    def get_path(self):
        return dbus.ObjectPath(self.path)

    def get_properties(self):
        return {DESC_IFACE: {"Characteristic": self.chrc.get_path(),
                             "UUID": CUD_UUID,
                             "Flags": dbus.Array(["read"], signature="s")}}

    @dbus.service.method(PROP_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != DESC_IFACE:
            raise InvalidArgs()
        return self.get_properties()[DESC_IFACE]

    @dbus.service.method(DESC_IFACE, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        return ascii_bytes(self.text)


class ThermometerService(Service):
    def __init__(self, bus, path, suffix, temp_file, unit):
        Service.__init__(self, bus, path, "00000001-" + suffix)
        self.temp_file = temp_file
        self.fahrenheit = unit == "F"
        temp = TempCharacteristic(bus, path + "/char0000", "00000002-" + suffix, self)
        temp.descriptors.append(Descriptor(bus, temp.path + "/desc0000", temp,
                                           "CPU Temperature"))
        units = UnitCharacteristic(bus, path + "/char0001", "00000003-" + suffix, self)
        units.descriptors.append(Descriptor(bus, units.path + "/desc0000", units,
                                            "Temperature Units (F or C)"))
        self.characteristics = [temp, units]

    def unit(self):
        return "F" if self.fahrenheit else "C"

    def text(self):
        """The value exactly as cputemp formats it: str(round(t, 1)) + " " + unit."""
        try:
            with open(self.temp_file) as f:
                celsius = float(f.read().strip())
        except (OSError, ValueError) as e:
            log("cannot read %s (%s); using 0.0" % (self.temp_file, e))
            celsius = 0.0
        t = celsius * 1.8 + 32 if self.fahrenheit else celsius
        return str(round(t, 1)) + " " + self.unit()


class TempCharacteristic(Characteristic):
    def __init__(self, bus, path, uuid, service):
        Characteristic.__init__(self, bus, path, uuid, ["notify", "read"], service)
        self.notifying = False
        self.timer = None
        self.sent = 0

    def notify_once(self):
        value = self.service.text()
        self.sent += 1
        log("notify #%d %r" % (self.sent, value))
        self.PropertiesChanged(CHRC_IFACE, {"Value": ascii_bytes(value)}, [])

    def tick(self):
        if not self.notifying:
            self.timer = None
            return False
        self.notify_once()
        return True

    @dbus.service.method(CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        value = self.service.text()
        log("ReadValue(temperature) -> %r" % value)
        return ascii_bytes(value)

    @dbus.service.method(CHRC_IFACE)
    def StartNotify(self):
        if self.notifying:
            log("StartNotify: already notifying")
            return
        log("StartNotify")
        self.notifying = True
        self.notify_once()                      # one value at once ...
        self.timer = GLib.timeout_add(NOTIFY_MS, self.tick)   # ... then every 5 s

    @dbus.service.method(CHRC_IFACE)
    def StopNotify(self):
        log("StopNotify")
        self.notifying = False
        if self.timer is not None:
            GLib.source_remove(self.timer)
            self.timer = None


class UnitCharacteristic(Characteristic):
    def __init__(self, bus, path, uuid, service):
        Characteristic.__init__(self, bus, path, uuid, ["read", "write"], service)

    @dbus.service.method(CHRC_IFACE, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        return ascii_bytes(self.service.unit())

    @dbus.service.method(CHRC_IFACE, in_signature="aya{sv}")
    def WriteValue(self, value, options):
        # The original's handler, as is. With python3-dbus 1.3 (Debian 12, Raspberry
        # Pi OS bookworm) str(dbus.Byte(67)) is "C", so the write takes effect.
        val = str(value[0]).upper() if len(value) else ""
        if val == "C":
            self.service.fahrenheit = False
        elif val == "F":
            self.service.fahrenheit = True
        log("WriteValue(unit) %r -> unit %s" % (bytes(bytearray(value)),
                                                      self.service.unit()))


# ---------------------------------------------------------------- advertisement
class Advertisement(dbus.service.Object):
    def __init__(self, bus, path):
        self.path = path
        dbus.service.Object.__init__(self, bus, path)

    def get_path(self):
        return dbus.ObjectPath(self.path)

    def props(self):
        # cputemp: type peripheral, local name, TX power; no ServiceUUIDs at all.
        return {"Type": "peripheral",
                "LocalName": dbus.String("Thermometer"),
                "IncludeTxPower": dbus.Boolean(True)}

    @dbus.service.method(PROP_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != ADV_IFACE:
            raise InvalidArgs()
        return self.props()

    @dbus.service.method(ADV_IFACE, in_signature="", out_signature="")
    def Release(self):
        log("advertisement released by BlueZ")


# ---------------------------------------------------------------- advertising sensor
BTHOME_UUID = "0000fcd2-0000-1000-8000-00805f9b34fb"
ENVIRONMENTAL_UUID = "0000181a-0000-1000-8000-00805f9b34fb"
MIBEACON_UUID = "0000fe95-0000-1000-8000-00805f9b34fb"
MIBEACON_PRODUCT = 0x0B48
STOCK_PRODUCTS = {"lywsd03mmc": 0x055B, "lywsd02": 0x045B}     # the MiBeacon product ids
GOVEE_H5184 = 0x1B36        # the company id govee-ble knows the four-probe H5184 by
HUMIDITY, BATTERY, MILLIVOLTS = 55.5, 77, 2950


class SensorAdvertisement(Advertisement):
    """A BTHome v2 (plain or encrypted) or pvvx sensor's broadcast, per docs/advertisements.md."""

    def __init__(self, bus, path, address, temp_file, format_file, key, mibeacon_key):
        Advertisement.__init__(self, bus, path)
        self.address = bytes(int(b, 16) for b in address.split(":"))
        self.temp_file, self.format_file, self.key = temp_file, format_file, key
        self.mibeacon_key = mibeacon_key
        self.mibeacon_product = MIBEACON_PRODUCT
        self.counter = 0
        self.payload = None
        self.adv_name = None        # LocalName of a manufacturer-data format (Inkbird, Govee)

    memory = None       # a pvvx_memory.Memory (--memory-sensor): its step's values, pvvx only
    name = None         # LocalName (the scan response), --memory-sensor only

    def measure(self):
        """A new measurement: the counter moves on, the files are read again."""
        self.counter += 1
        if self.memory is not None:
            fmt = "pvvx"
            celsius, hum, _ = self.memory.measurement()
        else:
            with open(self.format_file) as f:
                fmt, *rest = f.read().split()
            if fmt == "govee-meat":
                self.payload = self.govee_meat(rest)
                return
            with open(self.temp_file) as f:
                celsius = float(f.read().strip())
            hum = float(rest[0]) if rest else HUMIDITY
        centi = round(celsius * 100).to_bytes(2, "little", signed=True)
        humidity = round(hum * 100).to_bytes(2, "little")
        if fmt == "pvvx":
            uuid = ENVIRONMENTAL_UUID
            data = (self.address[::-1] + centi + humidity + MILLIVOLTS.to_bytes(2, "little")
                    + bytes([BATTERY, self.counter & 0xFF, 0x04]))
        elif fmt == "bthome":
            uuid = BTHOME_UUID
            data = bytes([0x40, 0x00, self.counter & 0xFF, 0x01, BATTERY, 0x02]) + centi + b"\x03" + humidity
        elif fmt == "bthome-encrypted":
            from cryptography.hazmat.primitives.ciphers.aead import AESCCM
            uuid = BTHOME_UUID
            counter = self.counter.to_bytes(4, "little")
            nonce = self.address + b"\xd2\xfc\x41" + counter
            sealed = AESCCM(self.key, tag_length=4).encrypt(
                nonce, bytes([0x01, BATTERY, 0x02]) + centi + b"\x03" + humidity, None)
            data = b"\x41" + sealed[:-4] + counter + sealed[-4:]
        elif fmt == "mibeacon-encrypted":
            # MiBeacon v5, encrypted with the bind key of --mibeacon-key (as
            # Sources/MockBlueZ/MiBeaconEncoder.swift): frame control 0x5858 (v5, objects,
            # the address inside, encrypted), product 0x0B48 (CGG1-ENCRYPTED), object 0x100D
            # (temperature and humidity, tenths). Its 32-bit counter starts at 0x1FC so that it
            # carries into the 3-byte extension within the first few measurements.
            from cryptography.hazmat.primitives.ciphers.aead import AESCCM
            uuid = MIBEACON_UUID
            counter = 0x1FC + self.counter
            mac, header = self.address[::-1], self.mibeacon_product.to_bytes(2, "little") + bytes([counter & 0xFF])
            extension = (counter >> 8).to_bytes(3, "little")
            tenths = round(celsius * 10).to_bytes(2, "little", signed=True) + round(hum * 10).to_bytes(2, "little")
            sealed = AESCCM(self.mibeacon_key, tag_length=4).encrypt(
                mac + header + extension, b"\x0d\x10\x04" + tenths, b"\x11")
            data = b"\x58\x58" + header + mac + sealed[:-4] + extension + sealed[-4:]
        elif fmt == "thermopro":
            # ThermoPro TP358 (name "TP358 (xxxx)"): manufacturer data whose company id is data:
            # a byte, the temperature in tenths (sint16), the humidity %, the battery level (2:
            # full), a byte (thermopro-ble's layout, as ThermoProProfile reads it).
            uuid = None
            data = (b"\xc2" + round(celsius * 10).to_bytes(2, "little", signed=True)
                    + bytes([round(hum), 0x02, 0x00]))
            self.adv_name = "TP358 (%s)" % self.address[-2:].hex().upper()
        elif fmt == "inkbird":
            # Inkbird IBS-TH1 (local name "sps"): 9 bytes of manufacturer data, the temperature
            # (sint16, hundredths) where BlueZ reads the company id, then humidity (hundredths),
            # three bytes, the battery and one byte.
            uuid = None
            data = centi + humidity + bytes([0, 0, 0, BATTERY, 0])
            self.adv_name = "sps"
        else:
            raise SystemExit("unknown sensor format %r in %s" % (fmt, self.format_file))
        self.payload = (uuid, data)
        log("sensor measurement %d: %s %.2f C -> %s" % (self.counter, fmt, celsius, data.hex()))

    def govee_meat(self, probes):
        """A Govee H5184's manufacturer data (as Sources/MockBlueZ/AdvertiserState.swift's
        goveeMeat): a counter byte, the header govee-ble skips, byte 6 the pair of probes (1:
        probes 1 and 2, 2: probes 3 and 4; in turn by measurement), then each probe's
        temperature (hundredths, big-endian; 0xFFFF when none is plugged in) after 0x86 and
        before its unset alarm (0xFFFF)."""
        if len(probes) != 4:
            raise SystemExit("govee-meat needs four probe temperatures in %s, not %r" % (self.format_file, probes))
        pair = 1 if self.counter % 2 else 2
        first, second = probes[2 * pair - 2], probes[2 * pair - 1]

        def centi(text):
            return b"\xff\xff" if text == "-" else round(float(text) * 100).to_bytes(2, "big", signed=True)
        frame = (bytes([self.counter & 0xFF, 0x01, 0x00, 0x01, 0x01, 0xE4, pair, 0x86]) + centi(first)
                 + b"\xff\xff\x86" + centi(second) + b"\xff\xff")
        self.adv_name = "GVH5184_" + self.address[-2:].hex().upper()
        log("sensor measurement %d: govee-meat probes %d, %d: %s, %s C -> %s"
            % (self.counter, 2 * pair - 1, 2 * pair, first, second, frame.hex()))
        return None, GOVEE_H5184.to_bytes(2, "little") + frame

    def props(self):
        uuid, data = self.payload
        # "peripheral", not "broadcast": Linux sends non-connectable advertising from a
        # fresh non-resolvable private address (hci_get_random_address's require_privacy),
        # so a broadcast would not come from hci2's address, which the payload and the
        # nonce carry. Real sensors advertise from one fixed address.
        if uuid is None:        # manufacturer data, its company id data's first two bytes
            company = int.from_bytes(data[:2], "little")
            return {"Type": "peripheral", "LocalName": dbus.String(self.adv_name),
                    "ManufacturerData": dbus.Dictionary(
                        {dbus.UInt16(company): dbus.Array(data[2:], signature="y")}, signature="qv")}
        props = {"Type": "peripheral",
                 "ServiceData": dbus.Dictionary({uuid: dbus.Array(data, signature="y")}, signature="sv")}
        if self.name:
            props["LocalName"] = dbus.String(self.name)
        return props


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--adapter", required=True, help="e.g. hci1")
    ap.add_argument("--temp-file", required=True, help="file holding degrees Celsius")
    ap.add_argument("--unit", choices=["F", "C"], default="F")
    ap.add_argument("--uuid-spelling", choices=sorted(SUFFIX), default="code")
    ap.add_argument("--readvertise", type=float, default=2.0,
                    help="re-register the advertisement every S s (0 = never)")
    ap.add_argument("--ready-file", default=None)
    ap.add_argument("--app-path", default="/com/blectl/e2e/thermometer")
    ap.add_argument("--sensor", metavar="FORMAT_FILE", default=None,
                    help="an advertising sensor in the format named in this file, no GATT")
    ap.add_argument("--bthome-key", default="231d39c1d7cc1ab1aee224cd096db932")
    ap.add_argument("--mibeacon-key", default="814aac74c4f17b6c1581e1ab87816b99")
    ap.add_argument("--hold-advertising", action="store_true",
                    help="register the advertisement only on SIGUSR1; the ready file is written "
                         "once the application is registered")
    ap.add_argument("--memory-sensor", action="store_true",
                    help="a pvvx sensor with a memory and a clock (pvvx_memory.py): advertises pvvx "
                         "as ATC_xxxxxx and serves the command characteristic 0x1F1F")
    ap.add_argument("--record-interval", type=float, default=60, help="--memory-sensor: seconds per record")
    ap.add_argument("--clock-offset", type=float, default=0, help="--memory-sensor: its clock minus the wall clock")
    ap.add_argument("--record-log", default="/run/e2e/pvvx-records.jsonl",
                    help="--memory-sensor: every record as a JSON line")
    ap.add_argument("--memory-pace-ms", type=int, default=15,
                    help="--memory-sensor: one record notification per this many ms")
    ap.add_argument("--stock-memory-sensor", choices=sorted(STOCK_PRODUCTS), default=None,
                    help="a Xiaomi stock-firmware sensor with hourly records and a clock (xiaomi_memory.py)")
    ap.add_argument("--thermopro-clock-sensor", action="store_true",
                    help="a ThermoPro TP358's display clock (thermopro_clock.py) beside --sensor's advertisement")
    ap.add_argument("--stock-hours", type=int, default=48,
                    help="--stock-memory-sensor: hourly records already in its memory")
    args = ap.parse_args()
    if args.memory_sensor:
        args.sensor = args.sensor or "/dev/null"   # the advertising sensor's path, format pvvx
    if args.ready_file and os.path.exists(args.ready_file):
        os.unlink(args.ready_file)

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    loop = GLib.MainLoop()
    status = {"rc": 0}

    def quit_with(rc, why):
        log("exiting rc=%d: %s" % (rc, why))
        status["rc"] = rc
        loop.quit()

    for sig in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, sig, lambda: quit_with(0, "signal") or False)

    apath = "/org/bluez/" + args.adapter
    adapter_obj = bus.get_object(BLUEZ, apath)
    gatt_mgr = dbus.Interface(adapter_obj, GATT_MANAGER)
    adv_mgr = dbus.Interface(adapter_obj, ADV_MANAGER)

    app = Application(bus, args.app_path)
    app.services.append(ThermometerService(bus, args.app_path + "/service0000",
                                           SUFFIX[args.uuid_spelling], args.temp_file,
                                           args.unit))
    if args.sensor:
        address = str(dbus.Interface(adapter_obj, PROP_IFACE).Get("org.bluez.Adapter1", "Address"))
        adv = SensorAdvertisement(bus, args.app_path + "/advertisement0", address, args.temp_file,
                                  args.sensor, bytes.fromhex(args.bthome_key),
                                  bytes.fromhex(args.mibeacon_key))
        if args.memory_sensor:
            import pvvx_memory
            memory = pvvx_memory.Memory(args.record_interval, args.clock_offset, args.record_log, log)
            adv.memory = memory
            adv.name = "ATC_" + address.replace(":", "")[-6:].upper()
            app.services = [pvvx_memory.build_service(bus, args.app_path + "/service0001", memory, log,
                                                      args.memory_pace_ms, sys.modules[__name__])]
            memory.start()
            log("memory sensor %s: a record every %ss, clock offset %ss, log %s"
                % (adv.name, args.record_interval, args.clock_offset, args.record_log))
        elif args.thermopro_clock_sensor:
            import thermopro_clock
            app.services = [thermopro_clock.build_service(bus, args.app_path + "/service0001", log,
                                                          sys.modules[__name__])]
            log("ThermoPro display clock: service %s" % thermopro_clock.SERVICE_UUID)
        elif args.stock_memory_sensor:
            import xiaomi_memory
            model = args.stock_memory_sensor
            adv.mibeacon_product = STOCK_PRODUCTS[model]
            memory = xiaomi_memory.Memory(model, args.stock_hours, args.clock_offset, args.record_log, log)

            def live():
                with open(args.temp_file) as f:
                    return float(f.read().strip()), HUMIDITY
            app.services = [xiaomi_memory.build_service(bus, args.app_path + "/service0001", memory, live, log,
                                                        args.memory_pace_ms, sys.modules[__name__])]
            memory.start()
            log("stock memory sensor %s: %d hourly records, clock offset %ss, log %s"
                % (model, len(memory.records), args.clock_offset, args.record_log))
        adv.measure()
        log("adapter %s (%s), advertising sensor, readvertise %ss" % (args.adapter, address, args.readvertise))
    else:
        adv = Advertisement(bus, args.app_path + "/advertisement0")
        log("adapter %s, service %s, unit %s, readvertise %ss"
            % (args.adapter, app.services[0].uuid, args.unit, args.readvertise))

    gatt_sensor = args.memory_sensor or args.stock_memory_sensor or args.thermopro_clock_sensor
    state = {"app": bool(args.sensor) and not gatt_sensor, "app_t": None, "adv": False, "adv_busy": False, "readv": 0, "readv_err": 0}

    def maybe_ready():
        if state["app"] and (state["adv"] or args.hold_advertising) and args.ready_file and \
                not os.path.exists(args.ready_file):
            # When each registration was answered, on CLOCK_MONOTONIC (the driver's clock):
            # the app's registration is the end of a GATT-app restart.
            tmp = args.ready_file + ".new"
            with open(tmp, "w") as f:
                json.dump({"pid": os.getpid(), "app_registered": state["app_t"],
                           "adv_registered": state.get("adv_t")}, f)
            os.rename(tmp, args.ready_file)
            log("READY (application + advertisement registered)")

    def app_ok():
        state["app"] = True
        state["app_t"] = time.monotonic()
        log("GATT application registered")
        maybe_ready()

    def app_err(e):
        quit_with(1, "RegisterApplication failed: %s" % e)

    def adv_ok():
        state["adv"] = True
        state.setdefault("adv_t", time.monotonic())
        state["adv_busy"] = False
        if state["readv"] == 0:
            log("advertisement registered")
        maybe_ready()

    def adv_err(e):
        state["adv_busy"] = False
        if not state["adv"] and state["readv"] == 0:
            quit_with(1, "RegisterAdvertisement failed: %s" % e)
        else:
            state["readv_err"] += 1
            log("re-registering the advertisement failed (%d so far): %s"
                % (state["readv_err"], e))

    def readvertise():
        # Unregister + register again: the controller re-enables advertising and
        # btvirt sends a fresh advertising report to every scanner.
        if state["adv_busy"] or not state["adv"]:
            return True
        state["adv_busy"] = True
        state["readv"] += 1

        def unreg_done(*_):
            state["adv"] = False
            if args.sensor:
                adv.measure()      # the next measurement, in the next registration
            adv_mgr.RegisterAdvertisement(adv.get_path(), {}, reply_handler=adv_ok,
                                          error_handler=adv_err, timeout=10)
        adv_mgr.UnregisterAdvertisement(adv.get_path(), reply_handler=unreg_done,
                                        error_handler=unreg_done, timeout=10)
        return True

    def bluez_owner(new_owner):
        if not new_owner:
            quit_with(1, "org.bluez left the bus (bluetoothd stopped)")

    bus.watch_name_owner(BLUEZ, bluez_owner)
    if not args.sensor or gatt_sensor:
        gatt_mgr.RegisterApplication(app.path, {}, reply_handler=app_ok,
                                     error_handler=app_err, timeout=20)
    def advertise():
        if not state.get("advertising"):
            state["advertising"] = True
            adv_mgr.RegisterAdvertisement(adv.get_path(), {}, reply_handler=adv_ok,
                                          error_handler=adv_err, timeout=20)
        return True

    if args.hold_advertising:
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGUSR1, advertise)
    else:
        advertise()
    if args.readvertise > 0:
        GLib.timeout_add(int(args.readvertise * 1000), readvertise)
    loop.run()
    log("re-advertised %d times (%d failures)" % (state["readv"], state["readv_err"]))
    return status["rc"]


if __name__ == "__main__":
    sys.exit(main())
