import BlectlProtocol
import SensorModel

/// `blectl scan [--timeout SECONDS] [--all]`.
enum ScanCommand {
    /// The JSON shape: the peripheral without daemon bookkeeping.
    struct Row: Encodable {
        var address: BluetoothAddress
        var name: String?
        var rssi: Int?
        var thermometer: Bool
        var connected: Bool
        var profile: String?
        var family: String?
        var model: String?
        var manufacturer: String?
        /// Each adapter that heard it, with its RSSI (`[]` when none did at the scan's end).
        var adapters: [Heard]

        /// One adapter's hearing: `{"adapter":"hci1","rssi":-82}`.
        struct Heard: Encodable {
            var adapter: String
            var rssi: Int?
        }

        init(_ peripheral: PeripheralInfo) {
            address = peripheral.address
            name = peripheral.name
            rssi = peripheral.rssi
            thermometer = peripheral.thermometer
            connected = peripheral.connected
            profile = peripheral.profile
            family = peripheral.family
            model = peripheral.model
            manufacturer = peripheral.manufacturer
            adapters = (peripheral.adapters ?? []).map { Heard(adapter: $0.adapter, rssi: $0.rssi) }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(address, forKey: .address)
            try container.encode(name, forKey: .name)  // null rather than absent
            try container.encode(rssi, forKey: .rssi)
            try container.encode(thermometer, forKey: .thermometer)
            try container.encode(connected, forKey: .connected)
            try container.encode(profile, forKey: .profile)
            try container.encode(family, forKey: .family)
            try container.encode(model, forKey: .model)
            try container.encode(manufacturer, forKey: .manufacturer)
            try container.encode(adapters, forKey: .adapters)
        }

        private enum CodingKeys: String, CodingKey {
            case address, name, rssi, thermometer, connected, profile, family, model, manufacturer, adapters
        }
    }

    static func run(_ context: Context) throws(CLIError) -> ExitStatus {
        // Without --timeout the daemon's configured scan length applies.
        let seconds = try context.timeout(maximum: ProtocolInfo.maxScanSeconds)
        let client = try context.connect()
        let longest = seconds ?? Double(ProtocolInfo.maxScanSeconds)
        let found = try client.request(
            .scan(timeout: seconds), as: [PeripheralInfo].self, timeout: .seconds(longest + 15))
        let shown = context.arguments.flag("all") ? found : found.filter(\.thermometer)
        let terminal = context.terminal
        if terminal.json {
            terminal.printJSON(shown.map(Row.init))
            return .success
        }
        guard !shown.isEmpty else {
            let hint = context.arguments.flag("all") ? "" : " (--all lists every device)"
            let span = seconds.map { " in \(Format.seconds($0))" } ?? ""
            terminal.print("No thermometers seen\(span)\(hint).")
            return .success
        }
        var rows = [["NAME", "ADDRESS", "RSSI", "THERMOMETER", "PROFILE", "SENSOR"]]
        for peripheral in shown {
            let kind = peripheral.thermometer ? (peripheral.connected ? "yes, connected" : "yes") : "no"
            rows.append([
                Format.name(peripheral.name), peripheral.address.description, signal(peripheral), kind,
                peripheral.profile ?? "", peripheral.family ?? "",
            ])
        }
        let lines = terminal.table(rows) { row, column, text in
            row == 0
                ? terminal.paint(text, .bold)
                : column == 3 && text.hasPrefix("yes") ? terminal.paint(text, .green) : text
        }
        for line in lines { terminal.print(line) }
        return .success
    }
}

extension ScanCommand {
    /// The RSSI column: `-52 dBm`; each adapter's (`hci0 -60, hci1 -82`) when more than one
    /// adapter heard the device.
    static func signal(_ peripheral: PeripheralInfo) -> String {
        let adapters = peripheral.adapters ?? []
        guard adapters.count > 1 else { return peripheral.rssi.map { "\($0) dBm" } ?? "–" }
        return adapters.map { "\($0.adapter) \($0.rssi.map(String.init) ?? "–")" }.joined(separator: ", ")
    }
}

extension Format {
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
