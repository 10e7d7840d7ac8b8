#!/usr/bin/env python3
"""Regenerates linker/blectld.order: the functions release blectld runs in an ordinary life,
which the release link places together at the start of its code.

The kernel maps an executable's code in runs of pages around each page touched (64 KB
fault-around, or a whole large folio), so hot functions spread over 5.5 MB of code keep
most of it resident. Packed together they keep about 1.5 MB less (docs/benchmarks.md).

How: a uprobe on every function of a copy of release blectld (tracefs, so run as root),
then a session on the mock: start-up, three thermometers connected and notifying, the
`blectl` commands, idle. Every function hit at least once is listed, in address order
(which keeps each module's functions together). Regenerate after large code changes; a
stale file only costs memory, since the link ignores names it does not find. The file is
written as soon as the session ends; removing the 35,000 probes then takes many minutes
(the kernel waits for an RCU grace period per probe).

    swift build -c release && python3 bench/order_file.py --bin .build/release \\
        --sock-reader /tmp/blectl-bench/tools/sock_reader
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

TRACING = "/sys/kernel/tracing"
GROUP = "blectl_order"


def functions(executable: str) -> list:
    """(address, file offset, name) of every function in the executable's code segment."""
    segment = None
    for line in subprocess.run(["readelf", "-lW", executable], capture_output=True, text=True).stdout.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD" and "E" in fields[6:-1]:
            segment = (int(fields[2], 16), int(fields[1], 16), int(fields[4], 16))  # vaddr, offset, size
    vaddr, offset, size = segment
    found = {}
    nm = subprocess.run(["nm", "-S", "--defined-only", executable], capture_output=True, text=True).stdout
    for line in nm.splitlines():
        fields = line.split(maxsplit=3)
        if len(fields) != 4 or fields[2] not in "tTwW":
            continue
        address, length = int(fields[0], 16), int(fields[1], 16)
        if length and vaddr <= address < vaddr + size:
            found.setdefault(address, (address - vaddr + offset, fields[3]))
    return [(address, *found[address]) for address in sorted(found)]


def probe_all(executable: str, table: list) -> None:
    descriptor = os.open(f"{TRACING}/uprobe_events", os.O_WRONLY | os.O_APPEND)
    try:
        for index, (_, file_offset, _) in enumerate(table):
            os.write(descriptor, f"p:{GROUP}/f{index} {executable}:0x{file_offset:x}\n".encode())
    finally:
        os.close(descriptor)
    with open(f"{TRACING}/events/{GROUP}/enable", "w") as enable:
        enable.write("1")


def hit_indices(executable: str) -> set:
    hits = set()
    with open(f"{TRACING}/uprobe_profile") as profile:
        for line in profile:
            fields = line.split()
            if len(fields) >= 3 and fields[0] == executable and fields[1].startswith("f") and int(fields[2]) > 0:
                hits.add(int(fields[1][1:]))
    return hits


def remove_probes() -> None:
    """Removes this tool's probes (from an earlier run too), and no one else's."""
    if os.path.exists(f"{TRACING}/events/{GROUP}/enable"):
        with open(f"{TRACING}/events/{GROUP}/enable", "w") as enable:
            enable.write("0")
    with open(f"{TRACING}/uprobe_events") as events:
        names = [line.split()[0][2:] for line in events if line.startswith(f"p:{GROUP}/")]
    descriptor = os.open(f"{TRACING}/uprobe_events", os.O_WRONLY | os.O_APPEND)
    try:
        for name in names:
            os.write(descriptor, f"-:{name}\n".encode())
    finally:
        os.close(descriptor)


def ordinary_life(directory: str, bindir: str, sock_reader: str) -> None:
    """Start-up, three thermometers notifying, every `blectl` command, then idle."""
    options = argparse.Namespace(bin=bindir, sock_reader=sock_reader, c_subscriber=None)
    mock = ["--thermometers", "3", "--notify-interval", "200ms"]
    stack, consumer = bench.open_session(options, "blectld", 3, directory, mock, attempts=1)
    try:
        time.sleep(3)
        environment = dict(os.environ, BLECTL_SOCKET=consumer.socket)
        for command in (["status"], ["status", "--json"], ["read"], ["read", "--json"], ["scan", "--timeout", "2"]):
            subprocess.run([os.path.join(bindir, "blectl")] + command, env=environment,
                           stdout=subprocess.DEVNULL, check=True, timeout=60)
        time.sleep(6)
    finally:
        bench.close_session(stack, consumer)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="directory with release blectld, blectl and blectl-mock")
    parser.add_argument("--sock-reader", required=True)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "linker", "blectld.order"))
    args = parser.parse_args()
    directory = os.path.join(bench.WORK, "order")
    shutil.rmtree(directory, ignore_errors=True)
    bindir = os.path.join(directory, "bin")
    os.makedirs(bindir)
    for name in ("blectld", "blectl", "blectl-mock"):
        shutil.copy(os.path.join(args.bin, name), bindir)
    # Probes sit on the file, so a private copy keeps them away from any other blectld.
    executable = os.path.join(bindir, "blectld")
    table = functions(executable)
    remove_probes()
    try:
        probe_all(executable, table)
        ordinary_life(directory, bindir, args.sock_reader)
        hot = [table[index] for index in sorted(hit_indices(executable))]
        with open(args.out, "w") as out:
            out.write("# Generated by bench/order_file.py: the functions release blectld runs in an ordinary life,\n")
            out.write("# placed first in its code by the link (Package.swift). Regenerate after large changes.\n")
            for _, _, name in hot:
                out.write(name + "\n")
        bench.log(f"{len(hot)} of {len(table)} functions hit; wrote {os.path.normpath(args.out)}")
    finally:
        # The kernel waits for an RCU grace period per probe it disables: with 35,000
        # probes this takes many minutes, in one uninterruptible write.
        bench.log("removing the probes (slow: one RCU grace period each)")
        remove_probes()
    return 0


if __name__ == "__main__":
    sys.exit(main())
