// history-store-tool: a second process for the history store's tests, and its benchmark.
//
//   history-store-tool hold PATH                 open the store, print "ready <lastSeq>", wait to be killed
//   history-store-tool burst PATH                append readings without end, flushing every 500;
//                                                print "committed <seq>" after each flush
//   history-store-tool legacy PATH ROWS          write a schema-version-1 database of ROWS rows (as blectl
//                                                did before 2026-12-05); print "rows N"
//   history-store-tool upgrade PATH              open the store (upgrading an old file), print what it took
//   history-store-tool bench DIR [--thermometers N] [--rate HZ] [--batches N] [--part busy|day|hour]
//                                                print the store's figures (bench/store_bench.sh)
import BlectlProtocol
import HistoryStore
import SensorModel
import UnixSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a line to stdout at once (a pipe to the test: no buffering).
func say(_ line: String) {
    writeAll(STDOUT_FILENO, Array((line + "\n").utf8))
}

/// A reading like the Pi thermometer's.
func reading(seq: UInt64, device: Int, time: Timestamp = .now()) -> Event {
    let address = BluetoothAddress(value: 0xDCA6_3200_0000 + UInt64(device))
    let celsius = 40 + Double(seq % 1000) / 100
    return .reading(
        Reading(
            seq: seq, time: time, address: address, name: "Thermometer",
            measurement: Measurement(
                profile: "pi-cputemp", quantities: Quantities([.temperature: celsius]), unit: .celsius,
                raw: "\(celsius) C")))
}

extension String {
    /// Two upper-case hex digits.
    init(format2 value: Int) {
        let digits = Array("0123456789ABCDEF")
        self = String([digits[(value >> 4) & 0xF], digits[value & 0xF]])
    }
}

func openStore(_ path: String, _ configuration: HistoryStore.Configuration = .init()) -> HistoryStore {
    do {
        return try HistoryStore.open(path: path, configuration: configuration, log: Log(level: .notice))
    } catch {
        say("error \(error)")
        exit(ExitCode.configuration)
    }
}

func hold(_ path: String) -> Never {
    let store = openStore(path)
    say("ready \(store.lastSeq)")
    while true { pause() }
}

func burst(_ path: String) async -> Never {
    let store = openStore(path, .init(commitInterval: .milliseconds(20)))
    var seq = store.lastSeq
    say("ready \(seq)")
    while true {
        for _ in 0..<500 {
            seq += 1
            store.append(reading(seq: seq, device: Int(seq % 4)))
        }
        await store.flush()
        say("committed \(seq)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("hold", 2): hold(arguments[1])
case ("burst", 2): await burst(arguments[1])
case ("legacy", 3):
    do {
        try LegacyDatabase.write(arguments[1], rows: Int(arguments[2]) ?? 0)
        say("rows \(arguments[2])")
    } catch {
        say("error \(error)")
        exit(1)
    }
case ("upgrade", 2): await UpgradeRun(path: arguments[1]).run()
case ("bench", 2...): await StoreBenchmark(arguments: Array(arguments.dropFirst())).run()
default:
    say(
        "usage: history-store-tool hold PATH | burst PATH | legacy PATH ROWS | upgrade PATH | bench DIR [--thermometers N] [--rate HZ] "
            + "[--batches N] [--part busy|day|hour]")
    exit(ExitCode.usage)
}
