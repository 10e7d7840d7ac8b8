#!/usr/bin/env python3
"""blectld against Theengs Gateway on one advertisement workload (issue 23, docs/benchmarks.md).

One private dbus-daemon with blectl-mock on it: N advertising sensors, BTHome v2 and pvvx in
turn, each advertising every INTERVAL (a new measurement every second advertisement), all
named `ATC_AD…` as a LYWSD03MMC on the pvvx firmware names itself in either format (Theengs
Decoder recognises BTHome only by such names). One mosquitto. Then, one after the other (never
at once), each consumer on that bus as its system bus, publishing to that broker: blectld
(`--mqtt`), then Theengs Gateway (scanning without pauses, `publish_advdata` on so that its
messages carry the payload). After a warm-up, over SECONDS: the consumer's CPU (user +
system) and RSS/PSS, the messages a subscriber got from the broker, the measurements lost
(gaps in the sensors' own counters in the delivered payloads) and the latency from the
advertisement (the mock's emit log, CLOCK_MONOTONIC) to the message's arrival at the
subscriber (the same clock).

With --c-subscriber, first the floor on the same workload: bench/c_subscriber.c --adverts, a
libdbus program that only hears the advertisements (the same discovery filter, one match
rule, a record per message; no decoding, no MQTT). Its CPU per advertisement is the least
any consumer on D-Bus pays on this machine, so the table shows how far below Theengs Gateway
a gateway can get at all. Then blectld without MQTT (its history on) on the same workload:
issue 37's targets are blectld ≤ 2.0× the floor without MQTT and ≤ 2.5× with it (QoS 1),
and against Theengs Gateway ≤ 0.2 of its CPU per advertisement and ≤ 0.33 of its RSS.

Runs under a python with paho-mqtt (Theengs Gateway's venv):

    VENV/bin/python bench/theengs_bench.py --bin BIN --theengs VENV/bin/theengs-gateway \\
        [--c-subscriber FILE] [--sensors 200] [--interval 1s] [--seconds 60] [--warmup 15] [--json FILE]

Every process it starts is stopped on exit. Exits 1 when a target is missed.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, threading, time
from importlib import metadata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from advert_bench import counter_of, read_emit_log, rss_kib  # noqa: E402
from mqtt_bench import Stack, children, cpu_seconds, free_port, start_broker, wait  # noqa: E402

import paho.mqtt.client as mqtt  # noqa: E402



def pss_kib(pid):
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


class Subscriber:
    """Every message on `topic`: (arrival CLOCK_MONOTONIC ns, sensor address, counter or None)."""

    def __init__(self, port, topic, fields):
        self.messages, self.lock, self.fields = [], threading.Lock(), fields
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_connect = lambda client, *_: client.subscribe(topic, qos=1)
        self.client.on_message = self.received
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def received(self, client, userdata, message):
        now = time.monotonic_ns()
        try:
            body = json.loads(message.payload)
        except ValueError:
            return
        address_field, payload_field = self.fields
        sensor, payload = body.get(address_field), body.get(payload_field)
        if isinstance(sensor, str) and isinstance(payload, str):
            with self.lock:
                self.messages.append((now, sensor.upper(), counter_of(payload)))

    def between(self, start, end):
        with self.lock:
            return [m for m in self.messages if start <= m[0] < end]

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def judge(messages, emitted, start, end):
    """Lost measurements (gaps in each sensor's counters, in arrival order), the sensors heard
    and the latencies (ns) from the latest advertisement of the message's measurement."""
    by_sensor, latencies = {}, []
    for arrival, sensor, counter in messages:
        if counter is None:
            continue
        by_sensor.setdefault(sensor, []).append(counter)
        sent = [ns for ns, c in emitted.get(sensor, []) if c & 0xFF == counter and ns <= arrival]
        if sent:
            latencies.append(arrival - max(sent))
    lost = 0
    for counters in by_sensor.values():
        for before, after in zip(counters, counters[1:]):
            step = (after - before) % 256
            lost += max(0, step - 1) if step < 128 else 0  # a step back is a late repeat
    offered = sum(1 for records in emitted.values() for ns, _ in records if start <= ns < end)
    return {"lost": lost, "heard": len(by_sensor), "latencies": sorted(latencies), "offered": offered}


def percentile(values, fraction):
    return values[min(len(values) - 1, int(fraction * len(values)))] if values else None


def tree_cpu_seconds(pid):
    """CPU of the process and its live children (a consumer may run helpers)."""
    total = cpu_seconds(pid)
    for child in children(pid):
        try:
            total += cpu_seconds(child)
        except OSError:  # it ended meanwhile
            pass
    return total


def measure(name, proc, subscriber, args):
    """The consumer's figures over the window, after the warm-up."""
    time.sleep(args.warmup)
    if proc.poll() is not None:
        raise SystemExit(f"theengs bench: {name} exited with {proc.returncode}")
    cpu0, t0 = tree_cpu_seconds(proc.pid), time.monotonic_ns()
    time.sleep(args.seconds)
    cpu1, t1 = tree_cpu_seconds(proc.pid), time.monotonic_ns()
    row = {"consumer": name, "cpu_s": cpu1 - cpu0, "seconds": (t1 - t0) / 1e9, "rss_kib": rss_kib(proc.pid),
           "pss_kib": pss_kib(proc.pid), "children": sorted(children(proc.pid).values()), "window_ns": [t0, t1]}
    row["messages"] = subscriber.between(t0, t1) if subscriber else []
    return row


def commit():
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or None


def theengs_config(work, args, port):
    path = os.path.join(work, "theengsgw.conf")
    with open(path, "w") as f:
        json.dump({"host": "127.0.0.1", "port": port, "ble_scan_time": 86400, "ble_time_between_scans": 0,
                   "publish_advdata": 1, "log_level": "WARNING", "adapter": "hci0", "scanning_mode": "active"}, f)
    return path


def start_bus(stack, work, bin_dir, args):
    """A private dbus-daemon (blectld --mock's configuration) and the mock on it: its address."""
    config = os.path.join(work, "bus.conf")
    stack.start([f"{bin_dir}/blectl-mock", "--print-bus-config", os.path.join(work, "bus")], config).wait(30)
    bus_log = os.path.join(work, "bus.log")
    stack.start(["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile", "--print-address"], bus_log)
    bus = wait("dbus-daemon's address", lambda: open(bus_log).readline().strip(), 10)
    mock_log = os.path.join(work, "mock.log")
    stack.start([f"{bin_dir}/blectl-mock", "--address", bus, "--thermometers", "0", "--others", "0",
                 "--advertisers", str(args.sensors), "--advertiser-interval", args.interval,
                 "--advertiser-formats", "bthome,pvvx", "--advertiser-name", "ATC_AD",
                 "--emit-log", os.path.join(work, "emit.log"), "--log-level", "warning"], mock_log)
    wait("the mock ready", lambda: "ready org.bluez" in open(mock_log).read(), 30)
    return bus


def start_blectld(stack, work, args, bus, port, mqtt=True):
    """blectld on the bus, its history on, publishing to the broker (or, `mqtt` false, not)."""
    name = "blectld" if mqtt else "blectld-nomqtt"
    conf = os.path.join(work, f"{name}.conf")
    with open(conf, "w") as f:
        f.write(f"advert_max_devices = {max(16, args.sensors * 2)}\n")
    state = os.path.join(work, f"state-{name}")
    os.makedirs(state)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus, XDG_RUNTIME_DIR=work)
    broker = ["--mqtt", f"mqtt://127.0.0.1:{port}", "--mqtt-gateway", "bench"] if mqtt else []
    return stack.start([f"{args.bin}/blectld", "--socket", os.path.join(work, f"{name}.sock"), "--config", conf,
                        "--state-dir", state, "--log-level", "notice"] + broker,
                       os.path.join(work, f"{name}.log"), env)


def start_blectld_without_mqtt(stack, work, args, bus, port):
    return start_blectld(stack, work, args, bus, port, mqtt=False)


def per_advertisement(row, emitted):
    """CPU per advertisement the mock emitted in the row's window, µs."""
    t0, t1 = row["window_ns"]
    count = sum(1 for r in emitted.values() for ns, _ in r if t0 <= ns < t1)
    return round(row["cpu_s"] / max(count, 1) * 1e6, 1), count


def start_theengs(stack, work, args, bus, port):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus, HOME=work, PYTHONDONTWRITEBYTECODE="1")
    return stack.start([args.theengs, "-c", theengs_config(work, args, port)], os.path.join(work, "theengs.log"), env)


def start_floor(stack, work, args, bus, port):
    return stack.start([args.c_subscriber, "--adverts", "--address", bus, "--devices", str(args.sensors),
                        "--out", os.path.join(work, "floor.records")], os.path.join(work, "floor.log"))


def floor_row(work, row):
    """The C floor's row: what it heard in the window (it publishes nothing)."""
    t0, t1 = row["window_ns"]
    heard, records = set(), 0
    for line in open(os.path.join(work, "floor.records")):
        ns, device, _ = line.split()
        if t0 <= int(ns) < t1:
            heard.add(device)
            records += 1
    return {"consumer": row["consumer"], "cpu_s": round(row["cpu_s"], 3), "seconds": round(row["seconds"], 2),
            "cpu_percent": round(100 * row["cpu_s"] / row["seconds"], 2), "rss_kib": row["rss_kib"],
            "pss_kib": row["pss_kib"], "records": records, "sensors_heard": len(heard), "window_ns": row["window_ns"]}


def summary(row, judged):
    lat = judged["latencies"]
    return {
        "consumer": row["consumer"], "children": row["children"], "cpu_s": round(row["cpu_s"], 3), "seconds": round(row["seconds"], 2),
        "cpu_percent": round(100 * row["cpu_s"] / row["seconds"], 2),
        "advertisements": judged["offered"],
        "cpu_us_per_advertisement": round(row["cpu_s"] / max(judged["offered"], 1) * 1e6, 1),
        "rss_kib": row["rss_kib"], "pss_kib": row["pss_kib"], "messages": len(row["messages"]),
        "messages_per_s": round(len(row["messages"]) / row["seconds"], 1),
        "cpu_us_per_message": round(row["cpu_s"] / max(len(row["messages"]), 1) * 1e6, 1),
        "sensors_heard": judged["heard"], "lost": judged["lost"], "latency_samples": len(lat),
        "latency_ms": {k: round(percentile(lat, f) / 1e6, 2) if lat else None
                       for k, f in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))},
    }


def print_floor(floor, blectld, theengs):
    """The C floor's line: its CPU per advertisement and where 0.2 of Theengs' lies against it."""
    per = floor["cpu_us_per_advertisement"]
    target = theengs["cpu_us_per_advertisement"] * 0.2
    print(f"  C libdbus floor (hears them, nothing else): {per:.1f} us per advertisement "
          f"({floor['records']} records, {floor['sensors_heard']} sensors), RSS {floor['rss_kib'] / 1024:.1f} MB; "
          f"floor / Theengs {per / theengs['cpu_us_per_advertisement']:.3f}, blectld / floor "
          f"{blectld['cpu_us_per_advertisement'] / per:.2f}x (target, with MQTT: <= 2.5x {'met' if blectld['cpu_us_per_advertisement'] <= 2.5 * per else 'MISSED'}), "
          f"the 0.2 target ({target:.1f} us) = {target / per:.2f}x the floor")


def print_table(rows, args):
    b, t = rows
    print(f"Theengs Gateway against blectld: {args.sensors} advertising sensors (BTHome v2 and pvvx in turn) x one "
          f"advertisement every {args.interval}, {args.seconds:g} s each after {args.warmup:g} s, one after the other:")
    print(f"  {'':34} {'blectld':>12} {'Theengs':>12} {'ratio':>8}")
    lines = [("CPU, % of a core", "cpu_percent", "{:.2f}"),
             ("CPU per advertisement, us", "cpu_us_per_advertisement", "{:.1f}"),
             ("RSS, MB", "rss_kib", "{:.1f}"), ("PSS, MB", "pss_kib", "{:.1f}"),
             ("messages delivered, /s", "messages_per_s", "{:.1f}"),
             ("CPU per message delivered, us", "cpu_us_per_message", "{:.1f}"),
             ("sensors heard", "sensors_heard", "{}"), ("measurements lost", "lost", "{}")]
    for label, key, form in lines:
        x, y = b[key], t[key]
        show = (lambda v: form.format(v / 1024 if key.endswith("_kib") else v) if v is not None else "-")
        xs, ys = show(x), show(y)
        ratio = f"{x / y:.3f}" if x is not None and y else ""
        print(f"  {label:34} {xs:>12} {ys:>12} {ratio:>8}")
    for k in ("p50", "p90", "p99", "max"):
        x, y = b["latency_ms"][k], t["latency_ms"][k]
        print(f"  {'latency ' + k + ', ms':34} {x if x is not None else '-':>12} {y if y is not None else '-':>12}")
    cpu_ratio = b["cpu_us_per_advertisement"] / t["cpu_us_per_advertisement"]
    rss_ratio = b["rss_kib"] / t["rss_kib"]
    # Issue 37's targets against Theengs Gateway: CPU per advertisement ≤ 0.2, RSS ≤ 0.33.
    verdicts = {"cpu_per_advertisement_le_0_2": cpu_ratio <= 0.2, "rss_le_0_33": rss_ratio <= 0.33,
                "blectld_lost_0": b["lost"] == 0 and b["sensors_heard"] == args.sensors}
    print(f"  target CPU per advertisement <= 0.2 of Theengs': {cpu_ratio:.3f} "
          f"{'met' if verdicts['cpu_per_advertisement_le_0_2'] else 'MISSED'}")
    print(f"  target RSS <= 0.33 of Theengs': {rss_ratio:.3f} {'met' if verdicts['rss_le_0_33'] else 'MISSED'}")
    print(f"  target 0 lost (blectld, all {args.sensors} sensors heard): "
          f"{'met' if verdicts['blectld_lost_0'] else 'MISSED'}")
    return verdicts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release")
    parser.add_argument("--theengs", required=True, help="the theengs-gateway executable (its venv's)")
    parser.add_argument("--sensors", type=int, default=200)
    parser.add_argument("--interval", default="1s")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=15)
    parser.add_argument("--json", help="write the raw results here")
    parser.add_argument("--c-subscriber", help="bench/c_subscriber.c built: measure the C floor first")
    args = parser.parse_args()
    if not shutil.which("mosquitto"):
        raise SystemExit("theengs bench: needs mosquitto (apt-get install mosquitto)")
    load = open("/proc/loadavg").read().split()[:3]
    work = tempfile.mkdtemp(prefix="blectl-theengs-bench-")
    stack = Stack(work)
    try:
        port = free_port()
        start_broker(stack, work, port)
        bus = start_bus(stack, work, args.bin, args)
        raw, floor, no_mqtt = [], None, None
        if args.c_subscriber:
            proc = start_floor(stack, work, args, bus, port)
            wait("the C floor subscribed", lambda: "subscribed" in open(os.path.join(work, "floor.log")).read(), 60)
            row = measure("C floor", proc, None, args)
            stack.stop(proc)
            floor = floor_row(work, row)
            # Issue 37's other advertisement target: blectld, its history on, no MQTT, ≤ 2.0× the floor.
            proc = start_blectld_without_mqtt(stack, work, args, bus, port)
            no_mqtt = measure("blectld, no MQTT", proc, None, args)
            stack.stop(proc)
        consumers = (("blectld", start_blectld, "blectl/+/state", ("address", "raw")),
                     ("Theengs", start_theengs, "home/TheengsGateway/BTtoMQTT/+", ("id", "servicedata")))
        for name, start, topic, fields in consumers:
            subscriber = Subscriber(port, topic, fields)
            proc = start(stack, work, args, bus, port)
            raw.append(measure(name, proc, subscriber, args))
            stack.stop(proc)
            subscriber.close()
        stack.close()  # the mock writes its emit log out as it stops
        emitted = read_emit_log(os.path.join(work, "emit.log"))
        rows = [summary(row, judge(row["messages"], emitted, *row["window_ns"])) for row in raw]
        verdicts = print_table(rows, args)
        if floor:
            t0, t1 = floor.pop("window_ns")
            floor["advertisements"] = sum(1 for r in emitted.values() for ns, _ in r if t0 <= ns < t1)
            floor["cpu_us_per_advertisement"] = round(floor["cpu_s"] / max(floor["advertisements"], 1) * 1e6, 1)
            print_floor(floor, *rows)
            per, count = per_advertisement(no_mqtt, emitted)
            ratio = per / floor["cpu_us_per_advertisement"]
            verdicts["no_mqtt_le_2_floor"] = ratio <= 2.0
            no_mqtt = {"cpu_s": round(no_mqtt["cpu_s"], 3), "rss_kib": no_mqtt["rss_kib"], "advertisements": count,
                       "cpu_us_per_advertisement": per, "floor_ratio": round(ratio, 2)}
            print(f"  blectld without MQTT (history on): {per:.1f} us per advertisement ({count} advertisements), "
                  f"RSS {no_mqtt['rss_kib'] / 1024:.1f} MB; {ratio:.2f}x the floor (target <= 2.0x: "
                  f"{'met' if ratio <= 2.0 else 'MISSED'})")
        peer = {package: metadata.version(package)
                for package in ("TheengsGateway", "TheengsDecoder", "bleak", "dbus-fast", "paho-mqtt")}
        print("  " + ", ".join(f"{package} {version}" for package, version in peer.items())
              + f"; load average {load[0]} before, {open('/proc/loadavg').read().split()[0]} after")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit(),
                           "sensors": args.sensors, "interval": args.interval, "seconds": args.seconds,
                           "warmup": args.warmup, "peer": peer,
                           "loadavg": {"before": load, "after": open("/proc/loadavg").read().split()[:3]},
                           "rows": rows, "floor": floor, "no_mqtt": no_mqtt, "targets_met": verdicts}, f, indent=1)
                f.write("\n")
        return 0 if all(verdicts.values()) else 1
    finally:
        stack.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
