import BlectlProtocol
import SensorModel
import TestSupport
import Testing

@Suite("Wire protocol")
struct ProtocolTests {
    static let time = Timestamp(rfc3339: "2026-11-30T01:02:03.456Z")!

    private func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONLines.encode(value).dropLast(), as: UTF8.self)
    }

    @Test("Every command survives encode and parse")
    func requestRoundTrip() throws {
        let commands: [Command] = [
            .status, .peripherals, .read(address: "DC:A6:32:01:02:03", timeout: 2.5), .read(address: nil, timeout: nil),
            .history(HistoryQuery(since: 12, limit: 50)),
            .history(
                HistoryQuery(
                    selector: "Pi", since: 3, from: Timestamp(millisecondsSince1970: 1_000),
                    until: Timestamp(millisecondsSince1970: 2_000))),
            .subscribe(events: [.reading, .connected]),
            .subscribe(events: nil), .scan(timeout: 4),
            .memoryDownload(address: "A4:C1:38:EE:00:01", timeout: 90),
            .memoryDownload(address: "A4:C1:38:EE:00:02", timeout: nil),
        ]
        for (index, command) in commands.enumerated() {
            let line = try JSONLines.encode(Request(id: index, command))
            #expect(Request.parse(line) == .success(Request(id: index, command)))
        }
    }

    @Test("The documented request shape parses")
    func documentedRequest() {
        let line = Array(#"{"v":1,"id":7,"cmd":"history","address":"DC:A6:32:01:02:03","since":12}"#.utf8)
        #expect(
            Request.parse(line)
                == .success(Request(id: 7, .history(HistoryQuery(selector: "DC:A6:32:01:02:03", since: 12)))))
    }

    @Test("memory_download takes an address in any case and an optional timeout")
    func memoryDownloadRequest() throws {
        let line = Array(#"{"v":1,"id":7,"cmd":"memory_download","address":"a4:c1:38:ee:00:01","timeout":30}"#.utf8)
        #expect(
            Request.parse(line) == .success(Request(id: 7, .memoryDownload(address: "A4:C1:38:EE:00:01", timeout: 30))))
        #expect(
            try text(Request(id: 8, .memoryDownload(address: "A4:C1:38:EE:00:01", timeout: nil)))
                == #"{"address":"A4:C1:38:EE:00:01","cmd":"memory_download","id":8,"v":1}"#)
    }

    @Test(
        "Bad requests get the right error code and keep their id when readable",
        arguments: [
            ("garbage", nil, ErrorCode.parseError),
            ("[1,2,3]", nil, .parseError),
            (#"{"v":1,"id":3}"#, 3, .badRequest),
            (#"{"id":4,"cmd":"status"}"#, 4, .badRequest),
            (#"{"v":2,"id":5,"cmd":"status"}"#, 5, .unsupportedVersion),
            (#"{"v":1,"id":6,"cmd":"reboot"}"#, 6, .unknownCommand),
            (#"{"v":1,"id":7,"cmd":"history","since":-1}"#, 7, .badRequest),
            (#"{"v":1,"id":8,"cmd":"history"}"#, 8, .badRequest),
            (#"{"v":1,"id":9,"cmd":"subscribe","events":["reading","nope"]}"#, 9, .badRequest),
            (#"{"v":1,"id":10,"cmd":"read","timeout":"soon"}"#, 10, .badRequest),
            (#"{"v":1,"id":"x","cmd":"status"}"#, nil, .badRequest),
            (#"{"v":1,"id":11,"cmd":"memory_download"}"#, 11, .badRequest),
            (#"{"v":1,"id":12,"cmd":"memory_download","address":"Thermometer"}"#, 12, .badRequest),
            (#"{"v":1,"id":13,"cmd":"memory_download","address":"A4:C1:38:EE:00:01","timeout":-1}"#, 13, .badRequest),
        ] as [(String, Int?, ErrorCode)])
    func badRequests(line: String, id: Int?, code: ErrorCode) {
        guard case .failure(let error) = Request.parse(Array(line.utf8)) else {
            Issue.record("\(line) parsed")
            return
        }
        #expect(error.id == id)
        #expect(error.error.code == code)
    }

    @Test("Hello, replies and events have the documented shapes")
    func shapes() throws {
        #expect(try text(Hello()) == #"{"daemon":"blectld","type":"hello","v":1,"version":"0.1.0"}"#)
        let reading = Reading(
            seq: 12, time: Self.time, address: "DC:A6:32:01:02:03", name: "Thermometer", celsius: 44.7, raw: "112.5 F",
            unit: .fahrenheit)
        #expect(
            try text(Event.reading(reading))
                == #"{"address":"DC:A6:32:01:02:03","celsius":44.7,"name":"Thermometer","profile":"pi-cputemp","raw":"112.5 F","seq":12,"time":"2026-11-30T01:02:03.456Z","type":"reading","unit":"F"}"#
        )
        let failure = ReadingFailure(
            seq: 13, time: Self.time, address: "DC:A6:32:01:02:03", name: nil, error: "not a number", rawHex: "ff00")
        #expect(
            try text(Event.readingError(failure))
                == #"{"address":"DC:A6:32:01:02:03","error":"not a number","name":null,"raw_hex":"ff00","seq":13,"time":"2026-11-30T01:02:03.456Z","type":"reading_error"}"#
        )
        let adapter = AdapterChange(time: Self.time, adapter: "hci0", state: .poweredOn)
        #expect(
            try text(Event.adapterState(adapter))
                == #"{"adapter":"hci0","reason":null,"state":"poweredOn","time":"2026-11-30T01:02:03.456Z","type":"adapter_state"}"#
        )
        #expect(
            try text(Reply<Empty>.failure(id: nil, ErrorInfo(.parseError, "not a JSON object")))
                == #"{"error":{"code":"parse_error","message":"not a JSON object"},"id":null,"ok":false,"v":1}"#)
        #expect(try text(Reply.success(id: 7, [String]())) == #"{"id":7,"ok":true,"result":[],"v":1}"#)
    }

    @Test("Readings and reading errors name their model and manufacturer, left out when unknown")
    func modelAndManufacturer() throws {
        let reading = Reading(
            seq: 12, time: Self.time, address: "A4:C1:38:AD:00:01", name: nil,
            measurement: Measurement(profile: "pvvx", quantities: Quantities(), raw: "00"),
            model: "LYWSD03MMC / MHO-C401", manufacturer: "Xiaomi")
        let line = try text(Event.reading(reading))
        #expect(
            line
                == #"{"address":"A4:C1:38:AD:00:01","celsius":null,"manufacturer":"Xiaomi","model":"LYWSD03MMC / MHO-C401","name":null,"profile":"pvvx","raw":"00","seq":12,"time":"2026-11-30T01:02:03.456Z","type":"reading","unit":"C"}"#
        )
        #expect(try Event.reading(reading).jsonLine() == JSONLines.encode(Event.reading(reading)))
        #expect(try JSONLines.decode(Event.self, from: Array(line.utf8)) == .reading(reading))
        let failure = ReadingFailure(
            seq: 13, time: Self.time, address: "A4:C1:38:AD:00:01", name: nil, error: "bad", rawHex: "ff",
            model: "RuuviTag", manufacturer: "Ruuvi")
        let failureLine = try text(Event.readingError(failure))
        #expect(failureLine.contains(#""manufacturer":"Ruuvi","model":"RuuviTag""#))
        #expect(try JSONLines.decode(Event.self, from: Array(failureLine.utf8)) == .readingError(failure))
        // An older daemon's lines have neither: they decode, to nil.
        let older =
            #"{"type":"reading","seq":1,"time":"2026-11-30T01:02:03.456Z","address":"A4:C1:38:AD:00:01","#
            + #""celsius":21.5,"raw":"00","unit":"C","profile":"pvvx"}"#
        guard case .reading(let decoded) = try JSONLines.decode(Event.self, from: Array(older.utf8)) else {
            Issue.record("not a reading")
            return
        }
        #expect(decoded.model == nil && decoded.manufacturer == nil)
    }

    @Test("Unknown names are null, not missing")
    func nullNames() throws {
        let sighting = PeripheralSighting(
            time: Self.time, address: "AA:BB:CC:DD:EE:FF", name: nil, rssi: nil, thermometer: false)
        let line = try text(Event.peripheralSeen(sighting))
        #expect(line.contains(#""name":null"#))
        #expect(line.contains(#""rssi":null"#))
    }

    @Test("Events decode back to themselves")
    func eventRoundTrip() throws {
        let events: [Event] = [
            .peripheralSeen(
                PeripheralSighting(
                    time: Self.time, address: "00:00:00:00:00:0A", name: "T", rssi: -60, thermometer: true)),
            .peripheralLost(PeripheralChange(time: Self.time, address: "00:00:00:00:00:0A", name: "T")),
            .connected(PeripheralChange(time: Self.time, address: "00:00:00:00:00:0A", name: nil)),
            .disconnected(
                PeripheralChange(time: Self.time, address: "00:00:00:00:00:0A", name: "T", reason: "timeout")),
            .adapterState(AdapterChange(time: Self.time, adapter: "hci0", state: .poweredOff)),
        ]
        for event in events {
            #expect(try JSONLines.decode(Event.self, from: JSONLines.encode(event)) == event)
        }
    }

    @Test("Timestamps are RFC 3339 UTC with milliseconds and parse with or without them")
    func timestamps() {
        #expect(Self.time.rfc3339 == "2026-11-30T01:02:03.456Z")
        #expect(Timestamp(rfc3339: "2026-11-30T01:02:03Z") != nil)
        #expect(Timestamp(rfc3339: "yesterday") == nil)
        #expect(Timestamp(millisecondsSince1970: 0).rfc3339 == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSince1970: -1).rfc3339 == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp(millisecondsSince1970: 1_709_164_800_500).rfc3339 == "2024-02-29T00:00:00.500Z")
        for _ in 0..<200 {
            let stamp = Timestamp(millisecondsSince1970: .random(in: -2_000_000_000_000...4_000_000_000_000))
            #expect(Timestamp(rfc3339: stamp.rfc3339) == stamp, "\(stamp)")
        }
    }

    @Test("Clients can tell hello, replies and events apart")
    func classify() throws {
        #expect(ServerLine.classify(try JSONLines.encode(Hello())) == .hello(Hello()))
        #expect(
            ServerLine.classify(Array(#"{"v":1,"id":3,"ok":false,"error":{"code":"x","message":"y"}}"#.utf8))
                == .reply(id: 3, ok: false))
        let event = Event.connected(PeripheralChange(time: Self.time, address: "00:00:00:00:00:0A", name: nil))
        #expect(ServerLine.classify(try JSONLines.encode(event)) == .event(event))
        #expect(ServerLine.classify(Array(#"{"type":"from_the_future"}"#.utf8)) == .unknown)
        #expect(ServerLine.classify(Array("garbage".utf8)) == .unknown)
    }

    @Test("Reading lines written by hand are the encoder's bytes")
    func fastReadingLines() throws {
        let names: [String?] = ["Thermometer", nil, "", "a/b", #"quo"te"#, "back\\slash", "tab\tname", "Küche"]
        let raws = ["112.5 F", "", "\u{1}", "e0f1"]
        var celsiusValues: [Double] = [0, -0.0, 100, -273.15, 1e21, 1e-7, .nan, .infinity, 12345678.9]
        celsiusValues += stride(from: -5000, through: 15000, by: 7).map { (Double($0) / 100 * 100).rounded() / 100 }
        celsiusValues += stride(from: -50.0, through: 150.0, by: 0.37).map { ($0 * 100).rounded() / 100 }
        let times = [
            Self.time, Timestamp(rfc3339: "1970-01-01T00:00:00Z")!, Timestamp(rfc3339: "2099-12-31T23:59:59.999Z")!,
        ]
        var index = 0
        for celsius in celsiusValues {
            index += 1
            let reading = Reading(
                seq: UInt64(index * 977), time: times[index % times.count], address: "DC:A6:32:01:02:03",
                name: names[index % names.count], celsius: celsius, raw: raws[index % raws.count],
                unit: index % 2 == 0 ? .celsius : .fahrenheit)
            let event = Event.reading(reading)
            if !celsius.isInfinite {  // NaN is no temperature: `null`
                #expect(try event.jsonLine() == JSONLines.encode(event), "\(reading)")
            } else {
                #expect(throws: (any Error).self) { try event.jsonLine() }
            }
        }
        let failure = ReadingFailure(
            seq: 13, time: Self.time, address: "DC:A6:32:01:02:03", name: nil, error: "not a number", rawHex: "ff00")
        #expect(try Event.readingError(failure).jsonLine() == JSONLines.encode(Event.readingError(failure)))
    }

    @Test("Timestamps keep their wire form")
    func timestampText() {
        #expect(Self.time.rfc3339 == "2026-11-30T01:02:03.456Z")
        #expect(Timestamp(rfc3339: "1970-01-01T00:00:00Z")!.rfc3339 == "1970-01-01T00:00:00.000Z")
        var beforeEpoch = Self.time
        beforeEpoch.millisecondsSince1970 = -1
        #expect(beforeEpoch.rfc3339 == "1969-12-31T23:59:59.999Z")
    }
}
