import BlectlProtocol

/// What `status`'s sections add to `blectl status`: rows of the summary (after the daemon's
/// own), and tables printed below it.
struct StatusPart {
    /// A table: its header row first (painted bold), with a line above it when it needs one.
    struct Table {
        var title: String?
        var rows: [[String]]
    }

    var rows: [[String]] = []
    var tables: [Table] = []

    mutating func append(_ other: StatusPart) {
        rows += other.rows
        tables += other.tables
    }
}

/// A section that is present but not in the shape this build reads: shown as an unknown one.
struct UnreadableSection: Error {}

extension StatusResult {
    /// The section as `Section`, nil when absent; throws when it is there in another shape.
    func readable<Section: StatusSection>(_ type: Section.Type) throws(UnreadableSection) -> Section? {
        guard sections[Section.sectionName] != nil else { return nil }
        guard let section = section(type) else { throw UnreadableSection() }
        return section
    }
}

extension StatusCommand {
    typealias SectionRenderer = @Sendable (StatusResult, Terminal) throws(UnreadableSection) -> StatusPart

    /// The sections this blectl shows in its own way, by name, in the order they show; a
    /// renderer may show several (`adapters` and `missing_adapters`). Any other section, and
    /// one that does not decode, is shown by ``GenericSection``.
    static let renderers: [(names: [String], render: SectionRenderer)] = [
        (
            [HistoryStatus.sectionName],
            { status, terminal throws(UnreadableSection) in
                StatusPart(rows: try status.readable(HistoryStatus.self).map { historyRows($0, terminal) } ?? [])
            }
        ),
        (
            [MQTTStatus.sectionName],
            { status, terminal throws(UnreadableSection) in
                StatusPart(
                    rows: try status.readable(MQTTStatus.self).map { [["MQTT:", mqttLine($0, terminal)]] } ?? [])
            }
        ),
        // The clients of the socket blectl is one of: for /metrics, not for this summary.
        ([SocketStatus.sectionName], { _, _ in StatusPart() }),
        ([AdvertisementStatus.sectionName], { status, _ throws(UnreadableSection) in try advertisementPart(status) }),
        (
            [ScanWatchdogStatus.sectionName],
            { status, terminal throws(UnreadableSection) in
                let watchdog = try status.readable(ScanWatchdogStatus.self)
                return StatusPart(rows: watchdog.map { [["Scan watchdog:", watchdogLine($0, terminal)]] } ?? [])
            }
        ),
        (
            [[AdapterStatus].sectionName, MissingAdapters.sectionName],
            { status, terminal throws(UnreadableSection) in
                let adapters = try status.readable([AdapterStatus].self) ?? []
                let missing = try status.readable(MissingAdapters.self)?.adapters ?? []
                return StatusPart(rows: adapterRows(adapters, missing: missing, terminal))
            }
        ),
        (
            [[CalibrationOffset].sectionName],
            { status, _ throws(UnreadableSection) in
                let offsets = try status.readable([CalibrationOffset].self) ?? []
                return StatusPart(
                    rows: offsets.enumerated().map { index, offset in
                        [index == 0 ? "Calibration:" : "", calibrationLine(offset)]
                    })
            }
        ),
        (
            [[SensorMemoryStatus].sectionName],
            { status, _ throws(UnreadableSection) in
                let memory = try status.readable([SensorMemoryStatus].self) ?? []
                return StatusPart(
                    tables: memory.isEmpty ? [] : [StatusPart.Table(rows: SensorMemoryRows.table(memory))])
            }
        ),
    ]

    /// What the sections show: the known ones in the order of ``renderers``, then the others
    /// by name.
    static func sectionsPart(_ status: StatusResult, _ terminal: Terminal) -> StatusPart {
        var part = StatusPart()
        var generic = Set(status.sections.keys)
        for renderer in renderers where renderer.names.contains(where: generic.contains) {
            guard let shown = try? renderer.render(status, terminal) else { continue }
            part.append(shown)
            generic.subtract(renderer.names)
        }
        for name in generic.sorted() {
            part.append(GenericSection.part(name, status.sections[name] ?? .null))
        }
        return part
    }

    /// `Advertising:`, and the table of the sensors heard.
    static func advertisementPart(_ status: StatusResult) throws(UnreadableSection) -> StatusPart {
        guard let adverts = try status.readable(AdvertisementStatus.self) else { return StatusPart() }
        var part = StatusPart(rows: [["Advertising:", advertisementLine(adverts)]])
        if !adverts.sensors.isEmpty {
            let header = ["", "ADDRESS", "PROFILE", "LAST HEARD", "INTERVAL", "RECEIVED", "MISSED", "LAST HOUR"]
            part.tables.append(StatusPart.Table(rows: [header] + adverts.sensors.map(sensorRow)))
        }
        return part
    }
}
