#!/usr/bin/env python3
"""blectld's socket under abuse: descriptors, resident memory and an honest subscriber's
readings while clients vanish with requests pending and subscribers never read.

    bench/socket_abuse.py [--bin .build/release] [--clients 64] [--config 'key = value']...

Starts `blectld --mock` (its own private dbus-daemon and blectl-mock; the two mock
thermometers notify every 100 ms), subscribes one client that reads everything, then:

1. wait:   CLIENTS clients each read their hello and ask for a 300 s `read` of a device
   nobody has; they wait 10 s while readings flow, then close (`closed`: 2 s later);
2. vanish: the same clients, but each closes right after asking; then one more client
   connects (the issue 25 scenario);
3. stuck:  CLIENTS - 1 clients (with the subscriber, CLIENTS) subscribe to every event and
   never read, until the daemon has dropped them all (or 30 s passed); then they close;
4. after:  3 s later.

For each phase it prints the daemon's descriptors (/proc/PID/fd), VmRSS at the end of the
phase and the peak during it (VmHWM, reset between phases through /proc/PID/clear_refs,
which needs root or the daemon's user), and for the honest subscriber: readings, gaps in
`seq`, the longest wait between two readings and the worst delay from the reading's `time`
(stamped by blectld when the notification arrived) to its receipt. Every client is from
this process's user: with the default max_clients_per_user (16), most are refused; pass
--config 'max_clients_per_user = 64' to measure the other bounds with all of them in.
Standard library only.
"""

import argparse
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HOPELESS_READ = b'{"v":1,"id":1,"cmd":"read","address":"AA:BB:CC:DD:EE:FF","timeout":300}\n'


def status(pid, field):
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as file:
            file.write("5")
        return True
    except OSError:
        return False


def connect(path, timeout=5.0):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(timeout)
    client.connect(path)
    return client


class Subscriber(threading.Thread):
    """Reads readings and reading errors; records seq, receipt time and delay."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = connect(path, timeout=30)
        self.sock.recv(4096)  # hello
        self.sock.sendall(b'{"v":1,"id":1,"cmd":"subscribe","events":["reading","reading_error"]}\n')
        self.lock = threading.Lock()
        self.seqs, self.longest_wait, self.worst_delay, self.closed = [], 0.0, 0.0, False
        self.start()

    def run(self):
        buffer, last = b"", None
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            now, wall = time.monotonic(), time.time()
            for line in lines:
                event = json.loads(line)
                if "seq" not in event or "type" not in event:
                    continue
                stamped = datetime.datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp()
                with self.lock:
                    self.seqs.append(event["seq"])
                    if last is not None:
                        self.longest_wait = max(self.longest_wait, now - last)
                    self.worst_delay = max(self.worst_delay, wall - stamped)
                last = now

    def take(self):
        """The figures since the last call."""
        with self.lock:
            seqs, wait, delay = self.seqs, self.longest_wait, self.worst_delay
            self.longest_wait, self.worst_delay = 0.0, 0.0
            self.seqs = seqs[-1:]
        gaps = sum(1 for a, b in zip(seqs, seqs[1:]) if b != a + 1)
        return len(seqs) - 1 if seqs else 0, gaps, wait, delay


def report(phase, pid, subscriber, started, note=""):
    readings, gaps, wait, delay = subscriber.take()
    print(
        f"{phase:7} {time.monotonic() - started:5.1f} s  fds {descriptors(pid):3}  "
        f"RSS {status(pid, 'VmRSS') / 1024:5.1f} MB (peak {status(pid, 'VmHWM') / 1024:5.1f})  "
        f"readings {readings:4}, seq gaps {gaps}, longest wait {wait * 1000:4.0f} ms, "
        f"worst delay {delay * 1000:4.0f} ms{'  ' + note if note else ''}",
        flush=True,
    )
    reset_peak(pid)


def ask(path, count):
    """`count` clients that asked for a hopeless read, and how many were refused."""
    clients, refused = [], 0
    for _ in range(count):
        client = connect(path)
        if b'"hello"' in client.recv(4096):
            client.sendall(HOPELESS_READ)
            clients.append(client)
        else:
            client.close()
            refused += 1
    return clients, refused


def vanish(path, count):
    served = refused = 0
    for _ in range(count):
        clients, refusals = ask(path, 1)
        served, refused = served + len(clients), refused + refusals
        for client in clients:
            client.close()
    started = time.monotonic()
    client = connect(path)
    answer = client.recv(4096)
    client.close()
    verdict = "served" if b'"hello"' in answer else "refused"
    return f"{served} asked and left, {refused} refused; the next client {verdict} " \
        f"after {(time.monotonic() - started) * 1000:.1f} ms"


def stuck(path, count, log_path, deadline):
    clients = []
    for _ in range(count):
        client = connect(path)
        try:
            client.sendall(b'{"v":1,"id":1,"cmd":"subscribe"}\n')
            clients.append(client)
        except OSError:  # refused and closed already
            client.close()
    while time.monotonic() < deadline:
        with open(log_path, errors="replace") as file:
            dropped = file.read().count("is not reading")
        if dropped >= len(clients):
            break
        time.sleep(0.25)
    return clients, dropped


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release", help="directory with blectld and blectl-mock")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--config", action="append", default=[], help="a configuration line, repeatable")
    parser.add_argument("--notify-interval", default="100ms")
    options = parser.parse_args()

    work = tempfile.mkdtemp(prefix="blectl-abuse-")
    path, log_path, config = f"{work}/blectld.sock", f"{work}/blectld.log", f"{work}/blectld.conf"
    with open(config, "w") as file:
        file.write("\n".join(options.config) + "\n")
    env = dict(os.environ, BLECTL_MOCK_OPTIONS=f"--fast --advertisers 0 --notify-interval {options.notify_interval}",
               XDG_RUNTIME_DIR=work, PATH=f"{os.path.abspath(options.bin)}:{os.environ['PATH']}")
    with open(log_path, "w") as log:
        daemon = subprocess.Popen([f"{options.bin}/blectld", "--mock", "--socket", path, "--config", config],
                                  env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "ready: socket" not in open(log_path, errors="replace").read():
            if daemon.poll() is not None:
                sys.exit(f"blectld exited:\n{open(log_path).read()}")
            time.sleep(0.05)
        time.sleep(2)  # both thermometers connected and notifying
        pid = daemon.pid
        if not reset_peak(pid):
            print("cannot reset VmHWM (not root?): peaks are since the start", flush=True)
        subscriber = Subscriber(path)
        time.sleep(3)
        started = time.monotonic()
        report("idle", pid, subscriber, started)
        waiting, refused = ask(path, options.clients)
        time.sleep(10)
        report("wait", pid, subscriber, started, f"{len(waiting)} waiting for 10 s, {refused} refused")
        for client in waiting:
            client.close()
        time.sleep(2)
        report("closed", pid, subscriber, started)
        note = vanish(path, options.clients)
        time.sleep(2)
        report("vanish", pid, subscriber, started, note)
        clients, dropped = stuck(path, options.clients - 1, log_path, time.monotonic() + 30)
        report("stuck", pid, subscriber, started, f"{dropped} of {len(clients)} (at most) dropped for not reading")
        for client in clients:
            client.close()
        time.sleep(3)
        report("after", pid, subscriber, started, "subscriber dropped!" if subscriber.closed else "")
    finally:
        daemon.terminate()
        try:
            daemon.wait(10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
