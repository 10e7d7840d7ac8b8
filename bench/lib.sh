# Shared by bench/run.sh and bench/check.sh (sourced, bash): packages, binaries, the C tools
# and the Bleak venv, all under $BENCH_WORK (default /tmp/blectl-bench).

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${BENCH_WORK:-/tmp/blectl-bench}
export BENCH_WORK=$work
export PATH="/opt/swift/usr/bin:$PATH"
export PYTHONDONTWRITEBYTECODE=1
mkdir -p "$work"

note() { printf '[bench] %s\n' "$*" >&2; }

# Debian packages: a compiler and the libdbus and SQLite headers for the C tools, dbus-daemon
# and dbus-send, python3 with venv for Bleak, strace for the regression guard's system calls.
bench_packages() {
    "$root/scripts/install-deps.sh" gcc libc6-dev pkg-config libdbus-1-dev libsqlite3-dev dbus-daemon dbus-bin \
        python3 python3-venv strace valgrind
}

# $bin: blectld and blectl-mock (with --emit-log). $1 = release or debug: what to build when
# nothing is there. Copied to $work/bin, so a rebuild meanwhile changes nothing mid-run.
bench_binaries() {
    local config=$1 from=${BLECTL_BIN:-}
    if [ -z "$from" ]; then
        for candidate in "$root/.build/release" "$root/.build/debug"; do
            if [ -x "$candidate/blectld" ] && [ -x "$candidate/blectl-mock" ]; then
                from=$candidate
                break
            fi
            [ "$config" = release ] && break
        done
    fi
    if [ -z "$from" ]; then
        note "building blectld and blectl-mock ($config)"
        (cd "$root" && swift build -c "$config" --product blectld >&2 && swift build -c "$config" --product blectl-mock >&2)
        from="$root/.build/$config"
    fi
    if ! "$from/blectl-mock" --help | grep -q -- --emit-log; then
        note "$from/blectl-mock has no --emit-log: rebuild it (swift build -c $config)"
        return 1
    fi
    mkdir -p "$work/bin"
    cp "$from/blectld" "$from/blectl-mock" "$work/bin/"
    bin="$work/bin"
    note "binaries: $from"
}

# The C subscriber, the socket reader, the allocation counter (the regression guard's) and
# the SQLite floor.
bench_tools() {
    mkdir -p "$work/tools"
    gcc -O2 -Wall -Wextra -o "$work/tools/c_subscriber" "$root/bench/c_subscriber.c" \
        $(pkg-config --cflags --libs dbus-1)
    gcc -O2 -Wall -Wextra -o "$work/tools/sqlite_floor" "$root/bench/sqlite_floor.c" \
        $(pkg-config --cflags --libs sqlite3)
    gcc -O2 -Wall -Wextra -o "$work/tools/sock_reader" "$root/bench/sock_reader.c"
    gcc -O2 -Wall -Wextra -shared -fPIC -o "$work/tools/alloc_counter.so" "$root/bench/alloc_counter.c"
}

# A venv with Bleak ($venv_python), made once. Debian's python3 when there, else the PATH's.
# Without PyPI the benchmark runs without the Bleak column.
bench_venv() {
    venv_python=$(make_venv venv bleak "bleak>=1,<4") ||
        note "cannot install Bleak (PyPI unreachable?): the table has no Bleak column"
}

# A venv with Theengs Gateway ($theengs_python; its executable is beside it), made once:
# the peer of bench/theengs_bench.py, pinned. Empty when PyPI is unreachable.
bench_theengs_venv() {
    theengs_python=$(make_venv theengs-venv TheengsGateway "TheengsGateway==1.8.0" "TheengsDecoder==2.5.0" \
        "paho-mqtt==2.2.0") || note "cannot install Theengs Gateway (PyPI unreachable?)"
}

# make_venv NAME MODULE PACKAGE...: $work/NAME with the packages, unless MODULE imports there
# already; prints its python, fails when the install does.
make_venv() {
    local name=$1 module=$2 python=python3
    shift 2
    [ -x /usr/bin/python3 ] && python=/usr/bin/python3
    if ! "$work/$name/bin/python" -c "import $module" 2>/dev/null; then
        rm -rf "$work/$name"
        if ! "$python" -m venv "$work/$name" >&2 ||
            ! "$work/$name/bin/pip" install --quiet --disable-pip-version-check "$@" >&2; then
            rm -rf "$work/$name"
            return 1
        fi
    fi
    echo "$work/$name/bin/python"
}
