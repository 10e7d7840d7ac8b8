import BlectlProtocol

/// `watch`'s text lines: fixed columns (time, event, name, address, details), so a
/// stream of many devices and kinds of event stays aligned.
struct EventFormatter {
    let terminal: Terminal

    static let typeWidth = EventType.allCases.map(\.rawValue.count).max()!
    static let nameWidth = 20
    static let addressWidth = 17  // DC:A6:32:01:02:03
    static let temperatureWidth = 9  // -40.0 °F, 112.5 °F

    /// The text line for one event line from the daemon.
    func line(for json: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        guard let event = try? JSONLines.decode(Event.self, from: json) else { return unknownLine(json) }
        let (time, name, address, details) = fields(event)
        return columns(time, event.type.rawValue, name, address, details)
    }

    private func columns(_ time: Timestamp?, _ type: String, _ name: String, _ address: String, _ details: [String])
        -> String
    {
        let clock = time.map(Format.clock) ?? "--:--:--"
        let columns = [
            Format.fit(type, Self.typeWidth), Format.fit(name, Self.nameWidth), Format.fit(address, Self.addressWidth),
        ]
        let rest = details.filter { !$0.isEmpty }.joined(separator: "  ")
        return ([terminal.paint(clock, .dim)] + columns + [rest]).joined(separator: "  ")
    }

    private func fields(_ event: Event) -> (Timestamp, String, String, [String]) {
        switch event {
        case .reading(let reading):
            let value = Format.rightAligned(terminal.temperature(reading.celsius), Self.temperatureWidth)
            return (
                reading.time, Format.name(reading.name), reading.address,
                [terminal.paint(value, .bold), "(raw \"\(reading.raw)\")", "#\(reading.seq)"]
            )
        case .readingError(let failure):
            return (
                failure.time, Format.name(failure.name), failure.address,
                [terminal.paint(failure.error, .red), "(raw \(failure.rawHex))", "#\(failure.seq)"]
            )
        case .peripheralSeen(let sighting):
            return (
                sighting.time, Format.name(sighting.name), sighting.address,
                [sighting.rssi.map { "\($0) dBm" } ?? "", sighting.thermometer ? "thermometer" : ""]
            )
        case .peripheralLost(let change), .connected(let change):
            return (change.time, Format.name(change.name), change.address, [])
        case .disconnected(let change):
            return (change.time, Format.name(change.name), change.address, [change.reason ?? ""])
        case .adapterState(let change):
            return (change.time, change.adapter, "", [change.state.rawValue])
        }
    }

    /// An event type this build does not know (from a newer daemon): what every event has.
    private func unknownLine(_ json: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        struct Common: Decodable {
            var type: String
            var time: Timestamp?
            var address: String?
            var name: String?
        }
        guard let event = try? JSONLines.decode(Common.self, from: json) else {
            return String(decoding: json, as: UTF8.self)
        }
        return columns(event.time, event.type, event.name ?? "", event.address ?? "", [])
    }
}
