#!/bin/sh
# Checks the rules of README's "How it is built": a module imports only its neighbours,
# profile ids are named only where the families are declared, time is waited for in one
# way, and a setting's default is written once. Prints each line that breaks a rule and
# exits 1 if there is any.
#
# CHECK_LAYERS_ROOT=DIR checks another tree (the self-test plants violations in a copy).
set -u
cd "${CHECK_LAYERS_ROOT:-$(dirname "$0")/..}"
status=0

# Every form of import: attributes (@testable, @preconcurrency, @_exported), an access level
# (public, package, internal…), and a declaration import (import struct X.Y); inside #if too.
import_of() {
    printf '^[[:space:]]*(@[A-Za-z_]+(\\([^)]*\\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?(%s)([.[:space:]]|$)' "$1"
}

report() {
    if [ -n "$1" ]; then
        printf '%s\n' "$1" | sed "s|\$|   <- $2|"
        status=1
    fi
}

# forbid MODULE PATTERN WHY: no file of Sources/MODULE may import a module matching PATTERN.
forbid() {
    [ -d "Sources/$1" ] || { echo "check-layers: no module Sources/$1 (a rule names it)"; status=1; return; }
    report "$(grep -rnE "$(import_of "$2")" "Sources/$1" --include='*.swift' 2>/dev/null)" "$3"
}

# Our modules, for the rules that allow only a few.
ours='CBlueZ|CLinux|CMicroHTTPD|CMosquitto|CNettle|CSQLite|DBusCore|BlueZClient|SensorModel|ThermometerProfiles|Central|MockBlueZ|PrivateBus|ConcurrencySupport|UnixSupport|HistoryStore|BlectlProtocol|ReadingHub|SocketOutput|MQTTOutput|HTTPOutput|Daemon'
# allow MODULE ALLOWED WHY: Sources/MODULE imports none of ours but those in ALLOWED.
allow() {
    others=$(printf '%s\n' "$ours" | tr '|' '\n' | grep -vxE "$2|$1" | paste -sd'|' -)
    forbid "$1" "$others" "$3"
}

# Each module's neighbours (Package.swift's dependencies, kept here as the rule).
allow SensorModel '' 'SensorModel is below everything'
allow UnixSupport 'CLinux' 'UnixSupport is below everything (but the C of Linux)'
allow ConcurrencySupport 'UnixSupport|CLinux' 'the event loop sits on UnixSupport, and UnixSupport knows nothing of it'
allow PrivateBus '' 'PrivateBus is a configuration, below everything'
allow DBusCore 'CBlueZ|ConcurrencySupport' 'DBusCore wraps libdbus, nothing above it'
allow BlueZClient 'DBusCore|CBlueZ|SensorModel|ConcurrencySupport|UnixSupport' 'BlueZClient sits on DBusCore'
allow ThermometerProfiles 'SensorModel|CNettle' 'the profiles decode bytes, and know nothing of D-Bus or the daemon'
allow Central 'BlueZClient|ThermometerProfiles|SensorModel|ConcurrencySupport|UnixSupport' 'Central talks to BlueZClient, never to D-Bus'
allow MockBlueZ 'DBusCore|ConcurrencySupport|CNettle' 'the mock serves D-Bus, and knows nothing of the daemon'
allow BlectlProtocol 'SensorModel' 'the protocol is shared by blectld and blectl'
allow ReadingHub 'BlectlProtocol|SensorModel|ConcurrencySupport|UnixSupport' 'the hub knows nothing of Bluetooth'
allow SocketOutput 'ReadingHub|BlectlProtocol|SensorModel|ConcurrencySupport|UnixSupport' 'outputs know nothing of Bluetooth'
allow HistoryStore 'CSQLite|ReadingHub|BlectlProtocol|SensorModel|ConcurrencySupport|UnixSupport' 'outputs know nothing of Bluetooth'
allow MQTTOutput 'CMosquitto|ReadingHub|BlectlProtocol|SensorModel|ConcurrencySupport|UnixSupport' 'outputs know nothing of Bluetooth'
allow HTTPOutput 'CMicroHTTPD|ReadingHub|BlectlProtocol|SensorModel|ConcurrencySupport|UnixSupport' 'outputs know nothing of Bluetooth'
allow Daemon 'Central|ReadingHub|SocketOutput|HistoryStore|MQTTOutput|HTTPOutput|BlectlProtocol|SensorModel|ConcurrencySupport|UnixSupport' \
    'the daemon talks to the central only'
# BlueZClient reaches C only through DBusCore, except libbluetooth's HCI reset and the kernel's
# management socket (a sibling of the D-Bus core: advertisements without D-Bus).
report "$(grep -rnE "$(import_of CBlueZ)" Sources/BlueZClient --include='*.swift' |
    grep -vE '/(ControllerReset|ManagementSocket)\.swift:')" \
    'BlueZClient uses CBlueZ only for the HCI reset (ControllerReset.swift) and the management socket (ManagementSocket.swift)'
# The executables: each on the layer it is for.
allow blectld 'Daemon|PrivateBus|ConcurrencySupport|UnixSupport|SensorModel' 'blectld starts the daemon'
allow blectl 'BlectlProtocol|SensorModel|UnixSupport' 'blectl knows the protocol, not the daemon'
allow blectl-mock 'MockBlueZ|BlectlProtocol|PrivateBus|UnixSupport' 'blectl-mock runs the mock'
allow blectl-docs 'ThermometerProfiles|MockBlueZ|SensorModel|Daemon|UnixSupport' \
    'blectl-docs reads the registries and the settings tables (a build tool, never installed)'

# Profile ids are named where the families are declared (ThermometerProfiles) and by the
# mock, which plays the sensors; everyone else learns from the declarations (a flag that
# happens to spell an id, `host-cpu`, is not an id).
ids=$(grep -rhoE 'SensorFamily\([[:space:]]*$|id: "[a-z0-9-]+"' Sources/ThermometerProfiles --include='*.swift' |
    sed -n 's/^id: "\(.*\)"$/\1/p' | sort -u | paste -sd'|' -)
if [ -z "$ids" ]; then
    echo "check-layers: found no SensorFamily(id: …) declaration in Sources/ThermometerProfiles"
    status=1
else
    report "$(grep -rnE "\"($ids)\"" Sources --include='*.swift' |
        grep -vE '^Sources/(ThermometerProfiles|MockBlueZ|blectl-mock)/' | grep -vE 'flag: "[a-z0-9-]+"')" \
        'a profile id outside ThermometerProfiles: ask the family (SensorCatalog), not the id'
fi

# Time is waited for on an event loop (EventLoop.sleep, .schedule), never with Task.sleep,
# which keeps libdispatch's timer waking every second; the mock plays time as it likes.
report "$(grep -rnE 'Task\.sleep' Sources --include='*.swift' | grep -vE '^Sources/(MockBlueZ|blectl-mock)/' |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*///')" 'wait on an EventLoop (sleep(for:), schedule(after:)), not Task.sleep'

# One lock primitive: `Locked` (ConcurrencySupport/Locked.swift). Atomics are not locks; a second
# kind of lock (Synchronization's Mutex, NSLock, a pthread mutex of its own) is a second set of
# rules to get right.
report "$(grep -rnE '\bMutex<|NSLock|NSRecursiveLock|pthread_mutex_t|pthread_rwlock' Sources --include='*.swift' |
    grep -vE '^Sources/ConcurrencySupport/Locked\.swift:' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*///')" \
    'a lock other than Locked (ConcurrencySupport): use Locked'

# A setting's default is written once: in its module's configuration (or its settings
# table), which everyone else reads. In the files declaring configurations (a struct named
# …Configuration, …Settings, …Limits, …Policy or …Options), the same name with the same
# literal default (`var maxClients = 64`, `maxDevices: Int = 1024`) in two places is a copy
# that will drift; 0 is too common a default to count.
literal='-?[0-9][0-9_.]*([[:space:]]*(<<|\*)[[:space:]]*[0-9_]+)*|\.(seconds|milliseconds)\([0-9_ *]+\)|"[^"\\]+"'
default_decl="(var[[:space:]]+[a-zA-Z_][a-zA-Z0-9_]*(:[[:space:]]*[A-Za-z0-9_.<>?]+)?|[a-zA-Z_][a-zA-Z0-9_]*:[[:space:]]*[A-Za-z0-9_.<>?]+)[[:space:]]+=[[:space:]]+($literal)[[:space:]]*([,)}]|$)"
configuration_files=$(grep -rlE 'struct [A-Za-z]*(Configuration|Settings|Limits|Policy|Options)\b' Sources --include='*.swift' |
    grep -vE '^Sources/(MockBlueZ|blectl-mock)/')
# Each default as `name = value: file:line file:line…`, for those written more than once.
report "$(grep -noE "$default_decl" $configuration_files | awk '
    {
        split($0, part, ":"); at = part[1] ":" part[2]
        text = substr($0, length(at) + 2); sub(/^var[ \t]+/, "", text)
        name = text; sub(/[ \t:].*/, "", name)
        value = text; sub(/^[^=]*=[ \t]+/, "", value); sub(/[ \t]*[,}]?[ \t]*$/, "", value)
        if (gsub(/\)/, ")", value) > gsub(/\(/, "(", value)) sub(/\)[ \t]*$/, "", value)
        if (value == "0") next
        key = name " = " value; count[key]++; places[key] = places[key] " " at
    }
    END { for (key in count) if (count[key] > 1) print key ":" places[key] }')" \
    "a default written twice: declare it once, in the module's configuration, and read it from there"

[ "$status" = 0 ] && echo "layers: every import, profile id, wait and default follows the rules"
exit $status
