"""The rig's ThermoPro TP358 display clock (thermometer-peripheral.py --thermopro-clock-sensor).

What the TP358/TP393 firmware offers for its clock, as docs/sensor-memory.md ("ThermoPro
display clock") describes it and Sources/MockBlueZ/ThermoProClockGatt.swift models it:
service 00010203-0405-0607-0809-0a0b0c0d1910, characteristic ...2b11, written only: A5,
year - 2000, month, day, hour, minute, second, weekday (1 Monday ... 7 Sunday), 01 (24-hour
display), 5A, in local time. Each write is logged with the wall time it arrived at (the
driver's ground truth); anything but those 10 bytes is refused as invalid.
"""
import time

import dbus
import dbus.service

SERVICE_UUID = "00010203-0405-0607-0809-0a0b0c0d1910"
CLOCK_UUID = "00010203-0405-0607-0809-0a0b0c0d2b11"


def build_service(bus, path, log, peripheral):
    """The ...1910 service for an Application (peripheral = thermometer-peripheral's module)."""
    P = peripheral
    service = P.Service(bus, path, SERVICE_UUID)

    class Clock(P.Characteristic):
        @dbus.service.method(P.CHRC_IFACE, in_signature="aya{sv}")
        def WriteValue(self, value, options):
            data = bytes(bytearray(value))
            log("write clock %s (%s) wall=%.3f mono=%.3f"
                % (data.hex(), options.get("type", "?"), time.time(), time.monotonic()))
            if len(data) != 10 or data[0] != 0xA5 or data[9] != 0x5A:
                raise P.InvalidArgs()

    service.characteristics = [Clock(bus, path + "/char0000", CLOCK_UUID, ["write"], service)]
    return service
