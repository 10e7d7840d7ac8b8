#!/usr/bin/python3
"""One emulated controller that can be removed on its own (scenario 15, issue 36).

btvirt -l4 holds its four controllers in one process: none of them can go alone. With -s,
btvirt also listens on /tmp/bt-server-le, and every connection there gets an emulated LE
controller of its own (a btdev) in the same process, on the same virtual radio as the -l
ones (btdev's advertising, scanning and connecting look across every btdev of the process).
This relay connects to that socket, creates a controller in the kernel through /dev/vhci
(the vendor packet 0xff 0x00: a primary controller; the kernel answers 0xff, the opcode
and the new index) and copies H4 packets both ways. When it exits, /dev/vhci closes and
the kernel unregisters the controller: a real removal (MGMT Index Removed, bluetoothd
drops /org/bluez/hciN).

btdev gives the controller of a server connection the address 00:AA:01:<slot>:00:42, the
slot being the first free one of btvirt's list (0-3 are the -l controllers'), so a relay
started again after the first one's connection has closed gets the same address back.

On SIGTERM or SIGINT: /dev/vhci is closed first (the host loses the controller without a
word, as when a dongle is pulled), then the relay sends btvirt an HCI Disconnect (reason
0x08, connection timeout) for each link its controller had, before closing the socket.
btvirt drops a destroyed btdev's links without telling the peer controllers; on a real
radio the peer sees the link's supervision timeout, and without that the peripheral's
kernel would keep a dead link (and its handle) for good.

--placeholder: only create a controller and never answer it: the kernel's setup of it
fails (HCI Reset times out) and it stays in the setup state holding its index, so the
next controller gets the index after it (the kernel gives the lowest free one).

Logs to stdout; writes the index (`hciN`) to --ready once the controller exists.
"""
import argparse
import os
import select
import signal
import socket
import struct
import sys
import time

HCI_COMMAND, HCI_ACL, HCI_SCO, HCI_EVENT, HCI_ISO = 0x01, 0x02, 0x03, 0x04, 0x05
EVT_DISCONNECT_COMPLETE, EVT_LE_META = 0x05, 0x3E
LE_CONN_COMPLETE, LE_ENHANCED_CONN_COMPLETE = 0x01, 0x0A
OP_DISCONNECT = 0x0406
REASON_CONNECTION_TIMEOUT = 0x08


def log(msg):
    print("[relay %.3f] %s" % (time.monotonic(), msg), flush=True)


def packet_length(buf):
    """The length of the H4 packet at the start of buf, or None while its header is short."""
    kind = buf[0]
    if kind == HCI_EVENT:
        return 3 + buf[2] if len(buf) >= 3 else None
    if kind == HCI_ACL:
        return 5 + struct.unpack_from("<H", buf, 3)[0] if len(buf) >= 5 else None
    if kind == HCI_SCO:
        return 4 + buf[3] if len(buf) >= 4 else None
    if kind == HCI_ISO:
        return 5 + (struct.unpack_from("<H", buf, 3)[0] & 0x3FFF) if len(buf) >= 5 else None
    raise ValueError("unknown H4 packet type 0x%02x from btvirt" % kind)


def track_links(pkt, links):
    """Keeps the set of the controller's connection handles from the events it sends."""
    if pkt[0] != HCI_EVENT or len(pkt) < 3:
        return
    code, body = pkt[1], pkt[3:]
    if code == EVT_LE_META and len(body) >= 4 and body[0] in (LE_CONN_COMPLETE, LE_ENHANCED_CONN_COMPLETE):
        if body[1] == 0:
            links.add(struct.unpack_from("<H", body, 2)[0] & 0x0FFF)
            log("link up: handle %d" % (struct.unpack_from("<H", body, 2)[0] & 0x0FFF))
    elif code == EVT_DISCONNECT_COMPLETE and len(body) >= 3 and body[0] == 0:
        links.discard(struct.unpack_from("<H", body, 1)[0] & 0x0FFF)


def create_controller():
    """Opens /dev/vhci and creates a primary controller; returns (fd, index)."""
    fd = os.open("/dev/vhci", os.O_RDWR)
    os.write(fd, bytes([0xFF, 0x00]))
    rsp = os.read(fd, 4)
    if len(rsp) != 4 or rsp[0] != 0xFF:
        raise SystemExit("vhci: unexpected answer %s" % rsp.hex())
    return fd, rsp[2] | rsp[3] << 8


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default="/tmp/bt-server-le")
    ap.add_argument("--ready", required=True, help="file to write hciN to once the controller exists")
    ap.add_argument("--placeholder", action="store_true")
    args = ap.parse_args()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))

    sock = None
    if not args.placeholder:
        # connected before the controller exists: the kernel sends HCI Reset at once, and a
        # reset unanswered for 2 s fails the controller's setup for good
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(args.server)
    fd, index = create_controller()
    log("controller hci%d created%s" % (index, " (placeholder: never answered)" if args.placeholder else ""))
    with open(args.ready + ".new", "w") as f:
        f.write("hci%d\n" % index)
    os.rename(args.ready + ".new", args.ready)
    if args.placeholder:
        while not stop:
            time.sleep(0.2)
        os.close(fd)
        log("hci%d closed" % index)
        return 0

    links = set()
    pending = b""
    while not stop:
        try:
            ready, _, _ = select.select([fd, sock], [], [], 0.5)
        except InterruptedError:
            continue
        if fd in ready:
            pkt = os.read(fd, 65536)
            if pkt and pkt[0] in (HCI_COMMAND, HCI_ACL):
                sock.sendall(pkt)
            elif pkt:
                log("dropped a packet of type 0x%02x from the kernel (btvirt takes commands and ACL)" % pkt[0])
        if sock in ready:
            data = sock.recv(65536)
            if not data:
                log("btvirt closed the connection")
                break
            pending += data
            while pending:
                n = packet_length(pending)
                if n is None or len(pending) < n:
                    break
                pkt, pending = pending[:n], pending[n:]
                track_links(pkt, links)
                os.write(fd, pkt)
    os.close(fd)
    log("hci%d closed (removed from the kernel); links %s" % (index, sorted(links)))
    for handle in sorted(links):
        sock.sendall(struct.pack("<BHBHB", HCI_COMMAND, OP_DISCONNECT, 3, handle, REASON_CONNECTION_TIMEOUT))
    time.sleep(0.3)     # btvirt reads the disconnects before it sees the socket close
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
