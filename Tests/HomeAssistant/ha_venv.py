"""Home Assistant Core in a cached virtual environment, for Tests/HomeAssistant/ha_test.py.

The environment is keyed by the pinned version and reused while its marker file is there;
an install that did not finish (no marker) is removed and made again.
"""

import fcntl, glob, os, shutil, subprocess, sys, time, zipfile

# The newest Home Assistant that accepts Python 3.13.0 (pyenv's, the newest here): 2025.5
# asks for 3.13.2. Bumping it: the requirements below are those of the integrations the
# test sets up, read from their manifest.json in the new wheel.
HA_VERSION = "2025.4.4"
# Not core requirements, so not in the wheel's dependencies: Home Assistant would install
# them at its first start (it runs with --skip-pip here). frontend is a default integration
# (without it Home Assistant starts in recovery mode), mqtt needs paho, isal loads first.
REQUIREMENTS = ["paho-mqtt==2.1.0", "home-assistant-frontend==20250411.0", "isal==1.7.1"]
PYTHON_VERSION = (3, 13)
MARKER = ".blectl-complete"


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "blectl", f"ha-venv-{HA_VERSION}")


def find_python():
    """A Python 3.13: $BLECTL_HA_PYTHON, pyenv's, or python3.13 on PATH."""
    candidates = [os.environ.get("BLECTL_HA_PYTHON")]
    root = os.environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")
    candidates += sorted(glob.glob(os.path.join(root, "versions", "3.13.*", "bin", "python3")), reverse=True)
    candidates += [shutil.which("python3.13")]
    for python in filter(None, candidates):
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                             text=True)
        if out.returncode == 0 and tuple(map(int, out.stdout.split())) == PYTHON_VERSION:
            return python
    raise SystemExit("ha test: no Python 3.13 found (pyenv's 3.13.x, python3.13, or set BLECTL_HA_PYTHON)")


def ensure(log=print):
    """The environment's python, installed first if missing; one install at a time (a lock)."""
    venv = cache_dir()
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    with open(venv + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(venv, MARKER)):
            install(venv, log)
    return os.path.join(venv, "bin", "python")


def install(venv, log):
    shutil.rmtree(venv, ignore_errors=True)
    started = time.monotonic()
    log(f"ha test: installing Home Assistant {HA_VERSION} into {venv} (minutes, once)")
    subprocess.run([find_python(), "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    pip = [python, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    wheels = os.path.join(venv, "wheels")
    subprocess.run(pip + ["download", "--no-deps", f"homeassistant=={HA_VERSION}", "-d", wheels], check=True)
    wheel = glob.glob(os.path.join(wheels, f"homeassistant-{HA_VERSION}-*.whl"))[0]
    # Home Assistant's own pins for what its requirements pull in, as its releases are built.
    constraints = os.path.join(venv, "package_constraints.txt")
    with zipfile.ZipFile(wheel) as archive, open(constraints, "wb") as out:
        out.write(archive.read("homeassistant/package_constraints.txt"))
    subprocess.run(pip + ["install", "-c", constraints, wheel] + REQUIREMENTS, check=True)
    shutil.rmtree(wheels)
    open(os.path.join(venv, MARKER), "w").write(f"{HA_VERSION} {time.time():.0f}\n")
    log(f"ha test: installed in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    print(ensure())
