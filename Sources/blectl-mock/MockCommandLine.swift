import BlectlProtocol
import MockBlueZ
import UnixSupport

/// blectl-mock's command line: the options, their help, and the scenario they describe.
enum MockCommandLine {
    static let options: [OptionSpec] = MemorySensorOptions.inserted(into: [
        .value("address", "ADDRESS", help: "bus to serve on (default: the session bus)"),
        .flag("system", help: "serve on the system bus (needs permission to own org.bluez)"),
        .value("thermometers", "N", help: "Pi thermometers in range (default 2)"),
        .value("others", "N", help: "devices that are not thermometers (default 2)"),
        .value("adapters", "N", help: "adapters hci0… (default 1)"),
        .repeated(
            "adapter-rssi", "ADAPTER[/DEVICE]=VALUE",
            help: "how ADAPTER (hciN or its address) hears DEVICE (default every peripheral): -80 (dBm), -15dB "
                + "(from the peripheral's own RSSI), none (out of range: never heard, Connect times out); repeatable"),
        .repeated(
            "rssi-flap", "ADDRESS",
            help: "the peripheral's RSSI jumps at every advertisement: -50 dBm on hci0 and -90 on hci1, then the "
                + "reverse (needs --adapters 2); repeatable"),
        .flag(
            "duplicate-adapter-address",
            help: "bad input: the last adapter has hci0's address (needs --adapters 2), and add-adapter may give a "
                + "present adapter's address"),
        .value(
            "advertisers", "N",
            help: "sensors broadcasting in advertisements, taking the formats of --advertiser-formats in turn "
                + "(default 6)"),
        .value("advertiser-interval", "TIME", help: "each advertising sensor advertises this often (default 1s)"),
        .value(
            "advertiser-formats", "LIST",
            help: "the formats the advertising sensors take in turn, comma-separated: "
                + MockAdvertiser.Format.allCases.map(\.rawValue).joined(separator: ", ") + " (default all of them)"),
        .value(
            "advertiser-repeats", "N",
            help: "advertisements per measurement of each advertising sensor (default 2)"),
        .value(
            "advertiser-loss", "RATIO",
            help: "the share of each advertising sensor's advertisements that is not heard, 0 to 1 (default 0; "
                + "drawn from --seed)"),
        .value(
            "advertiser-name", "PREFIX",
            help: "advertising sensors name themselves PREFIX and their number (default: by format, e.g. ATC_AD; "
                + "the Inkbird, ThermoPro, Govee H5100/H5106 and SensorPush formats need their own names)"),
        .value("decoys", "N", help: "a flood: N more devices that are not thermometers (default 0)"),
        .value("fake-thermometers", "N", help: "of the decoys, N advertise the name \"Thermometer\" (default 0)"),
        .value("hanging-connects", "N", help: "of those, N never answer Connect (default 0)"),
        .value("decoy-interval", "TIME", help: "each decoy advertises this often (default 10s)"),
        .value("decoys-after", "TIME", help: "the decoys begin advertising this long after the start (default 0s)"),
        .value("notify-interval", "TIME", help: "thermometer notification period (default 5s; down to 1ms)"),
        .value("pattern", "PATTERN", help: "temperature pattern: drift, constant or counter (default drift)"),
        .value("temperature", "CELSIUS", help: "every thermometer's start temperature"),
        .value(
            "current-time", "SECONDS",
            help: "the Pi thermometers offer the Current Time Service (0x1805: 0x2A2B and 0x2A0F, read and write), "
                + "their clocks SECONDS ahead of the gateway's local time at the start (negative: behind)"),
        .value(
            "current-time-drift", "PPM",
            help: "those clocks gain PPM millionths of a second every second (negative: lose; default 0)"),
        .value(
            "current-time-refused", "N", help: "those thermometers refuse the first N writes of their clock (default 0)"
        ),
        .value("seed", "N", help: "seed of the random walks (default 1)"),
        .flag("fast", help: "short timings (tests): connect 20ms, services 40ms, …"),
        .value("resolve-delay", "TIME", help: "link up → ServicesResolved=true (default 250ms)"),
        .value("disconnect-delay", "TIME", help: "Disconnect → ServicesResolved=false (default 50ms)"),
        .value("temporary-timeout", "TIME", help: "unconnected devices vanish this long after last seen (default 30s)"),
        .flag("unit-writes", help: "writing C/F to the unit characteristic switches the unit"),
        .flag("announce-connect", help: "Connect announces Connected=true before its reply (real BlueZ rarely does)"),
        .flag(
            "experimental",
            help: "as bluetoothd --experimental: adapters offer AdvertisementMonitorManager1 (passive scanning)"),
        .flag("no-control", help: "don't serve the control interface org.blectl.Mock"),
        .value("log-level", "LEVEL", help: "err, warning, notice, info or debug (default info)"),
        .value(
            "emit-log", "FILE",
            help: "log every temperature notification's and advertisement's time to FILE (benchmarks)"),
        .flag("stdin-lifeline", help: "stop when stdin reaches end of file, not on SIGTERM/SIGINT (blectld --mock)"),
        .value("print-bus-config", "SOCKET", help: "print a private dbus-daemon's configuration for SOCKET, and exit"),
        .flag("help", short: "h", help: "show this help"),
        .flag("version", help: "show the version"),
        .flag("dump-spec", hidden: true, help: "print the options as JSON (man page tests)"),
    ])

    /// What `--version` prints: the version blectld and blectl share.
    static let versionText = "blectl-mock \(ProtocolInfo.softwareVersion)"

    static let parser = ArgvParser(globals: options)

    /// What `--dump-spec` prints: the options as JSON, for the man page's test.
    static var specText: String {
        struct Dump: Encodable {
            var program = "blectl-mock"
            var version = ProtocolInfo.softwareVersion
            var options = MockCommandLine.options
        }
        return (try? JSONLines.encodeString(Dump(), pretty: true)) ?? "{}"
    }

    static var helpText: String {
        """
        Usage: blectl-mock [OPTIONS]

        A fake bluetoothd: serves BlueZ 5.66's D-Bus API (org.bluez) on a bus, with simulated
        Raspberry Pi thermometers, and a control interface (org.blectl.Mock, /org/blectl/Mock,
        org.blectl.Mock1) to inject faults. Prints "ready org.bluez on ADDRESS" on stdout once
        org.bluez is owned and the adapters are powered; stops cleanly on SIGTERM or SIGINT, or
        with --stdin-lifeline when its standard input reaches end of file (its parent closed
        that pipe, or died). --print-bus-config writes the configuration of the private bus
        that blectld --mock, the tests and the benchmark run it on.

        Options:
        \(options.helpLines())

        TIME is a number with a unit: 500us, 250ms, 5s, 2m.
        See docs/mock-adapter.md.
        """
    }

    /// The bus address to serve on.
    static func busAddress(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) -> String {
        if let address = parsed.value("address") {
            guard !parsed.flag("system") else { throw UsageError("--address and --system exclude each other") }
            return address
        }
        if parsed.flag("system") {
            return environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
        }
        if let session = environment["DBUS_SESSION_BUS_ADDRESS"], !session.isEmpty { return session }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return "unix:path=\(runtime)/bus" }
        throw UsageError("no session bus (DBUS_SESSION_BUS_ADDRESS is not set): give --address")
    }

    /// The scenario the options describe.
    static func scenario(_ parsed: ParsedArguments) throws(UsageError) -> MockScenario {
        var scenario = MockScenario.standard(
            thermometers: try count("thermometers", parsed, default: 2, range: 0...1000),
            others: try count("others", parsed, default: 2, range: 0...1000),
            adapters: try count("adapters", parsed, default: 1, range: 1...16))
        if parsed.flag("fast") { scenario.timings = .fast }
        var advertiserInterval: Duration?
        if let text = parsed.value("advertiser-interval") {
            advertiserInterval = try duration(text, option: "advertiser-interval")
            guard advertiserInterval! >= .milliseconds(10) else {
                throw UsageError("--advertiser-interval is at least 10ms")
            }
        }
        let loss = try parsed.value("advertiser-loss").map { text throws(UsageError) -> Double in
            guard let ratio = Double(text), (0...1).contains(ratio) else {
                throw UsageError("--advertiser-loss needs a share from 0 to 1, not '\(text)'")
            }
            return ratio
        }
        scenario.addAdvertisers(
            try count("advertisers", parsed, default: 6, range: 0...10_000), interval: advertiserInterval,
            formats: try advertiserFormats(parsed), namePrefix: parsed.value("advertiser-name"),
            repeats: try count("advertiser-repeats", parsed, default: 2, range: 1...100),
            loss: loss ?? 0)
        try MemorySensorOptions.apply(parsed, to: &scenario)
        if let flood = try flood(parsed) { scenario.add(flood) }
        if let text = parsed.value("notify-interval") {
            let interval = try duration(text, option: "notify-interval")
            guard interval >= .milliseconds(1) else { throw UsageError("--notify-interval is at least 1ms") }
            scenario.notifyInterval = interval
        }
        if let text = parsed.value("resolve-delay") {
            scenario.timings.servicesResolved = try duration(text, option: "resolve-delay")
        }
        if let text = parsed.value("disconnect-delay") {
            scenario.timings.disconnect = try duration(text, option: "disconnect-delay")
        }
        if let text = parsed.value("temporary-timeout") {
            scenario.timings.temporaryTimeout = try duration(text, option: "temporary-timeout")
        }
        if let text = parsed.value("seed") {
            guard let seed = UInt64(text) else { throw UsageError("--seed needs a number, not '\(text)'") }
            scenario.seed = seed
        }
        scenario.unitWritesTakeEffect = parsed.flag("unit-writes")
        scenario.announcesConnect = parsed.flag("announce-connect")
        scenario.experimental = parsed.flag("experimental")
        let pattern = try parsed.value("pattern").map { text throws(UsageError) -> MockTemperaturePattern in
            guard let pattern = MockTemperaturePattern(rawValue: text) else {
                throw UsageError("--pattern is drift, constant or counter, not '\(text)'")
            }
            return pattern
        }
        let start = try parsed.value("temperature").map { text throws(UsageError) -> Double in
            guard let celsius = Double(text), (-40...150).contains(celsius) else {
                throw UsageError("--temperature needs degrees Celsius (-40…150), not '\(text)'")
            }
            return celsius
        }
        let currentTime = try self.currentTime(parsed)
        for index in scenario.peripherals.indices {
            guard case .piThermometer(var thermometer) = scenario.peripherals[index].kind else { continue }
            if let pattern { thermometer.pattern = pattern }
            if let start { thermometer.startCelsius = start }
            thermometer.currentTime = currentTime
            scenario.peripherals[index].kind = .piThermometer(thermometer)
        }
        try applyAdapterOptions(parsed, to: &scenario)
        return scenario
    }

    /// The Current Time Service the options give the Pi thermometers, if any.
    private static func currentTime(_ parsed: ParsedArguments) throws(UsageError) -> MockCurrentTime? {
        guard let text = parsed.value("current-time") else {
            if parsed.value("current-time-drift") != nil || parsed.value("current-time-refused") != nil {
                throw UsageError("--current-time-drift and --current-time-refused need --current-time")
            }
            return nil
        }
        guard let offset = Int64(text), abs(offset) <= 3_000_000_000 else {
            throw UsageError("--current-time needs seconds (up to ±3000000000), not '\(text)'")
        }
        var drift: Int64 = 0
        if let text = parsed.value("current-time-drift") {
            guard let value = Int64(text), abs(value) <= 1_000_000 else {
                throw UsageError("--current-time-drift needs millionths (up to ±1000000), not '\(text)'")
            }
            drift = value
        }
        return MockCurrentTime(
            offset: offset, ratePPM: drift,
            refusedWrites: try count("current-time-refused", parsed, default: 0, range: 0...1_000_000))
    }

    /// The flood of decoys the options ask for, if any.
    private static func flood(_ parsed: ParsedArguments) throws(UsageError) -> MockFlood? {
        let devices = try count("decoys", parsed, default: 0, range: 0...100_000)
        let named = try count("fake-thermometers", parsed, default: 0, range: 0...devices)
        let hanging = try count("hanging-connects", parsed, default: 0, range: 0...named)
        guard devices > 0 else { return nil }
        var flood = MockFlood(devices: devices, fakeThermometers: named, hangingConnects: hanging)
        if let text = parsed.value("decoy-interval") {
            flood.interval = try duration(text, option: "decoy-interval")
            guard flood.interval >= .milliseconds(100) else { throw UsageError("--decoy-interval is at least 100ms") }
        }
        if let text = parsed.value("decoys-after") { flood.start = try duration(text, option: "decoys-after") }
        return flood
    }

    /// The formats `--advertiser-formats` names, in its order (every format when it is absent).
    private static func advertiserFormats(_ parsed: ParsedArguments) throws(UsageError) -> [MockAdvertiser.Format] {
        guard let text = parsed.value("advertiser-formats") else { return MockAdvertiser.Format.allCases }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return try names.map { name throws(UsageError) -> MockAdvertiser.Format in
            guard let format = MockAdvertiser.Format(rawValue: name) else {
                let known = MockAdvertiser.Format.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError("--advertiser-formats takes \(known), not '\(name)'")
            }
            return format
        }
    }

    static func logLevel(_ parsed: ParsedArguments) throws(UsageError) -> LogLevel {
        guard let name = parsed.value("log-level") else { return .info }
        guard let level = LogLevel(name: name) else {
            throw UsageError("--log-level is one of \(LogLevel.names), not '\(name)'")
        }
        return level
    }

    private static func count(
        _ option: String, _ parsed: ParsedArguments, default fallback: Int, range: ClosedRange<Int>
    ) throws(UsageError) -> Int {
        guard let text = parsed.value(option) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(option) needs a number in \(range.lowerBound)…\(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// Parses `500us`, `250ms`, `5s`, `2m`.
    static func duration(_ text: String, option: String) throws(UsageError) -> Duration {
        let units: [(String, (Int64) -> Duration)] = [
            ("us", { .microseconds($0) }), ("ms", { .milliseconds($0) }), ("s", { .seconds($0) }),
            ("m", { .seconds($0 * 60) }),
        ]
        for (suffix, make) in units where text.hasSuffix(suffix) {
            if let number = Int64(text.dropLast(suffix.count)), number >= 0 { return make(number) }
        }
        throw UsageError("--\(option) needs a time such as 250ms or 5s, not '\(text)'")
    }
}
