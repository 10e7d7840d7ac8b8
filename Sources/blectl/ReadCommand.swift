import BlectlProtocol
import SensorModel
import Glibc
import UnixSupport

/// `blectl read [ADDRESS|NAME] [--timeout SECONDS]`.
enum ReadCommand {
    /// The wait when `--timeout` is not given (the daemon's default too).
    static let defaultTimeout = 10.0

    /// What blectl reads of each report: enough for text and for saying why it is stale.
    /// Lenient (no unit or profile it must know), so `--json` keeps working when a newer
    /// daemon reports values this build cannot show.
    struct Row: Decodable {
        var address: BluetoothAddress
        var name: String?
        var celsius: Double?
        var raw: String?
        var ageSeconds: Double
        var fresh: Bool
        var profile: String?
        /// The probe, on a device with several: each probe is a row of its own.
        var probe: Int?
        var others: OtherQuantities

        private enum CodingKeys: String, CodingKey {
            case address, name, celsius, raw, fresh, profile, probe
            case ageSeconds = "age_seconds"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            address = try container.decode(BluetoothAddress.self, forKey: .address)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            celsius = try container.decodeIfPresent(Double.self, forKey: .celsius)
            raw = try container.decodeIfPresent(String.self, forKey: .raw)
            ageSeconds = try container.decode(Double.self, forKey: .ageSeconds)
            fresh = try container.decode(Bool.self, forKey: .fresh)
            profile = try container.decodeIfPresent(String.self, forKey: .profile)
            probe = try container.decodeIfPresent(Int.self, forKey: .probe)
            others = try OtherQuantities(from: decoder)
        }
    }

    static func run(_ context: Context) throws(CLIError) -> ExitStatus {
        let seconds = try context.timeout(maximum: ProtocolInfo.maxReadTimeoutSeconds) ?? defaultTimeout
        let client = try context.connect()
        let reply = try client.request(
            .read(address: context.arguments.positionals.first, timeout: seconds), timeout: .seconds(seconds + 15))
        let reports = try reply.decode([Row].self)
        let terminal = context.terminal
        if terminal.json {
            terminal.printRaw(reply.result)
        } else {
            printTable(reports, terminal)
        }
        let stale = reports.filter { !$0.fresh }
        guard !stale.isEmpty else { return .success }
        // Why nothing fresh came: the adapter's state and the connections say it.
        let status = try? client.request(.status, as: StatusResult.self, timeout: .seconds(10))
        for report in stale {
            let device = reports.count > 1 ? "\(Format.name(report.name)) \(report.address): " : ""
            let why = staleReason(report, status: status)
            writeAll(
                STDERR_FILENO,
                Array("blectl: \(device)\(why) — last reading \(Format.age(seconds: report.ageSeconds))\n".utf8))
        }
        return stale.count == reports.count ? .notFresh : .success
    }

    private static func printTable(_ reports: [Row], _ terminal: Terminal) {
        // The other quantities' column only when some device measures them.
        let others = reports.map { Format.quantities($0.others, unit: terminal.unit) }
        let showOthers = others.contains { !$0.isEmpty }
        let rows = reports.enumerated().map { index, report in
            [
                Format.name(report.name) + (report.probe.map { " probe \($0)" } ?? ""), report.address.description,
                report.celsius.map(terminal.temperature) ?? "–",
            ]
                + (showOthers ? [others[index]] : [])
                + [
                    Format.origin(profile: report.profile, raw: report.raw), Format.age(seconds: report.ageSeconds),
                ]
        }
        let ageColumn = showOthers ? 5 : 4
        let lines = terminal.table(rows) { row, column, text in
            guard column == 2 else {
                return column == ageColumn && !reports[row].fresh ? terminal.paint(text, .yellow) : text
            }
            return terminal.paint(text, .bold)
        }
        for line in lines { terminal.print(line) }
    }

    /// Why `report` is a stored reading: the adapter is not on, the device is not
    /// connected, or it did not answer.
    static func staleReason(_ report: Row, status: StatusResult?) -> String {
        guard let status else { return "no fresh reading" }
        // The daemon's own words first (bluetoothd not running, adapter off, …).
        if status.state != .poweredOn, let reason = status.reason { return reason }
        guard let adapter = status.adapter else { return "no Bluetooth adapter" }
        switch status.state {
        case .poweredOn:
            let connected = status.connected.contains { $0.address == report.address }
            return connected ? "connected but no fresh value in time" : "not connected"
        case .poweredOff: return "adapter \(adapter) powered off"
        case .unsupported: return "adapter \(adapter) not usable"
        case .unauthorized: return "adapter \(adapter) not authorized"
        case .resetting: return "adapter \(adapter) resetting"
        case .unknown: return "adapter \(adapter) not ready"
        }
    }
}
