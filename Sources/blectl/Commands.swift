import BlectlProtocol
import UnixSupport

/// What every command gets: how to reach the daemon and how to print.
struct Context {
    var socketPath: String
    var terminal: Terminal
    var arguments: ParsedArguments

    func connect() throws(CLIError) -> DaemonClient {
        try DaemonClient.connect(path: socketPath)
    }

    /// `--timeout SECONDS`, validated, or `fallback`.
    func timeout(default fallback: Double) throws(CLIError) -> Double {
        try timeout() ?? fallback
    }

    /// `--timeout SECONDS`, validated, if given.
    func timeout() throws(CLIError) -> Double? {
        guard let text = arguments.value("timeout") else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 3600 else {
            throw .usage("--timeout needs a number of seconds from 0 to 3600, got '\(text)'")
        }
        return seconds
    }
}

/// `blectl status`.
enum StatusCommand {
    static func run(_ context: Context) throws(CLIError) {
        let status = try context.connect().request(.status, as: StatusResult.self, timeout: .seconds(10))
        let terminal = context.terminal
        if terminal.json { return terminal.printJSON(status) }
        let state = terminal.paint(status.state.rawValue, status.state == .poweredOn ? .green : .yellow)
        let uptime = Format.age(seconds: Format.secondsSince(status.started)).replacing(" ago", with: "")
        let rows = [
            ["Daemon:", "\(status.daemon) \(status.version), up \(uptime)"],
            ["Adapter:", "\(status.adapter ?? "none yet") (\(state))"],
            ["Connected:", status.connected.count == 1 ? "1 thermometer" : "\(status.connected.count) thermometers"],
        ]
        for line in terminal.table(rows) { terminal.print(line) }
        guard !status.connected.isEmpty else { return }
        var table = [["", "NAME", "ADDRESS", "TEMPERATURE", "UPDATED"]]
        for peripheral in status.connected {
            let reading = peripheral.lastReading
            table.append([
                "", Format.name(peripheral.name), peripheral.address, reading.map { Format.celsius($0.celsius) } ?? "–",
                reading.map { Format.age(seconds: Format.secondsSince($0.time)) } ?? "no reading yet",
            ])
        }
        for line in terminal.table(table, paint: { row, _, text in row == 0 ? terminal.paint(text, .bold) : text }) {
            terminal.print(line)
        }
    }
}

/// `blectl scan [--timeout SECONDS] [--all]`.
enum ScanCommand {
    /// The JSON shape: the peripheral without daemon bookkeeping.
    struct Row: Encodable {
        var address: String
        var name: String?
        var rssi: Int?
        var thermometer: Bool
        var connected: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(address, forKey: .address)
            try container.encode(name, forKey: .name)  // null rather than absent
            try container.encode(rssi, forKey: .rssi)
            try container.encode(thermometer, forKey: .thermometer)
            try container.encode(connected, forKey: .connected)
        }

        private enum CodingKeys: String, CodingKey { case address, name, rssi, thermometer, connected }
    }

    static func run(_ context: Context) throws(CLIError) {
        // Without --timeout the daemon's configured scan length applies (120 s at most).
        let seconds = try context.timeout()
        let client = try context.connect()
        let found = try client.request(
            .scan(timeout: seconds), as: [PeripheralInfo].self, timeout: .seconds((seconds ?? 120) + 15))
        let shown = context.arguments.flag("all") ? found : found.filter(\.thermometer)
        let terminal = context.terminal
        if terminal.json {
            return terminal.printJSON(
                shown.map {
                    Row(
                        address: $0.address, name: $0.name, rssi: $0.rssi, thermometer: $0.thermometer,
                        connected: $0.connected)
                })
        }
        guard !shown.isEmpty else {
            let hint = context.arguments.flag("all") ? "" : " (--all lists every device)"
            let span = seconds.map { " in \(Format.seconds($0))" } ?? ""
            return terminal.print("No thermometers seen\(span)\(hint).")
        }
        var rows = [["NAME", "ADDRESS", "RSSI", "THERMOMETER"]]
        for peripheral in shown {
            let kind = peripheral.thermometer ? (peripheral.connected ? "yes, connected" : "yes") : "no"
            rows.append([
                Format.name(peripheral.name), peripheral.address, peripheral.rssi.map { "\($0) dBm" } ?? "–", kind,
            ])
        }
        let lines = terminal.table(rows) { row, column, text in
            row == 0
                ? terminal.paint(text, .bold)
                : column == 3 && text.hasPrefix("yes") ? terminal.paint(text, .green) : text
        }
        for line in lines { terminal.print(line) }
    }
}

/// `blectl read [ADDRESS|NAME] [--timeout SECONDS]`.
enum ReadCommand {
    static func run(_ context: Context) throws(CLIError) {
        let seconds = try context.timeout(default: 10)
        let client = try context.connect()
        let reports = try client.request(
            .read(address: context.arguments.positionals.first, timeout: seconds), as: [ReadingReport].self,
            timeout: .seconds(seconds + 15))
        let terminal = context.terminal
        if terminal.json { return terminal.printJSON(reports) }
        let rows = reports.map { report in
            [
                Format.name(report.reading.name), report.address, Format.celsius(report.reading.celsius),
                "(raw \"\(report.reading.measurement.raw)\")",
                Format.age(seconds: report.ageSeconds),
            ]
        }
        let lines = terminal.table(rows) { row, column, text in
            guard column == 2 else { return column == 4 && !reports[row].fresh ? terminal.paint(text, .yellow) : text }
            return terminal.paint(text, .bold)
        }
        for line in lines { terminal.print(line) }
    }
}

extension Format {
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
