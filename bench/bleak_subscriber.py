"""What a user would otherwise write: Bleak scans for the thermometers, connects each,
starts notifications on the temperature characteristic and records what arrives.

    DBUS_SYSTEM_BUS_ADDRESS=ADDR python bleak_subscriber.py --devices N --out FILE

Prints "subscribed N" once every start_notify returned. On SIGTERM/SIGINT it writes FILE
(one line per notification: "ns device value", as c_subscriber does) and exits 0.
Records go to preallocated arrays, so the process's memory is Bleak's, not the log's.
"""

import argparse
import asyncio
import array
import signal
import sys
import time

from bleak import BleakClient, BleakScanner

TEMPERATURE_PREFIX = "00000002-710e-4a5b-8d75-3e5b444b"


def device_index(address: str) -> int:
    """DC:A6:32:00:HH:LL → thermometer index HHLL - 1."""
    parts = address.upper().split(":")
    return int(parts[4], 16) * 256 + int(parts[5], 16) - 1


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--max-records", type=int, default=400_000)
    options = parser.parse_args()

    times = array.array("Q", bytes(8 * options.max_records))
    devices = array.array("i", bytes(4 * options.max_records))
    values = bytearray(12 * options.max_records)
    count = 0

    def receiver(index: int):
        def on_value(_characteristic, data: bytearray) -> None:
            nonlocal count
            now = time.monotonic_ns()
            if count < options.max_records:
                times[count] = now
                devices[count] = index
                value = bytes(data[:12])
                values[12 * count : 12 * count + len(value)] = value
                count += 1

        return on_value

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)

    # Scan until every thermometer was seen.
    found: dict[str, object] = {}
    enough = asyncio.Event()

    def detected(device, advertisement) -> None:
        if device.address.upper().startswith("DC:A6:32:") and device.address not in found:
            found[device.address] = device
            if len(found) >= options.devices:
                enough.set()

    async with BleakScanner(detection_callback=detected):
        await asyncio.wait_for(enough.wait(), timeout=60)

    clients = []

    async def subscribe(device) -> None:
        client = BleakClient(device, timeout=60)
        # BlueZ announces ServicesResolved before it exports the GATT objects (as in the
        # recorded trace), so Bleak's services can come back empty: reconnect, as a user would.
        for attempt in range(5):
            await client.connect()
            for service in client.services:
                for characteristic in service.characteristics:
                    if characteristic.uuid.startswith(TEMPERATURE_PREFIX):
                        clients.append(client)
                        await client.start_notify(characteristic, receiver(device_index(device.address)))
                        return
            print(f"no temperature characteristic on {device.address} yet: reconnecting", file=sys.stderr)
            await client.disconnect()
            await asyncio.sleep(0.05)
        raise RuntimeError(f"no temperature characteristic on {device.address}")

    await asyncio.gather(*(subscribe(device) for device in found.values()))
    print(f"subscribed {len(clients)}", flush=True)

    await stop.wait()
    with open(options.out, "w") as out:
        for i in range(count):
            value = bytes(values[12 * i : 12 * i + 12]).rstrip(b"\0").decode("utf-8", "replace")
            out.write(f"{times[i]} {devices[i]} {value.replace(' ', '_') or '-'}\n")
    print(f"records {count}", flush=True)
    # Leave without the disconnect round trips: the bench stops the mock next.
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
