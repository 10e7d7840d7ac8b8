import BlectlProtocol
import TestSupport
import SensorModel

/// Representative values of every Codable type in BlectlProtocol, named, for the golden
/// encoding tests.
enum ProtocolSamples {
    static let time = Timestamp(rfc3339: "2026-11-30T01:02:03.456Z")!
    static let epoch = Timestamp(rfc3339: "1970-01-01T00:00:00Z")!

    /// Every control character, quotes, backslash, slash, DEL and non-ASCII text.
    static let awkward =
        String(decoding: Array(0..<0x20) + Array(#""\/ ~"#.utf8) + [0x7F], as: UTF8.self)
        + "é€😀\u{2028}\u{FEFF}"

    static let reading = Reading(
        seq: 12, time: time, address: "DC:A6:32:01:02:03", name: "Thermometer", celsius: 44.7, raw: "112.5 F",
        unit: .fahrenheit)
    static let failure = ReadingFailure(
        seq: 13, time: time, address: "DC:A6:32:01:02:03", name: nil, error: "not a number", rawHex: "ff00")
    static let sighting = PeripheralSighting(
        time: time, address: "AA:BB:CC:DD:EE:FF", name: "a/b", rssi: -60, thermometer: true)
    static let change = PeripheralChange(time: time, address: "AA:BB:CC:DD:EE:FF", name: nil, reason: "timeout")
    static let status = StatusResult(
        adapter: "hci0", state: .poweredOn,
        connected: [
            ConnectedPeripheral(address: "DC:A6:32:01:02:03", name: "Pi", since: epoch, lastReading: reading),
            ConnectedPeripheral(address: "AA:BB:CC:DD:EE:FF", name: nil, since: time, lastReading: nil),
        ], lastSeq: 13, started: epoch)
    static let info = PeripheralInfo(
        address: "DC:A6:32:01:02:03", name: "Pi", rssi: -72, thermometer: true, connected: false, lastSeen: time)
    static let report = ReadingReport(reading, fresh: true, ageSeconds: 0.125)

    /// Celsius values covering the number formats: integral, fractional, signed zero,
    /// exponent forms, extremes.
    static let numbers: [Double] = [
        0, -0.0, 40, 40.1, -273.15, 0.1 + 0.2, 1e15, 1e16, 1e21, 1e-7, 12345678.9, .leastNonzeroMagnitude,
        .greatestFiniteMagnitude, 2.5e-5, 1.2345678901234568e17,
    ]

    /// Named values; the name keys the golden text.
    static let all: [(String, any Encodable & Sendable)] = {
        var values: [(String, any Encodable & Sendable)] = [
            ("unit", TemperatureUnit.celsius),
            ("adapterStates", AdapterState.allCases),
            ("eventTypes", EventType.allCases),
            ("errorCode", ErrorCode.lineTooLong),
            ("errorInfo", ErrorInfo(.badRequest, awkward)),
            ("timestamp", time),
            ("hello", Hello()),
            ("empty", Empty()),
            ("reading", Event.reading(reading)),
            (
                "readingNoName",
                Event.reading(
                    Reading(
                        seq: .max, time: epoch, address: "00:00:00:00:00:0A", name: nil, celsius: -0.0, raw: "",
                        unit: .celsius))
            ),
            (
                "readingAwkward",
                Event.reading(
                    Reading(
                        seq: 0, time: time, address: "00:00:00:00:00:00", name: awkward, celsius: 1e21, raw: awkward,
                        unit: .celsius
                    ))
            ),
            ("readingError", Event.readingError(failure)),
            ("peripheralSeen", Event.peripheralSeen(sighting)),
            (
                "peripheralSeenNulls",
                Event.peripheralSeen(
                    PeripheralSighting(
                        time: time, address: "00:00:00:00:00:0A", name: nil, rssi: nil, thermometer: false))
            ),
            (
                "peripheralLost",
                Event.peripheralLost(PeripheralChange(time: time, address: "00:00:00:00:00:0A", name: "T"))
            ),
            ("connected", Event.connected(PeripheralChange(time: time, address: "00:00:00:00:00:0A", name: nil))),
            ("disconnected", Event.disconnected(change)),
            ("adapterState", Event.adapterState(AdapterChange(time: time, adapter: "hci0", state: .poweredOff))),
            ("status", status),
            ("statusEmpty", StatusResult(adapter: nil, state: .unknown, connected: [], lastSeq: 0, started: time)),
            ("statusSections", StatusSectionSamples.status),
            ("connectedPeripheral", status.connected[0]),
            ("peripheralInfo", info),
            (
                "peripheralInfoNulls",
                PeripheralInfo(
                    address: "00:00:00:00:00:0A", name: nil, rssi: nil, thermometer: false, connected: true,
                    lastSeen: epoch)
            ),
            ("readingReport", report),
            (
                "history",
                HistoryResult(
                    events: [.reading(reading), .readingError(failure)], lastSeq: 13, complete: false, more: true)
            ),
            ("historyEmpty", HistoryResult(events: [], lastSeq: 0, complete: true, more: false)),
            ("subscribe", SubscribeResult(events: [.reading, .connected], lastSeq: 7)),
            ("replyStatus", Reply.success(id: 1, status)),
            ("replyPeripherals", Reply.success(id: Int.max, [info])),
            ("replyRead", Reply.success(id: Int.min, [report])),
            ("replyEmpty", Reply.success(id: nil, Empty())),
            ("replyStrings", Reply.success(id: 7, [String]())),
            ("replyFailure", Reply<Empty>.failure(id: 3, ErrorInfo(.notFound, "no thermometer matches \"x\""))),
        ]
        let commands: [Command] = [
            .status, .peripherals, .read(address: "DC:A6:32:01:02:03", timeout: 2.5), .read(address: nil, timeout: nil),
            .history(HistoryQuery(since: 12, limit: 50)), .history(HistoryQuery(selector: "Pi", since: .max)),
            .subscribe(events: [.reading, .connected]), .subscribe(events: nil), .subscribe(events: []),
            .scan(timeout: 4), .scan(timeout: 1e-3),
        ]
        for (index, command) in commands.enumerated() {
            values.append(("request\(index)", Request(id: index == 1 ? nil : index, command)))
        }
        for (index, celsius) in numbers.enumerated() {
            values.append(
                (
                    "number\(index)",
                    ReadingReport(
                        Reading(
                            seq: 1, time: time, address: "00:00:00:00:00:0A", name: nil, celsius: celsius, raw: "",
                            unit: .celsius),
                        fresh: false, ageSeconds: -celsius)
                ))
        }
        return values
    }()
}
