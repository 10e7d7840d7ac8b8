#!/bin/sh
# make run: the whole stack on the mock adapter, no Bluetooth needed.
# Starts `blectld --mock` (its own private dbus-daemon and blectl-mock) on a
# socket in a temporary directory, shows `blectl read`, `blectl scan` and
# `blectl history`, then streams with `blectl watch` until Ctrl-C (or for
# $RUN_SECONDS seconds). Everything it started is stopped on exit. With
# MQTT=mqtt://host (make run MQTT=mqtt://localhost) blectld publishes to that broker
# too, and this says how to watch it with mosquitto_sub.
set -eu
. "$(dirname "$0")/mock-daemon.sh"
bin=${1:-.build/release}
dir=$(mktemp -d "${TMPDIR:-/tmp}/blectl-run-XXXXXX")
socket="$dir/blectld.sock"
log="$dir/blectld.log"
export BLECTL_SOCKET="$socket"

# One advertising sensor of every format the mock plays (BLECTL_MOCK_OPTIONS overrides).
export BLECTL_MOCK_OPTIONS="${BLECTL_MOCK_OPTIONS:---advertisers 34}"
# The mock's encrypted BTHome (A4:C1:38:AD:00:02), Xiaomi (A4:C1:38:AD:00:08), BTHome v1
# (A4:C1:38:AD:00:19) and pvvx (A4:C1:38:AD:00:1A, :1B: the firmware's bind key) sensors have
# known keys; their owner would put the same lines in /etc/blectl/blectld.conf.
printf '%s\n' 'bthome_key A4:C1:38:AD:00:02 = 231d39c1d7cc1ab1aee224cd096db932' \
    'bthome_key A4:C1:38:AD:00:19 = 231d39c1d7cc1ab1aee224cd096db932' \
    'bthome_key A4:C1:38:AD:00:1A = 231d39c1d7cc1ab1aee224cd096db932' \
    'bthome_key A4:C1:38:AD:00:1B = 231d39c1d7cc1ab1aee224cd096db932' \
    'mibeacon_key A4:C1:38:AD:00:08 = 814aac74c4f17b6c1581e1ab87816b99' >"$dir/blectld.conf"
chmod 600 "$dir/blectld.conf" # keys: blectld refuses a file every user can read
set -- --log-level info
if [ -n "${MQTT:-}" ]; then
    set -- "$@" --mqtt "$MQTT" --mqtt-gateway "${MQTT_GATEWAY:-$(hostname)}"
fi
start_mock_daemon "$bin" "$dir" "$@"

if [ -n "${MQTT:-}" ]; then
    # mqtt://host[:port] → -h host [-p port] (mqtts needs --cafile too: see docs/mqtt.md).
    hostport=${MQTT#*://}
    host=${hostport%%:*}
    port=""
    [ "$host" != "$hostport" ] && port=" -p ${hostport##*:}"
    echo "blectld publishes to $MQTT; watch it with:"
    echo "    mosquitto_sub -h $host$port -v -t 'blectl/#' -t 'homeassistant/#'"
    if ! command -v mosquitto_sub >/dev/null; then echo "    (mosquitto_sub is in Debian's mosquitto-clients)"; fi
    echo
fi
echo "\$ blectl read --timeout 15"
in_foreground "$bin/blectl" read --timeout 15
echo
echo "\$ blectl scan --timeout 3"
in_foreground "$bin/blectl" scan --timeout 3
echo
echo "\$ blectl history --since 1h"
in_foreground "$bin/blectl" history --since 1h
echo
echo "\$ blectl watch        (Ctrl-C to stop; daemon log: $log)"
if [ -n "${RUN_SECONDS:-}" ]; then
    in_foreground timeout "$RUN_SECONDS" "$bin/blectl" watch || true
else
    in_foreground "$bin/blectl" watch || true
fi
