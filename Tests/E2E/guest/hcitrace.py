#!/usr/bin/python3
"""Reads what `btmon -w` wrote (btsnoop, monitor format: every controller's HCI packets and
the kernel's management events, each record tagged with its controller index).

driver.py's scenario 8 checks with it that the central's controller really heard nothing
while the kernel and bluetoothd went on discovering: no LE Advertising Report, no
management `Discovering` change, while the peripheral kept enabling its advertising.
"""
import struct

HCI_TRACE = "/run/hci.btsnoop"    # guest-main.sh starts btmon on it
HEADER = 16                        # "btsnoop\0", version, datalink (2001: monitor)
RECORD = struct.Struct(">IIIIq")   # original length, included length, flags, drops, time
# Monitor opcodes (the low 16 bits of flags; the high 16 are the controller index).
COMMAND, EVENT, MGMT_COMMAND, MGMT_EVENT = 0x02, 0x03, 0x10, 0x11
LE_SET_ADV_ENABLE, LE_SET_SCAN_ENABLE = 0x200A, 0x200C
LE_META, LE_ADVERTISING_REPORT = 0x3E, 0x02
MGMT_DISCOVERING = 0x0013
MGMT_SET_POWERED, MGMT_STOP_DISCOVERY = 0x0005, 0x0024


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
