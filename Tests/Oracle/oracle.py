"""Holds blectl's advertisement decoders against Home Assistant's own parsers.

For every family Home Assistant has a parser for, the same advertisement is decoded both
ways and compared value by value: the libraries' published test advertisements
(vectors.json) and advertisements the mock's encoders make from random measurements
(`blectl-oracle generate`). Run by `make test-oracle` in a virtual environment with the
pinned libraries (requirements.txt); prints one line per disagreement and
`N passed, N failed`.

    python oracle.py TOOL [--random N] [--seed S]
"""

import argparse
import json
import re
import logging
import subprocess
import sys
import time
from pathlib import Path

from Cryptodome.Cipher import AES
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData
from bluemaestro_ble import BlueMaestroBluetoothDeviceData
from bthome_ble import BTHomeBluetoothDeviceData
from govee_ble import GoveeBluetoothDeviceData
from inkbird_ble import INKBIRDBluetoothDeviceData
from qingping_ble import QingpingBluetoothDeviceData
from habluetooth import BluetoothServiceInfoBleak
from ruuvitag_ble import RuuvitagBluetoothDeviceData
from sensorpush_ble import SensorPushBluetoothDeviceData
from switchbot import parse_advertisement_data as switchbot_parse
from thermobeacon_ble import ThermoBeaconBluetoothDeviceData
from thermopro_ble import ThermoProBluetoothDeviceData
from thermopro_ble.parser import tp96_battery
from xiaomi_ble import XiaomiBluetoothDeviceData

HERE = Path(__file__).resolve().parent

# Home Assistant's keys → blectl's JSON keys.
QUANTITIES = {
    "temperature": "celsius",
    "humidity": "humidity",
    "battery": "battery",
    "pressure": "pressure",
    "voltage": "voltage",
    "carbon_dioxide": "co2",
    "dew_point": "dew_point",
}
# Units Home Assistant's parsers report in that blectl does not (Ruuvi's voltage in mV).
SCALE = {"mV": 0.001}
# How far apart two values may be: blectl rounds to its steps (0.01 °C, 0.01 %, 0.01 hPa,
# 0.001 V); a library's value may be rounded to fewer places, or carry a binary floating-point
# error (127 × 0.35 = 44.449999… shown as 44.4 where blectl's exact 44.45 stands).
TOLERANCE = {"celsius": 0.0051, "humidity": 0.0051, "battery": 0, "pressure": 0.0051, "voltage": 0.00051, "co2": 0,
             "dew_point": 0.0051}


# A probe's temperature (govee-ble's meat thermometers, inkbird-ble's iBBQ), `temperature_probe_N` there;
# thermopro-ble's probes: `internal_temperature_probe_N` (the ambient, centre and end
# temperatures blectl leaves out) and `battery_probe_N`.
PROBE = re.compile(r"(?:internal_)?(temperature|battery)_probe_(\d+)")


def blectl_key(key):
    """blectl's key for a library's entity key: its quantity, or a probe's."""
    probe = PROBE.fullmatch(key)
    return f"{QUANTITIES[probe.group(1)]}_probe_{probe.group(2)}" if probe else QUANTITIES.get(key)


def tp96_battery_of_voltage(reading):
    """blectl's TP96x reading with the voltage it reports as thermopro-ble's battery
    percentage: the library's own curve of the millivolts, shown to whole percents."""
    return {re.sub(r"^voltage", "battery", name): round(tp96_battery(round(value * 1000))) if name.startswith("voltage")
            else value for name, value in reading.items()}


# Quantities a library works out of one blectl reports as sent, by the library's own function.
DERIVED = {"thermopro-probe": tp96_battery_of_voltage}


def within_rounding(ours, theirs, tolerance):
    """Whether two values agree within blectl's step or half a unit of the library's last place."""
    text = repr(theirs)
    places = len(text.split(".")[1]) if "." in text and "e" not in text else 0
    last_place = 0.5 * 10 ** -places if places <= 3 else 0
    return abs(ours - theirs) <= max(tolerance, last_place) + 1e-9

# The parser of each field, and what blectl deliberately reports otherwise (docs/advertisements.md).
# Formats read under any company id (the id is data) are looked up by family instead (NAMED).
PARSERS = {
    "s:fe95": (lambda key: XiaomiBluetoothDeviceData(bindkey=key), {"voltage"}),
    "s:fcd2": (lambda key: BTHomeBluetoothDeviceData(bindkey=key), set()),
    "s:181c": (lambda key: BTHomeBluetoothDeviceData(bindkey=key), set()),
    "s:181e": (lambda key: BTHomeBluetoothDeviceData(bindkey=key), set()),
    "m:ec88": (lambda key: GoveeBluetoothDeviceData(), set()),
    "m:0001": (lambda key: GoveeBluetoothDeviceData(), set()),
    "m:8801": (lambda key: GoveeBluetoothDeviceData(), set()),
    "m:0499": (lambda key: RuuvitagBluetoothDeviceData(), set()),
    "s:fdcd": (lambda key: QingpingBluetoothDeviceData(), set()),
    # Govee's meat thermometers, by the company ids govee-ble knows each model by.
    **{f"m:{company:04x}": (lambda key: GoveeBluetoothDeviceData(), set())
       for company in (0xF861, 0x388A, 0xEA42, 0xAAA2, 0xD14B, 0x2730, 0x67DD, 0xE02F, 0xF79F, 0x1B36, 0x4A32,
                       0x0332, 0x4C32, 0xAC63, 0x3022)},
    "m:0133": (lambda key: BlueMaestroBluetoothDeviceData(), set()),
    # thermobeacon-ble computes a battery percentage from the voltage the sensor sends.
    **{f"m:{company:04x}": (lambda key: ThermoBeaconBluetoothDeviceData(), {"battery"})
       for company in (0x10, 0x11, 0x14, 0x15, 0x18, 0x1B, 0x30)},
}
# Formats whose company id is data, the model told by the local name: the parser by family.
NAMED = {
    "inkbird": (lambda key: INKBIRDBluetoothDeviceData(), set()),
    "inkbird-ith": (lambda key: INKBIRDBluetoothDeviceData(), set()),
    "inkbird-bbq": (lambda key: INKBIRDBluetoothDeviceData(), set()),
    "thermopro": (lambda key: ThermoProBluetoothDeviceData(), set()),
    "thermopro-probe": (lambda key: ThermoProBluetoothDeviceData(), set()),
    **{family: (lambda key: SensorPushBluetoothDeviceData(), set())
       for family in ("sensorpush-ht1", "sensorpush-htw", "sensorpush-htpxw")},
}
# The service UUIDs SensorPush sensors advertise beside their data: the parser tells an HT1
# (named `s`) by its own.
SENSORPUSH_UUIDS = {"s": "ef090000-11d6-42ba-93b8-9dd7ec090aa9"}
SENSORPUSH_V2_UUID = "ef090000-11d6-42ba-93b8-9dd7ec090ab0"
# The devices of an advertisement blectl reads: govee-ble shows a B5178's remote sensor as a
# second device ("remote"), which blectl, one reading per address, leaves out.
DEVICES = {None, "primary"}
# Formats whose two fields are read together (hex `PAYLOAD/COMPANION`), by PySwitchbot's
# parse_advertisement_data, as Home Assistant's switchbot integration calls it.
SWITCHBOT = {"switchbot", "switchbot-outdoor", "switchbot-co2"}
# The mock's formats Home Assistant has a parser for (pvvx and atc1441 it has not), and the
# encrypted pvvx formats, held against the firmware's description (REFERENCES).
FORMATS = ["bthome", "bthome-encrypted", "ruuvi", "govee-h5075", "mibeacon", "mibeacon-encrypted", "mibeacon-objects",
           "qingping", "thermobeacon", "inkbird", "inkbird-ith", "thermopro", "switchbot", "switchbot-outdoor",
           "govee-h5051", "govee-h5100", "govee-h5106", "govee-b5178", "govee-h5179",
           "sensorpush-ht1", "sensorpush-htw", "sensorpush-htpxw", "bthome-v1", "bthome-v1-encrypted",
           "pvvx-encrypted", "atc1441-encrypted", "bluemaestro", "switchbot-co2", "qingping-co2",
           "govee-meat", "inkbird-bbq", "thermopro-probe", "ruuvi-air"]


def service_info(field, address, payload, name, family=""):
    """What Home Assistant's Bluetooth stack hands a parser for one advertisement."""
    kind, code = field.split(":")
    uuid = f"0000{code}-0000-1000-8000-00805f9b34fb"
    service_data = {uuid: payload} if kind == "s" else {}
    manufacturer_data = {int(code, 16): payload} if kind == "m" else {}
    # ThermoBeacons advertise their service UUID beside the data; the parser looks for it.
    uuids = list(service_data) + (["0000fff0-0000-1000-8000-00805f9b34fb"] if kind == "m" else [])
    if family.startswith("sensorpush"):
        uuids.append(SENSORPUSH_UUIDS.get(name, SENSORPUSH_V2_UUID))
    return BluetoothServiceInfoBleak(
        name=name, address=address, rssi=-60, manufacturer_data=manufacturer_data, service_data=service_data,
        service_uuids=uuids, source="oracle", device=BLEDevice(address, name, None),
        advertisement=None, connectable=False, time=time.monotonic(), tx_power=None)


def switchbot(case):
    """What PySwitchbot parses from a SwitchBot advertisement: service data 0xFD3D and
    manufacturer data 0x0969 together (the field's payload, then its companion)."""
    kind, _ = case["field"].split(":")
    parts = [bytes.fromhex(part) for part in case["hex"].split("/")]
    payload, companion = parts[0], (parts[1] if len(parts) > 1 else None)
    mfr, sd = (payload, companion) if kind == "m" else (companion, payload)
    service_data = {"0000fd3d-0000-1000-8000-00805f9b34fb": sd} if sd is not None else {}
    advertisement = AdvertisementData(
        local_name=case.get("name") or None, manufacturer_data={0x0969: mfr} if mfr is not None else {},
        service_data=service_data, service_uuids=list(service_data), tx_power=-127, rssi=-60, platform_data=())
    parsed = switchbot_parse(BLEDevice(case["address"], case.get("name", ""), None), advertisement)
    data = parsed.data.get("data", {}) if parsed else {}
    return {QUANTITIES.get(key, key): float(value) for key, value in data.items()
            if key in ("temperature", "humidity", "battery", "co2") and value is not None}


def pvvx_firmware(case):
    """The pvvx firmware's encrypted custom formats, which no Home Assistant library reads:
    decrypted here as the firmware's custom_beacon.c seals them (and Passive BLE Monitor
    opens them), with pycryptodomex, apart from blectl's Nettle."""
    payload, key = bytes.fromhex(case["hex"]), case.get("key")
    if len(payload) not in (8, 11) or not key:
        return {}
    address = bytes.fromhex(case["address"].replace(":", ""))
    nonce = address[::-1] + bytes([3 + len(payload), 0x16, 0x1A, 0x18, payload[0]])
    cipher = AES.new(bytes.fromhex(key), AES.MODE_CCM, nonce=nonce, mac_len=4)
    cipher.update(b"\x11")
    try:
        data = cipher.decrypt_and_verify(payload[1:-4], payload[-4:])
    except ValueError:
        return {}
    if len(data) == 6:
        return {"celsius": int.from_bytes(data[0:2], "little", signed=True) / 100,
                "humidity": int.from_bytes(data[2:4], "little") / 100, "battery": float(data[4])}
    return {"celsius": data[0] / 2 - 40, "humidity": data[1] / 2, "battery": float(data[2] & 0x7F)}


# Formats no Home Assistant library reads, held against a reference of their own instead.
REFERENCES = {"pvvx-encrypted": pvvx_firmware, "atc1441-encrypted": pvvx_firmware}


def home_assistant(case):
    """The values Home Assistant's parser shows for an advertisement, in blectl's keys."""
    if case["family"] in SWITCHBOT:
        return switchbot(case)
    if case["family"] in REFERENCES:
        return REFERENCES[case["family"]](case)
    make, ignored = NAMED.get(case["family"]) or PARSERS[case["field"]]
    key = bytes.fromhex(case["key"]) if case.get("key") else None
    info = service_info(case["field"], case["address"], bytes.fromhex(case["hex"]), case.get("name", ""),
                        case["family"])
    update = make(key).update(info)
    values = {}
    for device_key, value in update.entity_values.items():
        name = blectl_key(device_key.key)
        if not name or name in ignored or device_key.device_id not in DEVICES or not isinstance(value.native_value, (int, float)):
            continue
        unit = update.entity_descriptions[device_key].native_unit_of_measurement
        values[name] = float(value.native_value) * SCALE.get(str(unit), 1)
    return values


def blectl(tool, cases):
    """blectl's readings of the cases, one `decode` run for all of them."""
    lines = [" ".join([c["field"], c["address"], c["hex"], c.get("key") or "-"] + ([c["name"]] if c.get("name") else []))
             for c in cases]
    output = subprocess.run(
        [tool, "decode"], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
    results = [json.loads(line) for line in output.splitlines()]
    if len(results) != len(cases):
        sys.exit(f"oracle: blectl-oracle answered {len(results)} lines for {len(cases)}: {output}")
    return results


def compare(case, ours, theirs):
    """The disagreement between blectl's result and Home Assistant's values, or None."""
    mine = DERIVED.get(case["family"], dict)((ours or {}).get("reading", {}))
    if set(mine) != set(theirs):
        return f"quantities differ: blectl {ours}, Home Assistant {theirs}"
    for name, value in mine.items():
        if not within_rounding(value, theirs[name], TOLERANCE[name.split("_probe_")[0]]):
            return f"{name}: blectl {value}, Home Assistant {theirs[name]}"
    return None


def generated(tool, count, seed):
    """Advertisements the mock's encoders make from random measurements, every format."""
    cases = []
    for index, form in enumerate(FORMATS):
        output = subprocess.run(
            [tool, "generate", form, str(count), str(seed + index)], capture_output=True, text=True, check=True).stdout
        for line in output.splitlines():
            field, address, payload, key, name = line.split(" ", 4)
            cases.append({"family": form, "field": field, "address": address, "hex": payload,
                          "key": None if key == "-" else key, "name": name, "source": "mock encoder"})
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tool", help="the blectl-oracle binary")
    parser.add_argument("--random", type=int, default=200, help="random advertisements per format (default 200)")
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # the libraries log each refused frame

    published = json.loads((HERE / "vectors.json").read_text())
    for case in published:
        case["source"] = "published"
    cases = published + generated(args.tool, args.random, args.seed)
    passed, failed, tally = 0, 0, {}
    for case, ours in zip(cases, blectl(args.tool, cases)):
        problem = compare(case, ours, home_assistant(case))
        row = tally.setdefault((case["family"], case["source"]), [0, 0])
        if problem:
            failed += 1
            row[1] += 1
            print(f"DISAGREE {case['family']} ({case['source']}) {case['hex']}: {problem}")
        else:
            passed += 1
            row[0] += 1
    for (family, source), (good, bad) in sorted(tally.items()):
        print(f"{family:20} {source:12} {good} agree, {bad} disagree")
    print(f"oracle: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
