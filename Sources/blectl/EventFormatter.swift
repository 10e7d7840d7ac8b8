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
        // Readings are nearly every line of a burst: read straight from the bytes.
        if let reading = ReadingFields(json) {
            return columns(
                reading.time, EventType.reading.rawValue,
                Format.name(reading.name) + (reading.probe.map { " probe \($0)" } ?? ""), reading.address,
                readingDetails(
                    reading.celsius, others: reading.others, profile: reading.profile, raw: reading.raw,
                    seq: reading.seq))
        }
        guard let event = try? JSONLines.decode(Event.self, from: json) else { return unknownLine(json) }
        let (time, name, address, details) = fields(event)
        return columns(time, event.type.rawValue, name, address, details)
    }

    private func readingDetails(
        _ celsius: Double?, others: OtherQuantities, profile: String?, raw: String, seq: UInt64
    ) -> [String] {
        let value = Format.rightAligned(celsius.map(terminal.temperature) ?? "–", Self.temperatureWidth)
        return [
            terminal.paint(value, .bold), Format.quantities(others, unit: terminal.unit),
            Format.origin(profile: profile, raw: raw),
            "#\(seq)",
        ]
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
            let probe = reading.measurement.probe.map { " probe \($0)" } ?? ""
            return (
                reading.time, Format.name(reading.name) + probe, reading.address.description,
                readingDetails(
                    reading.celsius,
                    others: OtherQuantities(
                        humidity: reading.measurement.quantities[.humidity],
                        battery: reading.measurement.quantities[.battery],
                        pressure: reading.measurement.quantities[.pressure],
                        voltage: reading.measurement.quantities[.voltage],
                        co2: reading.measurement.quantities[.co2],
                        dewPoint: reading.measurement.quantities[.dewPoint]),
                    profile: reading.measurement.profile.rawValue, raw: reading.measurement.raw, seq: reading.seq)
            )
        case .readingError(let failure):
            return (
                failure.time, Format.name(failure.name), failure.address.description,
                [terminal.paint(failure.error, .red), "(raw \(failure.rawHex))", "#\(failure.seq)"]
            )
        case .peripheralSeen(let sighting):
            return (
                sighting.time, Format.name(sighting.name), sighting.address.description,
                [sighting.rssi.map { "\($0) dBm" } ?? "", sighting.thermometer ? "thermometer" : ""]
            )
        case .peripheralLost(let change), .connected(let change):
            return (change.time, Format.name(change.name), change.address.description, [])
        case .disconnected(let change):
            return (change.time, Format.name(change.name), change.address.description, [change.reason ?? ""])
        case .adapterState(let change):
            return (change.time, change.adapter ?? "-", "", [change.state.rawValue, change.reason ?? ""])
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

/// The fields of a `reading` line that text shows, read with ``JSONScanner``; nil for
/// anything else, or when a string holds an escape (then the decoder reads it).
struct ReadingFields {
    var time: Timestamp
    var address: String
    var name: String?
    var celsius: Double
    var raw: String
    var seq: UInt64
    var profile: String?
    var probe: UInt64?
    var others = OtherQuantities()

    init?(_ json: Slice<UnsafeBufferPointer<UInt8>>) {
        let scanner = JSONScanner(json.base)
        var isReading = false
        var time: Timestamp?
        var address: String?
        var name: String??
        var celsius: Double?
        var raw: String?
        var seq: UInt64?
        var profile: String?
        var probe: UInt64?
        var others = OtherQuantities()
        func number(_ range: Range<Int>) -> Double? { Double(String(decoding: json.base[range], as: UTF8.self)) }
        func text(_ range: Range<Int>) -> String? {
            guard range.count >= 2, json.base[range.lowerBound] == UInt8(ascii: "\"") else { return nil }
            let inner = json.base[(range.lowerBound + 1)..<(range.upperBound - 1)]
            return inner.contains(UInt8(ascii: "\\")) ? nil : String(decoding: inner, as: UTF8.self)
        }
        let wellFormed = scanner.members(of: json.startIndex..<json.endIndex) { key, value in
            if scanner.equals(key, "type") {
                isReading = scanner.equals(value, #""reading""#)
            } else if scanner.equals(key, "time") {
                time = text(value).flatMap(Timestamp.init(rfc3339:))
            } else if scanner.equals(key, "address") {
                address = text(value)
            } else if scanner.equals(key, "name") {
                name = scanner.equals(value, "null") ? .some(nil) : text(value).map { $0 }
            } else if scanner.equals(key, "celsius") {
                celsius = Double(String(decoding: json.base[value], as: UTF8.self))
            } else if scanner.equals(key, "raw") {
                raw = text(value)
            } else if scanner.equals(key, "seq") {
                seq = scanner.unsignedInteger(value)
            } else if scanner.equals(key, "profile") {
                profile = text(value)
            } else if scanner.equals(key, "probe") {
                probe = scanner.unsignedInteger(value)
            } else if scanner.equals(key, "humidity") {
                others.humidity = number(value)
            } else if scanner.equals(key, "battery") {
                others.battery = number(value)
            } else if scanner.equals(key, "pressure") {
                others.pressure = number(value)
            } else if scanner.equals(key, "voltage") {
                others.voltage = number(value)
            } else if scanner.equals(key, "co2") {
                others.co2 = number(value)
            } else if scanner.equals(key, "dew_point") {
                others.dewPoint = number(value)
            }
            return true
        }
        guard wellFormed, isReading, let time, let address, let name, let celsius, let raw, let seq else { return nil }
        (self.time, self.address, self.name, self.celsius, self.raw, self.seq) = (
            time, address, name, celsius, raw, seq
        )
        self.profile = profile
        self.probe = probe
        self.others = others
    }
}
