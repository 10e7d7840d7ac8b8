#!/usr/bin/env python3
"""MQTT in `make bench` (docs/mqtt.md, docs/benchmarks.md).

1. blectld's CPU per reading with MQTT off and on, in one run, at 200 thermometers x 10 Hz
   (blectl-mock), against a local mosquitto: the ratio is what counts on a shared machine.
2. The time to drain a backlog of 100,000 readings once the broker returns: the broker is
   stopped until that many readings wait, blectl-mock is frozen (SIGSTOP) so no new ones
   come, the broker is started again and blectld's `status` is watched until the backlog is 0.

    bench/mqtt_bench.py --bin .build/release [--thermometers 200] [--hz 10] [--seconds 20] [--backlog 100000]

Every process it starts is stopped on exit.
"""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, time

CLK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


class Stack:
    """Processes started here, stopped on exit."""

    def __init__(self, work):
        self.work, self.procs = work, []

    def start(self, args, log, env=None):
        proc = subprocess.Popen(args, stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL)
        self.procs.append(proc)
        return proc

    def stop(self, proc):
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def close(self):
        for proc in reversed(self.procs):
            self.stop(proc)


def status(bin_dir, sock):
    out = subprocess.run([f"{bin_dir}/blectl", "--socket", sock, "status", "--json"], capture_output=True,
                         text=True, timeout=30).stdout
    return json.loads(out) if out.strip() else {}


def wait(what, condition, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise SystemExit(f"mqtt bench: {what} did not happen within {timeout} s")


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return {int(line.split()[0]): line.split(None, 1)[1] for line in out.splitlines()}


def start_broker(stack, work, port):
    conf = os.path.join(work, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\nuser root\n")
    broker = stack.start(["mosquitto", "-c", conf], os.path.join(work, "broker.log"))
    wait("mosquitto listening", lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 10)
    return broker


def start_daemon(stack, args, work, name, mqtt_url):
    sock = os.path.join(work, f"{name}.sock")
    env = dict(os.environ, BLECTL_MOCK_OPTIONS=f"--thermometers {args.thermometers} --others 0 --advertisers 0 "
               f"--notify-interval {int(1000 / args.hz)}ms", XDG_RUNTIME_DIR=work)
    # Every mock thermometer at once, as in bench/bench.py (the defaults, 1 connecting and 5
    # links, suit a real radio and would leave 195 of 200 out).
    config = os.path.join(work, f"{name}.conf")
    with open(config, "w") as f:
        f.write("max_connecting = 64\nmax_connections = 1000\n")
    command = [f"{args.bin}/blectld", "--mock", "--socket", sock, "--config", config,
               "--state-dir", os.path.join(work, f"{name}-state"), "--log-level", "notice"]
    if mqtt_url:
        command += ["--mqtt", mqtt_url, "--mqtt-gateway", "bench"]
    os.makedirs(os.path.join(work, f"{name}-state"), exist_ok=True)
    daemon = stack.start(command, os.path.join(work, f"{name}.log"), env)
    wait(f"{args.thermometers} thermometers connected ({name})",
         lambda: len(status(args.bin, sock).get("connected", [])) >= args.thermometers, 300)
    return daemon, sock


def cpu_per_reading(args, daemon, sock):
    """(readings, CPU us a reading, readings/s, the first and the last status) over the window."""
    time.sleep(3)  # past the connection burst
    first = status(args.bin, sock), cpu_seconds(daemon.pid), time.monotonic()
    time.sleep(args.seconds)
    last = status(args.bin, sock), cpu_seconds(daemon.pid), time.monotonic()
    readings = last[0]["last_seq"] - first[0]["last_seq"]
    return readings, (last[1] - first[1]) / readings * 1e6, readings / (last[2] - first[2]), first[0], last[0]


def keeps_up(first, last, seconds):
    """What the broker acknowledged over the window against what was read: MQTT keeps up
    when it acknowledged as many readings as were taken and the backlog did not grow."""
    acked = (last["mqtt"]["acked_seq"] - first["mqtt"]["acked_seq"]) / seconds
    backlog = (first["mqtt"]["backlog"], last["mqtt"]["backlog"])
    return acked, backlog


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release")
    parser.add_argument("--thermometers", type=int, default=200)
    parser.add_argument("--hz", type=float, default=10)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--backlog", type=int, default=100_000)
    args = parser.parse_args()
    if not shutil.which("mosquitto"):
        raise SystemExit("mqtt bench: needs mosquitto (apt-get install mosquitto)")
    work = tempfile.mkdtemp(prefix="blectl-mqtt-bench-")
    stack = Stack(work)
    try:
        port = free_port()
        broker = start_broker(stack, work, port)
        rows = {}
        for name, url in (("off", None), ("on", f"mqtt://127.0.0.1:{port}")):
            daemon, sock = start_daemon(stack, args, work, name, url)
            rows[name] = cpu_per_reading(args, daemon, sock)
            if name == "off":
                stack.stop(daemon)
        readings, on_us, rate, on_first, on_last = rows["on"]
        off_us = rows["off"][1]
        acked, backlog = keeps_up(on_first, on_last, args.seconds)
        sent = args.thermometers * args.hz
        print(f"MQTT, {args.thermometers} thermometers x {args.hz:g} Hz, {args.seconds:g} s each, one run:")
        print(f"  blectld CPU per reading, MQTT off: {off_us:.1f} us ({rows['off'][2]:.0f} readings/s "
              f"of {sent:.0f}/s notified)")
        print(f"  blectld CPU per reading, MQTT on:  {on_us:.1f} us ({rate:.0f} readings/s of {sent:.0f}/s)")
        print(f"  ratio on/off: {on_us / off_us:.2f}")
        verdict = "kept up" if acked >= 0.98 * rate and backlog[1] <= max(backlog[0], 1000) else "FELL BEHIND"
        print(f"  broker acknowledged {acked:.0f} readings/s of the {rate:.0f}/s read; backlog "
              f"{backlog[0]} -> {backlog[1]}: {verdict}")

        # The backlog: the broker away until enough readings wait, then the mock frozen.
        stack.stop(broker)
        wait(f"{args.backlog} readings waiting",
             lambda: status(args.bin, sock)["mqtt"]["backlog"] >= args.backlog, 3600)
        mock = next(pid for pid, cmd in children(daemon.pid).items() if "blectl-mock" in cmd)
        os.kill(mock, signal.SIGSTOP)
        try:
            waiting = status(args.bin, sock)["mqtt"]["backlog"]
            cpu_before = cpu_seconds(daemon.pid)
            broker = start_broker(stack, work, port)
            started = time.monotonic()
            wait("the backlog drained", lambda: status(args.bin, sock)["mqtt"]["backlog"] == 0, 3600)
            drained = time.monotonic() - started
            cpu = cpu_seconds(daemon.pid) - cpu_before
        finally:
            os.kill(mock, signal.SIGCONT)
        print(f"  backlog of {waiting} readings drained in {drained:.1f} s after the broker returned "
              f"({waiting / drained:.0f} readings/s; blectld CPU {cpu:.1f} s, {cpu / waiting * 1e6:.1f} us a reading)")
    finally:
        stack.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
