import MockBlueZ
import UnixSupport

/// blectl-mock's options for sensors that keep a memory and a clock (docs/sensor-memory.md).
enum MemorySensorOptions {
    static let options: [OptionSpec] = [
        .value(
            "memory-sensors", "N",
            help: "pvvx sensors that also keep a clock and a memory, connectable, serving 0x1F10/0x1F1F (default 0)"),
        .value(
            "stock-memory-sensors", "N",
            help: "LYWSD03MMCs with Xiaomi's stock firmware (plain MiBeacon), keeping a clock and hourly records "
                + "over ebe0ccb0 (default 0)"),
        .value(
            "thermopro-clock-sensors", "N",
            help: "ThermoPro TP358s (ThermoPro format) whose display clock is set by a write to …2b11, in local "
                + "time (default 0)"),
        .value(
            "memory-interval", "TIME",
            help: "each memory sensor records every TIME (default 30m, the pvvx firmware's; stock sensors 1h)"),
        .value(
            "clock-drift", "SECONDS",
            help: "their clocks start SECONDS ahead of the gateway's, negative for behind (default 0)"),
        .value("memory-preload", "N", help: "records already in each memory at the start (default 0)"),
        .value("memory-sectors", "N", help: "flash sectors of each memory's ring, 2 to 128 (default 52)"),
        .value("memory-sector-records", "N", help: "records per sector, 1 to 409 (default 409)"),
        .value("memory-pace", "TIME", help: "a download sends one record every TIME (default 15ms; --fast 1ms)"),
    ]

    /// `core` with these options before `--decoys` (beside the other sensors').
    static func inserted(into core: [OptionSpec]) -> [OptionSpec] {
        var all = core
        all.insert(contentsOf: options, at: core.firstIndex { $0.name == "decoys" } ?? core.endIndex)
        return all
    }

    /// Adds the memory sensors the options ask for to `scenario`.
    static func apply(_ parsed: ParsedArguments, to scenario: inout MockScenario) throws(UsageError) {
        let interval = try parsed.value("advertiser-interval").map { text throws(UsageError) in
            try MockCommandLine.duration(text, option: "advertiser-interval")
        }
        if let count = try number("memory-sensors", parsed, range: 0...1000) {
            scenario.addMemorySensors(count, memory: try memory(parsed, MockSensorMemory()), interval: interval)
        }
        if let count = try number("stock-memory-sensors", parsed, range: 0...1000) {
            scenario.addStockMemorySensors(count, memory: try memory(parsed, .xiaomiStock), interval: interval)
        }
        if let count = try number("thermopro-clock-sensors", parsed, range: 0...1000) {
            scenario.addThermoProClockSensors(count, memory: try memory(parsed, MockSensorMemory()), interval: interval)
        }
    }

    /// The memory the options describe, from a firmware's defaults.
    private static func memory(_ parsed: ParsedArguments, _ defaults: MockSensorMemory) throws(UsageError)
        -> MockSensorMemory
    {
        var memory = defaults
        if parsed.flag("fast") { memory.pace = .milliseconds(1) }
        if let text = parsed.value("memory-interval") {
            memory.interval = try MockCommandLine.duration(text, option: "memory-interval")
            guard memory.interval >= .milliseconds(10) else { throw UsageError("--memory-interval is at least 10ms") }
        }
        if let text = parsed.value("memory-pace") {
            memory.pace = try MockCommandLine.duration(text, option: "memory-pace")
        }
        if let text = parsed.value("clock-drift") {
            guard let drift = Int64(text), abs(drift) <= 1 << 32 else {
                throw UsageError("--clock-drift needs whole seconds, not '\(text)'")
            }
            memory.clockDrift = drift
        }
        memory.preloaded = try number("memory-preload", parsed, range: 0...60_000) ?? 0
        memory.sectors = try number("memory-sectors", parsed, range: 2...128) ?? memory.sectors
        memory.recordsPerSector = try number("memory-sector-records", parsed, range: 1...409) ?? memory.recordsPerSector
        return memory
    }

    private static func number(
        _ option: String, _ parsed: ParsedArguments, range: ClosedRange<Int>
    ) throws(UsageError) -> Int? {
        guard let text = parsed.value(option) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(option) needs a number in \(range.lowerBound)…\(range.upperBound), not '\(text)'")
        }
        return value
    }
}
