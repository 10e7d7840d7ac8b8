#!/usr/bin/python3
"""Reads what `btmon -w` wrote (btsnoop, monitor format: every controller's HCI packets and
the kernel's management events, each record tagged with its controller index).

driver.py's scenario 8 checks with it that the central's controller really heard nothing
while the kernel and bluetoothd went on discovering: no LE Advertising Report, no
management `Discovering` change, while the peripheral kept enabling its advertising.
Scenario 9 checks with it that the central's controller only ever scanned passively and
connected nothing (`scanning`).
"""
import struct

HCI_TRACE = "/run/hci.btsnoop"    # guest-main.sh starts btmon on it
HEADER = 16                        # "btsnoop\0", version, datalink (2001: monitor)
RECORD = struct.Struct(">IIIIq")   # original length, included length, flags, drops, time
# Monitor opcodes (the low 16 bits of flags; the high 16 are the controller index).
COMMAND, EVENT, MGMT_COMMAND, MGMT_EVENT = 0x02, 0x03, 0x10, 0x11
LE_SET_ADV_ENABLE, LE_SET_SCAN_ENABLE = 0x200A, 0x200C
LE_SET_SCAN_PARAMETERS, LE_SET_EXT_SCAN_PARAMETERS = 0x200B, 0x2041
LE_SET_EXT_SCAN_ENABLE = 0x2042
LE_CREATE_CONNECTION, LE_EXT_CREATE_CONNECTION = 0x200D, 0x2043
LE_META, LE_ADVERTISING_REPORT, LE_EXT_ADVERTISING_REPORT = 0x3E, 0x02, 0x0D
MGMT_DISCOVERING = 0x0013
MGMT_SET_POWERED, MGMT_STOP_DISCOVERY = 0x0005, 0x0024
# Start Discovery, Start Service Discovery, Start Limited Discovery: what bluetoothd sends
# for a client's StartDiscovery (the kernel then scans actively).
MGMT_START_DISCOVERIES = (0x0023, 0x003A, 0x0041)


def end(path=HCI_TRACE):
    """Where the trace ends now: read from there to see only what comes later."""
    with open(path, "rb") as f:
        return max(f.seek(0, 2), HEADER)


def records(path, offset):
    """(controller index, monitor opcode, data) of every complete record from `offset`."""
    with open(path, "rb") as f:
        f.seek(offset)
        buf = f.read()
    pos = 0
    while pos + RECORD.size <= len(buf):
        _, length, flags, _, _ = RECORD.unpack_from(buf, pos)
        data = buf[pos + RECORD.size:pos + RECORD.size + length]
        if len(data) < length:
            return
        yield flags >> 16, flags & 0xFFFF, data
        pos += RECORD.size + length


def silence(path, offset, central, peripheral):
    """What the trace shows from `offset` until someone acts on the central: bluetoothd asks
    the kernel to stop discovery or to switch power, or the central's scanning is enabled.
    A dict: the central's advertising reports and management `Discovering` events, the
    peripheral's advertising enables, and what ended it (None: nothing yet)."""
    seen = {"reports": 0, "discovering_events": 0, "peripheral_adv_enables": 0, "ended_by": None}
    for index, opcode, data in records(path, offset):
        code = data[0] | data[1] << 8 if len(data) >= 2 else None
        mgmt = data[4] | data[5] << 8 if len(data) >= 6 else None
        if index == peripheral and opcode == COMMAND and code == LE_SET_ADV_ENABLE and data[3:4] == b"\x01":
            seen["peripheral_adv_enables"] += 1
        if index != central:
            continue
        if opcode == COMMAND and code == LE_SET_SCAN_ENABLE and data[3:4] == b"\x01":
            seen["ended_by"] = "LE Set Scan Enable on"
        elif opcode == MGMT_COMMAND and mgmt in (MGMT_SET_POWERED, MGMT_STOP_DISCOVERY):
            seen["ended_by"] = "mgmt Set Powered" if mgmt == MGMT_SET_POWERED else "mgmt Stop Discovery"
        elif opcode == EVENT and data[:1] == bytes([LE_META]) and data[2:3] == bytes([LE_ADVERTISING_REPORT]):
            seen["reports"] += 1
        elif opcode == MGMT_EVENT and mgmt == MGMT_DISCOVERING:
            seen["discovering_events"] += 1
        if seen["ended_by"]:
            break
    return seen


def scan_enabled(path, offset, central):
    """Whether the central's scanning was enabled (LE Set Scan Enable, on) after `offset`."""
    return any(index == central and opcode == COMMAND and data[:2] == b"\x0c\x20" and data[3:4] == b"\x01"
               for index, opcode, data in records(path, offset))


def scanning(path, offset, central):
    """How the central's controller scanned after `offset`: the scan types it was set up
    with (LE Set [Extended] Scan Parameters: 0 passive, 1 active), its scan enables, its
    advertising reports, the management discoveries bluetoothd started on it and the
    `Discovering` events (on) the kernel sent for it, and its connection attempts
    (LE [Extended] Create Connection)."""
    seen = {"scan_types": [], "scan_enables": 0, "reports": 0, "start_discovery": 0,
            "discovering_on": 0, "create_connection": 0}
    for index, opcode, data in records(path, offset):
        if index != central:
            continue
        code = data[0] | data[1] << 8 if len(data) >= 2 else None
        mgmt = data[4] | data[5] << 8 if len(data) >= 6 else None
        if opcode == COMMAND:
            if code == LE_SET_SCAN_PARAMETERS and len(data) > 3:
                seen["scan_types"].append(data[3])
            elif code == LE_SET_EXT_SCAN_PARAMETERS and len(data) > 6:
                seen["scan_types"].append(data[6])      # the first PHY's scan type
            elif code in (LE_SET_SCAN_ENABLE, LE_SET_EXT_SCAN_ENABLE) and data[3:4] == b"\x01":
                seen["scan_enables"] += 1
            elif code in (LE_CREATE_CONNECTION, LE_EXT_CREATE_CONNECTION):
                seen["create_connection"] += 1
        elif opcode == EVENT and data[:1] == bytes([LE_META]) and data[2:3] in (
                bytes([LE_ADVERTISING_REPORT]), bytes([LE_EXT_ADVERTISING_REPORT])):
            seen["reports"] += 1
        elif opcode == MGMT_COMMAND and mgmt in MGMT_START_DISCOVERIES:
            seen["start_discovery"] += 1
        elif opcode == MGMT_EVENT and mgmt == MGMT_DISCOVERING and data[7:8] == b"\x01":
            seen["discovering_on"] += 1             # address type, then discovering
    return seen
