import BlectlProtocol
import SensorModel

/// `status`'s sections in `/metrics` (docs/http.md): the families of the sections this
/// output knows, each written by its writer, and for any other section a gauge per number
/// and per flag at its top level, `blectl_<section>_<field>` (flags as 0 and 1).
extension MetricsPage {
    /// A section's families: written from the snapshot whether or not the section is there
    /// (a writer decides what an absent section shows; the adapters' families are always listed).
    typealias SectionWriter = @Sendable (HubSnapshot, [DeviceView], inout PrometheusText) -> Void

    /// The sections with families of their own, by name, in the order they are written; a
    /// writer may read several sections (`adapters` and `missing_adapters`).
    static let sectionWriters: [(names: [String], write: SectionWriter)] = [
        (
            [AdvertisementStatus.sectionName],
            { snapshot, devices, out in
                guard let adverts = snapshot.status.section(AdvertisementStatus.self) else { return }
                writeReception(adverts.sensors, names: deviceNames(devices), to: &out)
            }
        ),
        (
            [[SensorMemoryStatus].sectionName],
            { snapshot, devices, out in
                guard let sensors = snapshot.status.section([SensorMemoryStatus].self) else { return }
                writeSensorMemory(sensors, names: deviceNames(devices), to: &out)
            }
        ),
        (
            [[AdapterStatus].sectionName, MissingAdapters.sectionName],
            { snapshot, _, out in
                writeAdapters(snapshot.status, to: &out)
            }
        ),
        gauge(HistoryStatus.self, "blectl_history_rows", "Readings and reading errors in the history database.") {
            Double($0.rows)
        },
        gauge(SocketStatus.self, "blectl_socket_clients", "Clients connected to the Unix socket.") {
            Double($0.clients)
        },
        (
            [ScanWatchdogStatus.sectionName],
            { snapshot, _, out in
                guard let watchdog = snapshot.status.section(ScanWatchdogStatus.self) else { return }
                writeWatchdog(watchdog, to: &out)
            }
        ),
        (
            [MQTTStatus.sectionName],
            { snapshot, _, out in
                guard let mqtt = snapshot.status.section(MQTTStatus.self) else { return }
                out.single(
                    "blectl_mqtt_connected", .gauge, help: "1 when the MQTT broker accepted the connection, else 0.",
                    mqtt.state == .connected ? 1 : 0)
                out.single(
                    "blectl_mqtt_backlog", .gauge,
                    help: "Readings stored but not yet acknowledged by the MQTT broker.", Double(mqtt.backlog))
            }
        ),
    ]

    /// Each device's name (empty when it has none), for a series' `name` label.
    private static func deviceNames(_ devices: [DeviceView]) -> [BluetoothAddress: String] {
        Dictionary(devices.map { ($0.address, $0.name ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The writer of a section shown as one gauge, when it is there.
    private static func gauge<Section: StatusSection>(
        _ type: Section.Type, _ name: String, _ help: String, _ value: @escaping @Sendable (Section) -> Double
    ) -> (names: [String], write: SectionWriter) {
        (
            [Section.sectionName],
            { snapshot, _, out in
                guard let section = snapshot.status.section(type) else { return }
                out.single(name, .gauge, help: help, value(section))
            }
        )
    }

    /// Every section: the known ones by their writers, then the others by name.
    static func writeSections(_ snapshot: HubSnapshot, devices: [DeviceView], to out: inout PrometheusText) {
        for writer in sectionWriters { writer.write(snapshot, devices, &out) }
        let known = Set(sectionWriters.flatMap(\.names))
        for (name, value) in snapshot.status.sections.sorted(by: { $0.key < $1.key }) where !known.contains(name) {
            writeGeneric(section: name, value, to: &out)
        }
    }

    /// A gauge for each number and flag at the top level of a section no writer knows; nested
    /// values, strings and lists are left out (a list's entries have no name to give a series),
    /// and so is a name a family already has.
    static func writeGeneric(section: String, _ value: JSONValue, to out: inout PrometheusText) {
        guard case .object(let members) = value else { return }
        for (field, member) in members.sorted(by: { $0.key < $1.key }) {
            let number: Double? =
                switch member {
                case .bool(let flag): flag ? 1 : 0
                case .number(let text): Double(text)
                default: nil
                }
            let name = PrometheusText.metricName("blectl_\(section)_\(field)")
            guard let number, !out.families.contains(name) else { continue }
            out.single(
                name, .gauge, help: "\(field) of blectld's status section \(section) (as status reports it).", number)
        }
    }
}
