#!/bin/sh
# Checks the rules of README's "How it is built" on the imports: a module imports only
# its neighbours. Prints each import that breaks a rule and exits 1 if there is any.
set -u
cd "$(dirname "$0")/.."
status=0
# forbid MODULE PATTERN WHY: no file of Sources/MODULE may import a module matching PATTERN.
forbid() {
    found=$(grep -rnE "^(public |@testable )?import ($2)\$" "Sources/$1" --include='*.swift' 2>/dev/null)
    if [ -n "$found" ]; then
        printf '%s\n' "$found" | sed "s|\$|   <- $3|"
        status=1
    fi
}
# The central reaches BlueZ only through BlueZClient.
forbid Central 'DBusCore|CBlueZ' 'Central talks to BlueZClient, never to D-Bus'
# BlueZClient reaches C only through DBusCore, except libbluetooth's HCI reset.
found=$(grep -rlnE '^(public |@testable )?import CBlueZ$' Sources/BlueZClient --include='*.swift' | grep -v '/ControllerReset.swift$')
if [ -n "$found" ]; then
    printf '%s   <- BlueZClient uses CBlueZ only for the HCI reset (ControllerReset.swift)\n' $found
    status=1
fi
# The daemon reaches Bluetooth only through the central.
forbid Daemon 'BlueZClient|DBusCore|CBlueZ|ThermometerProfiles' 'the daemon talks to the central only'
# The hub and its outputs know nothing of Bluetooth.
for module in ReadingHub SocketOutput HistoryStore MQTTOutput HTTPOutput; do
    [ -d "Sources/$module" ] || continue
    forbid "$module" 'Central|BlueZClient|DBusCore|CBlueZ|ThermometerProfiles|Daemon' 'outputs and the hub know nothing of Bluetooth'
done
# The bottom modules depend on nothing of ours above them.
forbid SensorModel '[A-Z][A-Za-z]*' 'SensorModel is below everything'
forbid UnixSupport 'SensorModel|BlectlProtocol|DBusCore|BlueZClient|Central|ReadingHub|Daemon' 'UnixSupport is below everything'
# The CLI speaks the protocol only.
forbid blectl 'Daemon|ReadingHub|Central|BlueZClient|DBusCore|CBlueZ' 'blectl knows the protocol, not the daemon'
[ "$status" = 0 ] && echo "layers: every import follows the rules"
exit $status
