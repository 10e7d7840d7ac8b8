#!/usr/bin/env python3
"""A real Home Assistant Core as the consumer of blectld's MQTT discovery (make test-ha).

Starts a mosquitto on a free loopback port, Home Assistant (ha_venv.HA_VERSION, from a
cached virtual environment) with its own configuration directory and port, onboards it and
adds the MQTT integration through its HTTP APIs, then `blectld --mock --mqtt`, and checks
through Home Assistant's REST API that every device blectld reads has its entities, with
blectld's values, units and device classes, available, under the entity ids blectld asks
for; then that a second gateway on the same broker adds its own connectivity sensor and
nothing else; and that Home Assistant logged nothing above INFO (but two lines about its own
setup). Every process it starts is stopped on the way out. The last line is `N passed, N
failed`; the exit status is 1 if anything failed, 2 if the rig could not be set up.

Standard library only: any python3 runs it (Home Assistant runs in its own environment).
"""

import argparse, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time
import urllib.error, urllib.parse, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ha_venv  # noqa: E402

GATEWAY = "ha-test"
# A second gateway on the same broker, its own mock hearing the same devices; its name has
# the slug of GATEWAY's, so without the hash (docs/mqtt.md, "Entity ids") both would ask for
# binary_sensor.blectl_ha_test_connectivity.
SECOND_GATEWAY = "ha_test"
# What each quantity must be in Home Assistant (docs/mqtt.md): written out here, not read
# from blectld's configs, so a wrong unit or device class in Discovery.swift fails.
QUANTITIES = {
    "celsius": ("temperature", "temperature", "°C"),
    "humidity": ("humidity", "humidity", "%"),
    "battery": ("battery", "battery", "%"),
    "pressure": ("pressure", "atmospheric_pressure", "hPa"),
    "voltage": ("voltage", "voltage", "V"),
    "co2": ("co2", "carbon_dioxide", "ppm"),
    "dew_point": ("dew_point", "temperature", "°C"),
}
# What Home Assistant logs above INFO here whatever blectld publishes: --skip-pip is on
# purpose (the environment has every requirement), and no camera needs libturbojpeg. Any
# other warning or error fails the test, so that one about blectl's payloads cannot hide.
EXPECTED_LOG = [
    ("homeassistant.bootstrap", "Skipping pip installation of required modules"),
    ("homeassistant.components.camera.img_util", "Error loading libturbojpeg"),
]
LOG_LEVEL = re.compile(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) \(\S+\) \[([^\]]+)\] (.*)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(what, condition, timeout, every=0.5):
    end = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except (OSError, ValueError):
            value = None
        if value:
            return value
        if time.monotonic() > end:
            raise SetupError(f"{what}: not within {timeout} s")
        time.sleep(every)


class SetupError(Exception):
    pass


class Processes:
    """What the test started, stopped in reverse order however it ends."""

    def __init__(self, work):
        self.work, self.procs = work, []

    def start(self, name, argv, env=None):
        log = open(os.path.join(self.work, f"{name}.log"), "w")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        self.procs.append((name, proc))
        return proc

    def alive(self):
        """True, or a SetupError naming the process that ended and the end of its log."""
        for name, proc in self.procs:
            if proc.poll() is not None:
                tail = open(os.path.join(self.work, f"{name}.log"), errors="replace").read()[-1500:]
                raise SetupError(f"{name} exited with status {proc.returncode}:\n{tail}")
        return True

    def close(self):
        for name, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    print(f"ha test: {name} ignored SIGTERM for 30 s; killing it")
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


class HomeAssistant:
    """One Home Assistant instance over HTTP."""

    def __init__(self, port):
        self.base, self.token = f"http://127.0.0.1:{port}", None

    def request(self, method, path, body=None, form=None):
        headers, data = {}, None
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            headers["Content-Type"], data = "application/json", json.dumps(body).encode()
        elif form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            data = urllib.parse.urlencode(form).encode()
        req = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as reply:
                text = reply.read().decode()
        except urllib.error.HTTPError as error:
            raise SetupError(f"{method} {path}: HTTP {error.code}: {error.read().decode()[:500]}")
        return json.loads(text) if text.strip().startswith(("{", "[")) else text

    def onboard(self):
        """The owner account through onboarding, then a token for it (no UI involved)."""
        client_id = self.base + "/"
        user = self.request("POST", "/api/onboarding/users", {
            "client_id": client_id, "name": "blectl", "username": "blectl", "password": "blectl-test-only",
            "language": "en"})
        token = self.request("POST", "/auth/token", form={
            "grant_type": "authorization_code", "code": user["auth_code"], "client_id": client_id})
        self.token = token["access_token"]

    def add_mqtt(self, broker_port):
        flow = self.request("POST", "/api/config/config_entries/flow", {"handler": "mqtt"})
        if flow.get("step_id") != "broker":
            raise SetupError(f"MQTT config flow: expected the broker step, got {flow}")
        done = self.request("POST", f"/api/config/config_entries/flow/{flow['flow_id']}",
                            {"broker": "127.0.0.1", "port": broker_port})
        if done.get("type") != "create_entry":
            raise SetupError(f"MQTT config flow: {done}")

    def states(self):
        return {state["entity_id"]: state for state in self.request("GET", "/api/states")}

    def template(self, text):
        return self.request("POST", "/api/template", {"template": text})


def start_broker(procs, work):
    port = free_port()
    conf = os.path.join(work, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n" + ("user root\n" if os.geteuid() == 0 else ""))
    procs.start("mosquitto", ["mosquitto", "-c", conf])
    wait("mosquitto listening", lambda: procs.alive() and socket.create_connection(("127.0.0.1", port), 1).close()
         or True, 10)
    return port


def start_home_assistant(procs, work, python):
    port = free_port()
    config = os.path.join(work, "ha-config")
    os.makedirs(config)
    # The smallest configuration that onboarding, the config flow and the REST API need;
    # default_config would set up dozens of integrations (and their requirements) more.
    with open(os.path.join(config, "configuration.yaml"), "w") as f:
        f.write(f"""homeassistant:
  name: blectl test
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: CH
  currency: CHF
http:
  server_host: 127.0.0.1
  server_port: {port}
api:
config:
onboarding:
""")
    procs.start("home-assistant", [python, "-m", "homeassistant", "--config", config, "--skip-pip",
                                   "--log-file", os.path.join(work, "home-assistant.log")])
    ha = HomeAssistant(port)
    wait("Home Assistant answering", lambda: procs.alive() and isinstance(ha.request("GET", "/api/onboarding"), list),
         180)
    return ha


def start_blectld(procs, work, bin_dir, broker_port, gateway):
    """blectld --mock publishing as `gateway`; its socket's path."""
    sock, state = os.path.join(work, f"{gateway}.sock"), os.path.join(work, f"{gateway}-state")
    os.makedirs(state)
    config = os.path.join(work, f"{gateway}.conf")
    # One advertising sensor of every format the mock plays, the encrypted ones with their keys.
    with open(config, "w") as f:
        f.write("bthome_key A4:C1:38:AD:00:02 = 231d39c1d7cc1ab1aee224cd096db932\n"
                "mibeacon_key A4:C1:38:AD:00:08 = 814aac74c4f17b6c1581e1ab87816b99\n")
    os.chmod(config, 0o600)  # keys: blectld refuses a file others can read
    argv = [os.path.join(bin_dir, "blectld"), "--mock", "--socket", sock, "--config", config, "--state-dir", state,
            "--mqtt", f"mqtt://127.0.0.1:{broker_port}", "--mqtt-gateway", gateway, "--log-level", "info"]
    env = dict(os.environ, XDG_RUNTIME_DIR=work, BLECTL_MOCK_OPTIONS="--advertisers 10")
    procs.start(f"blectld-{gateway}", argv, env)
    return sock


def blectld_readings(bin_dir, sock):
    """blectld's latest reading of every device it reads, by address (blectl read --json)."""
    out = subprocess.run([os.path.join(bin_dir, "blectl"), "--socket", sock, "read", "--json", "--timeout", "2"],
                         capture_output=True, text=True, timeout=60)
    rows = json.loads(out.stdout) if out.stdout.strip() else []
    return {row["address"]: row for row in rows}


def blectld_reception(bin_dir, sock):
    """The advertising sensors whose reception blectld counts (status --json), by address:
    each has a diagnostic Reception entity (docs/mqtt.md)."""
    out = subprocess.run([os.path.join(bin_dir, "blectl"), "--socket", sock, "status", "--json"],
                         capture_output=True, text=True, timeout=60)
    status = json.loads(out.stdout) if out.stdout.strip() else {}
    sensors = (status.get("advertisements") or {}).get("sensors") or []
    return {sensor["address"]: sensor for sensor in sensors if sensor.get("ratio_last_hour") is not None}


def fnv1a(text):
    value = 2166136261
    for byte in text.encode():
        value = ((value ^ byte) * 16777619) & 0xFFFFFFFF
    return f"{value:08x}"


def slug(text):
    """docs/mqtt.md's rule for a name in an entity id, written again from the document."""
    lowered = bytes(byte + 32 if 65 <= byte <= 90 else byte for byte in text.encode())
    out = re.sub(rb"[^a-z0-9]+", b"_", lowered).decode().strip("_")
    return out if out == text else "_".join(filter(None, [out, fnv1a(text)]))


def expected_entities(readings):
    """entity id -> (address, payload key, device class, unit) for every value blectld has."""
    expected = {}
    for address, row in readings.items():
        device_id = address.lower().replace(":", "")
        for key, (obj, device_class, unit) in QUANTITIES.items():
            if row.get(key) is not None:
                expected[f"sensor.blectl_{device_id}_{obj}"] = (address, key, device_class, unit)
    return expected


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {what}")
        return ok


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def reception_entity(address):
    return f"sensor.blectl_{address.lower().replace(':', '')}_reception"


def mismatches(ha, before, after, reception=None):
    """For every entity expected, what differs between Home Assistant and blectld (empty: nothing).

    Every advertising sensor in `reception` has its Reception entity: a percentage, 0 to 100.

    A value matches blectld's reading from just before or just after Home Assistant's
    states were fetched: a reading may arrive in between.
    """
    states = ha.states()
    problems = {}
    for entity, (address, key, device_class, unit) in expected_entities(after).items():
        state = states.get(entity)
        problems[entity] = found = []
        if state is None:
            found.append(f"{entity} ({address} {key}): no such entity in Home Assistant")
            continue
        attributes = state["attributes"]
        values = {row[key] for row in (before.get(address, {}), after[address]) if row.get(key) is not None}
        if state["state"] in ("unavailable", "unknown"):
            found.append(f"{entity}: {state['state']}")
        elif number(state["state"]) not in values:
            found.append(f"{entity}: {state['state']} in Home Assistant, blectld read {sorted(values)}")
        if attributes.get("device_class") != device_class:
            found.append(f"{entity}: device_class {attributes.get('device_class')!r}, not {device_class!r}")
        if attributes.get("unit_of_measurement") != unit:
            found.append(f"{entity}: unit {attributes.get('unit_of_measurement')!r}, not {unit!r}")
    for address in reception or {}:
        entity = reception_entity(address)
        state = states.get(entity)
        problems[entity] = found = []
        if state is None:
            found.append(f"{entity} ({address} reception): no such entity in Home Assistant")
            continue
        value = number(state["state"])
        if value is None or not 0 <= value <= 100:
            found.append(f"{entity}: {state['state']!r}, not a percentage")
        if state["attributes"].get("unit_of_measurement") != "%":
            found.append(f"{entity}: unit {state['attributes'].get('unit_of_measurement')!r}, not '%'")
    gateway = f"binary_sensor.blectl_{slug(GATEWAY)}_connectivity"
    state = states.get(gateway)
    ok = state and state["state"] == "on" and state["attributes"].get("device_class") == "connectivity"
    shown = (state["state"], state["attributes"]) if state else "no such entity in Home Assistant"
    problems[gateway] = [] if ok else [f"{gateway}: {shown}"]
    return problems


def check_devices(ha, checks, readings):
    """One Home Assistant device per address, named as blectld names it, holding its entities."""
    expected = expected_entities(readings)
    devices = {}
    for entity, (address, *_) in expected.items():
        devices.setdefault(address, set()).add(ha.template(f"{{{{ device_id('{entity}') }}}}"))
    for address, ids in devices.items():
        if not checks.check(len(ids) == 1 and "None" not in ids, f"{address}: its entities on devices {ids}"):
            continue
        device = next(iter(ids))
        name = ha.template(f"{{{{ device_attr('{device}', 'name') }}}}")
        checks.check(name == (readings[address].get("name") or address), f"{address}: device named {name!r}")
        via = ha.template(f"{{{{ device_attr(device_attr('{device}', 'via_device_id'), 'name') }}}}")
        checks.check(via == f"blectl gateway {GATEWAY}", f"{address}: connected via {via!r}")
    checks.check(len(set().union(*devices.values())) == len(devices), f"one device per address: {devices}")


def blectl_entities(ha):
    return {entity for entity in ha.states() if entity.split(".", 1)[1].startswith("blectl_")}


def check_second_gateway(ha, checks, readings):
    """Once the second gateway has published every device's configs: the same entities, and
    its connectivity sensor, nothing else (a clash would show as an id ending in `_2`)."""
    before = blectl_entities(ha)
    name, heard = f"blectl gateway {SECOND_GATEWAY}", set()

    def every_device_via_second():
        # via_device names the gateway that published a device's configs last (docs/mqtt.md).
        for entity, (address, *_) in expected_entities(readings).items():
            via = f"{{{{ device_attr(device_attr(device_id('{entity}'), 'via_device_id'), 'name') }}}}"
            if address not in heard and ha.template(via) == name:
                heard.add(address)
        return heard == set(readings)

    try:
        wait("every device's configs from the second gateway", every_device_via_second, 120, every=1)
    except SetupError as error:
        checks.check(False, f"{error}: heard of {sorted(heard)} only")
        return
    expected = before | {f"binary_sensor.blectl_{slug(SECOND_GATEWAY)}_connectivity"}
    after = blectl_entities(ha)
    checks.check(after == expected, f"with a second gateway: new {after - expected}, missing {expected - after}")


def log_problems(path):
    """Home Assistant's log lines above INFO, but those known to be about its own setup here."""
    problems = []
    for line in open(path, errors="replace"):
        match = LOG_LEVEL.match(line)
        if match and not any(match[2] == logger and match[3].startswith(text) for logger, text in EXPECTED_LOG):
            problems.append(line.rstrip())
    return problems


def run(args, work, checks):
    for binary in ("blectld", "blectl"):
        if not os.access(os.path.join(args.bin, binary), os.X_OK):
            raise SetupError(f"no {binary} in {args.bin} (swift build, or --bin)")
    python = ha_venv.ensure()
    procs = Processes(work)
    try:
        started = time.monotonic()
        broker = start_broker(procs, work)
        ha = start_home_assistant(procs, work, python)
        ha.onboard()
        ha.add_mqtt(broker)
        print(f"ha test: Home Assistant {ha_venv.HA_VERSION} up with MQTT in {time.monotonic() - started:.0f} s")
        sock = start_blectld(procs, work, args.bin, broker, GATEWAY)

        def all_read():
            readings = procs.alive() and blectld_readings(args.bin, sock)
            return readings if len(expected_entities(readings)) >= args.min_entities else None

        readings = wait("blectld reading every mock device", all_read, 120)
        # Every mock device is an advertising sensor but the two Pis: one Reception entity each.
        reception = wait("blectld counting every advertising sensor's reception",
                         lambda: (found := blectld_reception(args.bin, sock)) and len(found) >= len(readings) - 2
                         and found, 60)
        print(f"ha test: blectld reads {len(readings)} devices, {len(expected_entities(readings))} values, "
              f"{len(reception)} reception entities")
        problems = {}

        def matched():
            nonlocal problems, readings
            before = blectld_readings(args.bin, sock)
            problems = mismatches(ha, before, readings := blectld_readings(args.bin, sock), reception)
            return not any(problems.values())

        try:
            wait("Home Assistant showing blectld's readings", matched, args.timeout, every=1)
        except SetupError:
            pass
        for entity, found in sorted(problems.items()):
            checks.check(not found, "; ".join(found))
        check_devices(ha, checks, readings)
        print(f"ha test: entities checked in {time.monotonic() - started:.0f} s after the start")
        start_blectld(procs, work, args.bin, broker, SECOND_GATEWAY)
        check_second_gateway(ha, checks, readings)
        print(f"ha test: second gateway checked {time.monotonic() - started:.0f} s after the start")
    finally:
        procs.close()
    logged = log_problems(os.path.join(work, "home-assistant.log"))
    checks.check(not logged, "Home Assistant logged above INFO:\n  " + "\n  ".join(logged))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=".build/debug", help="where blectld and blectl are")
    parser.add_argument("--timeout", type=float, default=90, help="seconds for Home Assistant to catch up")
    parser.add_argument("--min-entities", type=int, default=20, help="values blectld must read before checking")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, configs)")
    parser.add_argument("--setup-only", action="store_true", help="install Home Assistant if missing, then stop")
    args = parser.parse_args()
    if args.setup_only:
        print(ha_venv.ensure())
        return 0
    # A SIGTERM (make or CI giving up) unwinds like an exception: what was started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    work = tempfile.mkdtemp(prefix="blectl-ha-")
    checks = Checks()
    status = 0
    try:
        run(args, work, checks)
    except SetupError as error:
        checks.check(False, f"could not set up: {error}")
        status = 2
    finally:
        if checks.failed or args.keep:
            print(f"ha test: logs in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{checks.passed} passed, {checks.failed} failed")
    return status or (1 if checks.failed else 0)


if __name__ == "__main__":
    sys.exit(main())
