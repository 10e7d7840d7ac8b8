#!/bin/sh
# Shows that each rule of check-layers.sh fails on a planted violation: for each, a copy of
# Sources gets one bad line, and check-layers must exit 1 and name it. Exits 1 if a rule
# let its violation through (or the clean copy fails).
set -u
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0

# plant NAME FILE LINE: appends LINE to Sources/FILE in a fresh copy and expects a failure.
plant() {
    rm -rf "$scratch/Sources" && cp -R "$here/../Sources" "$scratch/Sources"
    [ -n "$2" ] && printf '%s\n' "$3" >>"$scratch/Sources/$2"
    output=$(CHECK_LAYERS_ROOT="$scratch" sh "$here/check-layers.sh" 2>&1)
    code=$?
    if [ -z "$2" ]; then
        [ "$code" = 0 ] && echo "ok: the tree as it is passes" || { echo "FAIL: the clean tree fails: $output"; failed=1; }
    elif [ "$code" = 1 ] && printf '%s' "$output" | grep -qF "Sources/$2"; then
        echo "ok: $1"
    else
        echo "FAIL: $1 was not caught (exit $code): $output"
        failed=1
    fi
}

plant 'clean tree' '' ''
plant 'a plain import past a layer' Central/Exports.swift 'import DBusCore'
plant 'an internal import' Daemon/DaemonRunner.swift 'internal import BlueZClient'
plant 'a package import' ReadingHub/Hub.swift 'package import Central'
plant '@preconcurrency import' SocketOutput/LineBuffer.swift '@preconcurrency import DBusCore'
plant 'an indented import in #if' SensorModel/Quantity.swift '    import UnixSupport'
plant 'import struct X.Y' blectl/main.swift 'import struct ReadingHub.Hub'
plant '@_exported import' MQTTOutput/Topics.swift '@_exported public import ThermometerProfiles'
plant 'the mock importing the daemon' MockBlueZ/EmitLog.swift 'import Daemon'
plant 'the protocol importing the hub' BlectlProtocol/Hello.swift 'import ReadingHub'
plant 'UnixSupport importing the event loop' UnixSupport/Log.swift 'import ConcurrencySupport'
plant 'the event loop importing a layer above' ConcurrencySupport/OneShot.swift 'import SensorModel'
plant 'a profile id compared in an output' MQTTOutput/Topics.swift 'let planted = profile == "ruuvi"'
plant 'a profile id in the CLI' blectl/Terminal.swift 'let planted: String = "pi-cputemp"'
plant 'a default written twice' Daemon/DaemonService.swift 'struct PlantedConfiguration { var maxClients = 64 }'
plant 'a second lock primitive' HTTPOutput/WorkGate.swift 'import Synchronization
let plantedLock = Mutex<Int>(0)'
plant 'Task.sleep outside the mock' Daemon/DaemonRunner.swift 'func planted() async { try? await Task.sleep(for: .seconds(1)) }'

[ "$failed" = 0 ] && echo "check-layers self-test: every planted violation was caught"
exit $failed
