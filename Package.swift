// swift-tools-version:6.0
// blectl: a BLE thermometer central daemon for Linux over BlueZ's D-Bus API.
//
// The modules and the rules they keep: README.md, "How it is built" (`make check-layers`).
//   blectld → Daemon → Central → BlueZClient → DBusCore → CBlueZ (C)
//   Daemon → outputs (SocketOutput, HistoryStore, MQTTOutput, HTTPOutput) → ReadingHub
//   blectl → BlectlProtocol; blectl-mock → MockBlueZ → DBusCore
//   SensorModel, ConcurrencySupport and UnixSupport are below everything (ConcurrencySupport → UnixSupport).
import PackageDescription

/// Strict settings shared by every Swift target.
let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Release executables carry the Swift runtime inside them: Debian has no package of it, so
/// the .deb (debian/) depends only on what `dpkg-shlibdeps` finds (libdbus, libc, libstdc++…).
/// Modules that run at start, on requests or on a timer, not per notification: compiled for
/// size in release builds (docs/benchmarks-log.md item 35: 92 KB less code, about 120 KiB
/// less idle RSS, the same instructions per notification).
let coldSwift: [SwiftSetting] = strictSwift + [.unsafeFlags(["-Osize"], .when(configuration: .release))]

let staticSwiftRuntime: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]

let package = Package(
    name: "blectl",
    products: [
        .executable(name: "blectld", targets: ["blectld"]),
        .executable(name: "blectl", targets: ["blectl"]),
        .executable(name: "blectl-mock", targets: ["blectl-mock"]),
        .library(name: "DBusCore", targets: ["DBusCore"]),
        .library(name: "Central", targets: ["Central"]),
    ],
    targets: [
        // C: libdbus-1 and libbluetooth, found through pkg-config.
        .systemLibrary(
            name: "CBlueZ",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev", "libbluetooth-dev", "pkg-config"])]
        ),
        // C: Nettle's AES-CCM (encrypted advertisements), loaded when first used (dlopen), not linked.
        .systemLibrary(name: "CNettle", providers: [.apt(["nettle-dev"])]),
        // The D-Bus core: connections, the type system, calls, signals, serving.
        .target(name: "DBusCore", dependencies: ["CBlueZ", "ConcurrencySupport"], swiftSettings: strictSwift),
        // BlueZ client: an object mirror of org.bluez and typed views of its interfaces, and
        // the controller reset below bluetoothd (libbluetooth's HCI calls, through CBlueZ).
        .target(
            name: "BlueZClient",
            dependencies: ["DBusCore", "CBlueZ", "SensorModel", "ConcurrencySupport", "UnixSupport"],
            swiftSettings: strictSwift
        ),
        // The vocabulary every layer shares: addresses, measurements, adapter state, the
        // events the Bluetooth side reports. Pure Swift, no dependencies.
        .target(name: "SensorModel", swiftSettings: strictSwift),
        // Decoding: one profile per GATT service/characteristic UUID, one per advertisement format.
        .target(name: "ThermometerProfiles", dependencies: ["SensorModel", "CNettle"], swiftSettings: strictSwift),
        // The CoreBluetooth-style central manager and the thermometer flow.
        .target(
            name: "Central",
            dependencies: ["BlueZClient", "ThermometerProfiles", "SensorModel", "ConcurrencySupport", "UnixSupport"],
            swiftSettings: strictSwift
        ),
        // The mock adapter: a fake bluetoothd serving BlueZ's D-Bus API.
        // (Nettle seals its encrypted BTHome sensors' advertisements.)
        .target(
            name: "MockBlueZ", dependencies: ["DBusCore", "ConcurrencySupport", "CNettle"], swiftSettings: strictSwift),
        .executableTarget(
            name: "blectl-mock",
            dependencies: ["MockBlueZ", "BlectlProtocol", "PrivateBus", "UnixSupport"],
            swiftSettings: strictSwift, linkerSettings: staticSwiftRuntime
        ),
        // The one configuration of a private dbus-daemon: blectld --mock's, the tests', the benchmark's.
        .target(name: "PrivateBus", swiftSettings: strictSwift),
        // Linux headers Swift's Glibc module leaves out (epoll, eventfd), and fork + exec for a
        // child that dies with its parent (PR_SET_PDEATHSIG).
        .systemLibrary(name: "CLinux"),
        // Unix plumbing shared by every layer: logging, errors, signals, sd_notify, sockets,
        // files, child processes; and the settings and command-line parsing every layer declares.
        .target(name: "UnixSupport", dependencies: ["CLinux"], swiftSettings: strictSwift),
        // The event loop (epoll on a thread of its own, a Swift executor) and the ways to wait
        // on it: timers, descriptor watches, condition waiters, one-shot hand-offs, `Locked`.
        .target(name: "ConcurrencySupport", dependencies: ["UnixSupport", "CLinux"], swiftSettings: strictSwift),
        // C: libsqlite3, found through pkg-config.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The durable history: readings in an SQLite database, written in batches on a
        // thread of its own (docs/history.md).
        .target(
            name: "HistoryStore",
            dependencies: [
                "CSQLite", "ReadingHub", "BlectlProtocol", "SensorModel", "ConcurrencySupport", "UnixSupport",
            ],
            swiftSettings: strictSwift
        ),
        // The socket protocol's JSON messages, shared by blectld and blectl.
        .target(name: "BlectlProtocol", dependencies: ["SensorModel"], swiftSettings: strictSwift),
        // The hub: the daemon's state (adapter, peripherals, the recent readings), sequence
        // numbers, and the one way out to outputs. It knows nothing of Bluetooth's layers.
        .target(
            name: "ReadingHub", dependencies: ["BlectlProtocol", "SensorModel", "ConcurrencySupport", "UnixSupport"],
            swiftSettings: strictSwift),
        // An output of the hub: the Unix socket server of the JSON Lines protocol.
        .target(
            name: "SocketOutput", dependencies: ["ReadingHub", "BlectlProtocol", "ConcurrencySupport", "UnixSupport"],
            swiftSettings: strictSwift),
        // C: libmosquitto's headers (the MQTT client library); the library is loaded when the
        // first MQTT client is made (see the shim), so blectld without MQTT maps none of it.
        .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // An output of the hub: MQTT, with Home Assistant discovery and a backlog from the history (docs/mqtt.md).
        .target(
            name: "MQTTOutput",
            dependencies: [
                "CMosquitto", "ReadingHub", "BlectlProtocol", "SensorModel", "ConcurrencySupport", "UnixSupport",
            ],
            swiftSettings: coldSwift),
        // C: libmicrohttpd's header; the library is loaded when the HTTP output starts (see
        // the shim), so blectld without HTTP maps none of it.
        .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        // An output of the hub: the HTTP server of the page, /metrics and /api (docs/http.md).
        .target(
            name: "HTTPOutput",
            dependencies: [
                "CMicroHTTPD", "ReadingHub", "BlectlProtocol", "SensorModel", "ConcurrencySupport", "UnixSupport",
            ],
            swiftSettings: coldSwift),
        // The daemon: configuration, the wiring of the central, the hub and its outputs, systemd.
        .target(
            name: "Daemon",
            dependencies: [
                "Central", "ReadingHub", "SocketOutput", "HistoryStore", "MQTTOutput", "HTTPOutput", "BlectlProtocol",
                "SensorModel", "ConcurrencySupport", "UnixSupport",
            ],
            swiftSettings: coldSwift
        ),
        // Release blectld links the Swift runtime and libstdc++ statically (`linker/` makes
        // `-lstdc++` mean GCC's archive), packs its relative relocations (DT_RELR) and exports
        // no dynamic symbols: all for less resident memory (docs/benchmarks.md has what each saves). Its modules import
        // no Foundation.
        .executableTarget(
            name: "blectld", dependencies: ["Daemon", "PrivateBus", "ConcurrencySupport", "UnixSupport"],
            swiftSettings: strictSwift,
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                        "-L", Context.packageDirectory + "/linker",
                        "-Xlinker", "--no-export-dynamic",
                    ],
                    .when(configuration: .release))
            ]
        ),
        .executableTarget(
            name: "blectl",
            dependencies: ["BlectlProtocol", "SensorModel", "UnixSupport"],
            swiftSettings: strictSwift, linkerSettings: staticSwiftRuntime
        ),

        // The decoders and the mock's encoders on the command line, for the oracle test that
        // holds them against Home Assistant's parsers (make test-oracle; never installed).
        .executableTarget(
            name: "blectl-oracle", dependencies: ["ThermometerProfiles", "MockBlueZ", "SensorModel"],
            path: "Tests/Oracle/Tool", swiftSettings: strictSwift),

        // The documents' lists of formats and settings, written from the registries and the
        // settings tables (make docs; never installed).
        .executableTarget(
            name: "blectl-docs",
            dependencies: ["ThermometerProfiles", "MockBlueZ", "SensorModel", "Daemon", "UnixSupport"],
            swiftSettings: strictSwift),

        // Test helpers: a private dbus-daemon and child processes that are always stopped.
        .target(
            name: "TestSupport",
            dependencies: [
                "DBusCore", "PrivateBus", "BlectlProtocol", "SensorModel", "ConcurrencySupport", "UnixSupport",
            ],
            path: "Tests/TestSupport", swiftSettings: strictSwift),
        .testTarget(
            name: "DBusCoreTests", dependencies: ["DBusCore", "TestSupport", "ConcurrencySupport"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "ThermometerProfilesTests", dependencies: ["ThermometerProfiles", "SensorModel"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "UnixSupportTests", dependencies: ["UnixSupport", "TestSupport"], swiftSettings: strictSwift),
        .testTarget(
            name: "ConcurrencySupportTests", dependencies: ["ConcurrencySupport", "TestSupport"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "BlueZClientTests",
            dependencies: ["BlueZClient", "DBusCore", "SensorModel", "ConcurrencySupport", "TestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "MockBlueZTests",
            // ThermometerProfiles: the memory sensor's answers are read with the codec blectld uses.
            dependencies: [
                "MockBlueZ", "DBusCore", "TestSupport", "ThermometerProfiles", "SensorModel", "ConcurrencySupport",
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "CentralTests",
            dependencies: [
                "Central", "BlueZClient", "MockBlueZ", "SensorModel", "TestSupport", "ConcurrencySupport",
                "UnixSupport",
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "BlectlProtocolTests", dependencies: ["BlectlProtocol", "SensorModel", "TestSupport"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "ReadingHubTests",
            dependencies: [
                "ReadingHub", "HistoryStore", "BlectlProtocol", "SensorModel", "UnixSupport", "TestSupport",
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "SocketOutputTests",
            dependencies: [
                "SocketOutput", "ReadingHub", "HistoryStore", "BlectlProtocol", "SensorModel", "UnixSupport",
                "TestSupport",
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "HTTPOutputTests",
            dependencies: [
                "HTTPOutput", "ReadingHub", "HistoryStore", "BlectlProtocol", "SensorModel", "ConcurrencySupport",
                "UnixSupport", "TestSupport",
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "MQTTOutputTests",
            dependencies: ["MQTTOutput", "ReadingHub", "BlectlProtocol", "SensorModel", "UnixSupport", "TestSupport"],
            swiftSettings: strictSwift),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "HTTPOutput", "BlectlProtocol", "SensorModel", "ConcurrencySupport", "UnixSupport",
                "TestSupport", "Central", "ReadingHub", "HistoryStore", "MockBlueZ",
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "HistoryStoreTests",
            dependencies: [
                "HistoryStore", "BlectlProtocol", "SensorModel", "UnixSupport", "TestSupport", "history-store-tool",
            ],
            swiftSettings: strictSwift
        ),
        // A second process for the store's tests (holding the lock, dying mid-burst) and the
        // store's benchmark (bench/store_bench.sh).
        .executableTarget(
            name: "history-store-tool",
            dependencies: [
                "HistoryStore", "BlectlProtocol", "SensorModel", "ConcurrencySupport", "UnixSupport", "CSQLite",
            ],
            path: "Tests/HistoryStoreTool", swiftSettings: strictSwift
        ),
        // The fuzz targets (docs/testing.md): built with libFuzzer by `make fuzz`; the ordinary
        // build makes a replayer of saved inputs, which IntegrationTests runs over the corpora.
        .executableTarget(
            name: "blectl-fuzz",
            dependencies: [
                "BlectlProtocol", "ThermometerProfiles", "SensorModel", "Daemon", "DBusCore", "BlueZClient",
            ],
            path: "Tests/Fuzz/Harness", swiftSettings: strictSwift
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["TestSupport", "BlectlProtocol", "MockBlueZ", "blectl-fuzz", "blectl-docs"],
            swiftSettings: strictSwift
        ),
    ],
    swiftLanguageModes: [.v6]
)
