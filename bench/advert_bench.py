#!/usr/bin/env python3
"""Advertising sensors in `make bench` (docs/advertisements.md, docs/benchmarks.md).

blectld --mock with N advertising sensors of every format (blectl-mock --advertisers: BTHome,
encrypted BTHome with its key configured, pvvx, ATC1441, Ruuvi, Govee in turn), each
advertising every INTERVAL with a new measurement every second advertisement. Over SECONDS,
after a warm-up: blectld's CPU (user + system) and resident memory, the readings a socket
subscriber received per second, and the measurements lost (gaps in the sensors' own
counters, as blectld counts them in `status`, plus readings numbered by the hub that the
subscriber did not receive). The mock runs on the same machine and is not counted.

    bench/advert_bench.py --bin .build/release [--sensors 200] [--interval 1s] [--seconds 60]

Every process it starts is stopped on exit; exits 1 when a measurement was lost.
"""
import argparse, json, os, shutil, signal, socket, struct, subprocess, sys, tempfile, threading, time

CLK = os.sysconf("SC_CLK_TCK")
MOCK_KEY = "231d39c1d7cc1ab1aee224cd096db932"  # MockAdvertiser.bthomeKey


ADVERTISER = 0x8000_0000  # the emit log's mark of an advertising sensor's record (EmitLog.swift)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def address(index):
    """The mock's advertising sensor `index` (MockPeripheral.advertiser)."""
    return f"A4:C1:38:AD:{(index >> 8) & 0xFF:02X}:{(index + 1) & 0xFF:02X}"


def counter_of(payload_hex):
    """The sensor's counter in a BTHome v2 (packet id) or pvvx (frame counter) payload."""
    data = bytes.fromhex(payload_hex)
    if len(data) == 15:  # first: its reversed address may begin as BTHome's header does
        return data[13]
    if len(data) >= 3 and data[0] == 0x40 and data[1] == 0x00:
        return data[2]
    return None


def read_emit_log(path):
    """{sensor address: [(ns, counter)]} of the advertising sensors' records."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"blectl-emitlog1\n"):
        raise SystemExit("advert bench: the mock's emit log has no header")
    emitted = {}
    for index, counter, ns in struct.iter_unpack("<IIQ", data[16:]):
        if index & ADVERTISER:
            emitted.setdefault(address(index & ~ADVERTISER), []).append((ns, counter))
    return emitted


def status(bin_dir, sock):
    out = subprocess.run([f"{bin_dir}/blectl", "--socket", sock, "status", "--json"], capture_output=True,
                         text=True, timeout=30).stdout
    return json.loads(out) if out.strip() else {}


class Subscriber(threading.Thread):
    """Counts the `reading` events pushed on one socket connection."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.sock.sendall(b'{"v":1,"id":1,"cmd":"subscribe","events":["reading"]}\n')
        self.readings, self.last_seq, self.running = 0, 0, True

    def run(self):
        buffer = b""
        while self.running:
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if b'"type":"reading"' in line:
                    self.readings += 1
                    self.last_seq = max(self.last_seq, json.loads(line)["seq"])

    def snapshot(self):
        return self.readings, self.last_seq


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release")
    parser.add_argument("--sensors", type=int, default=200)
    parser.add_argument("--interval", default="1s", help="each sensor advertises this often")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="blectl-advert-bench-")
    daemon = None
    try:
        conf = os.path.join(work, "blectld.conf")
        with open(conf, "w") as f:
            for index in range(1, args.sensors, 6):  # the encrypted BTHome sensors
                f.write(f"bthome_key {address(index)} = {MOCK_KEY}\n")
            f.write(f"advert_max_devices = {max(16, args.sensors * 2)}\n")
        os.chmod(conf, 0o600)  # keys: blectld refuses a file others can read
        sock = os.path.join(work, "blectld.sock")
        env = dict(os.environ, XDG_RUNTIME_DIR=work, BLECTL_MOCK_OPTIONS=(
            f"--thermometers 0 --others 0 --advertisers {args.sensors} --advertiser-interval {args.interval} "
            # The six formats this bench has always played (the mock plays 34 since issue 34; the
            # others' keys and names are not configured here).
            "--advertiser-formats bthome,bthome-encrypted,pvvx,atc1441,ruuvi,govee-h5075"))
        os.makedirs(os.path.join(work, "state"))
        daemon = subprocess.Popen(
            [f"{args.bin}/blectld", "--mock", "--socket", sock, "--config", conf, "--state-dir",
             os.path.join(work, "state"), "--log-level", "notice"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "blectld.log"), "w"), env=env,
            stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not os.path.exists(sock):
            if time.monotonic() > deadline or daemon.poll() is not None:
                raise SystemExit("advert bench: blectld did not start: " + open(f"{work}/blectld.log").read())
            time.sleep(0.1)
        subscriber = Subscriber(sock)
        subscriber.start()
        time.sleep(args.warmup)
        first = (status(args.bin, sock), cpu_seconds(daemon.pid), time.monotonic(), subscriber.snapshot())
        time.sleep(args.seconds)
        last = (status(args.bin, sock), cpu_seconds(daemon.pid), time.monotonic(), subscriber.snapshot())
        rss = rss_kib(daemon.pid)
        elapsed = last[2] - first[2]
        adverts_first, adverts_last = first[0]["advertisements"], last[0]["advertisements"]
        received = last[3][0] - first[3][0]
        errors = adverts_last["errors"] - adverts_first["errors"]
        # Every seq numbered a reading (or a reading error): each reading went to the subscriber.
        numbered = last[3][1] - first[3][1] - errors
        heard = sum(1 for s in adverts_last["sensors"] if not s["lost"])
        lost_counter = adverts_last["lost_packets"] - adverts_first["lost_packets"]
        lost = lost_counter + max(0, numbered - received)
        cpu = last[1] - first[1]
        print(f"Advertising sensors: {args.sensors} x one advertisement every {args.interval} "
              f"(a new measurement every 2), {args.seconds:g} s after {args.warmup:g} s:")
        print(f"  sensors heard: {heard}; advertisements read: "
              f"{(adverts_last['advertisements'] - adverts_first['advertisements']) / elapsed:.0f}/s")
        print(f"  readings delivered: {received / elapsed:.1f}/s ({received} to a socket subscriber)")
        print(f"  blectld CPU: {cpu:.2f} s in {elapsed:.0f} s ({100 * cpu / elapsed:.2f} % of a core, "
              f"{cpu / max(received, 1) * 1e6:.0f} us a reading); RSS {rss / 1024:.1f} MB")
        print(f"  lost new measurements: {lost} (counter gaps {lost_counter}, not delivered "
              f"{max(0, numbered - received)}); reading errors {errors}")
        return 1 if lost or heard < args.sensors else 0
    finally:
        if daemon and daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(15)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
