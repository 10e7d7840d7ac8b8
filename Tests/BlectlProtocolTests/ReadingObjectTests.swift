@testable import BlectlProtocol
import SensorModel
import Testing

/// ``Reading/jsonObject(absent:adding:)`` against the encoder it stands in for.
@Suite struct ReadingObjectTests {
    private static let time = Timestamp(rfc3339: "2026-11-30T01:02:03.456Z")!

    /// Readings of every shape: each quantity present or not, odd names and raw texts,
    /// numbers the encoder writes in each of its forms.
    static let readings: [Reading] = {
        let names: [String?] = ["ATC_AD0001", nil, "", "a/b", #"quo"te"#, "tab\tname", "Küche"]
        let numbers: [Double] = [0, -0.0, 21.37, -273.15, 1e21, 1e-7, 12345678.9, 100, 3.3]
        let profiles: [ProfileID] = ["bthome", "pvvx", "ruuvi", "pi-cputemp", "ünï"]
        let models: [String?] = ["LYWSD03MMC / MHO-C401", nil, #"q"uo/te"#, "Küche"]
        let manufacturers: [String?] = ["Xiaomi", nil, "Govee"]
        var readings: [Reading] = []
        for index in 0..<160 {
            var quantities = Quantities()
            for (offset, quantity) in Quantity.allCases.enumerated() where (index >> offset) & 1 == 1 {
                quantities[quantity] = numbers[(index + offset) % numbers.count]
            }
            var measurement = Measurement(
                profile: profiles[index % profiles.count], quantities: quantities,
                unit: index % 3 == 0 ? .fahrenheit : .celsius, raw: ["4000d1", "", "\u{1}", "21.4 C"][index % 4])
            if index % 7 == 2 { measurement.probe = UInt8(index % 5) }  // a probe of a multi-probe device
            if index % 5 == 1 {  // a calibrated reading: the values before the offsets beside it
                measurement.uncalibrated = Quantities([
                    .temperature: numbers[index % numbers.count], .humidity: numbers[(index + 3) % numbers.count],
                ])
            }
            readings.append(
                Reading(
                    seq: UInt64(index) * 1_000_003 + (index == 7 ? UInt64.max - 1_000_003 * 7 : 0),
                    time: time, address: "A4:C1:38:AD:00:01", name: names[index % names.count],
                    measurement: measurement, model: models[index % models.count],
                    manufacturer: manufacturers[index % manufacturers.count],
                    source: index % 4 == 3 ? .memory : .live))
        }
        return readings
    }()

    @Test("Numbers are written as the encoder writes them: hundredths, halves, and every other value")
    func numbers() {
        var values: [Double] = [0, -0.0, 0.01, -0.01, 0.1, 0.3, 0.1 + 0.2, 21.37, -273.15, 99.99, 100, 1e-7, 5e-5]
        values += [
            9_999_999.99, 10_000_000, 12_345_678.9, 1e21, .ulpOfOne, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        values += (0..<5_000).map { _ in Double(Int.random(in: -10_000_000...10_000_000)) / 100 }
        values += (0..<1_000).map { _ in Double.random(in: -1e9...1e9) }
        values += (0..<1_000).map { index in
            Double(Int.random(in: -2_000...2_000)) / [2, 4, 8, 10, 16, 1000][index % 6]
        }
        for value in values {
            var bytes: [UInt8] = []
            bytes.appendJSONNumber(value)
            #expect(String(decoding: bytes, as: UTF8.self) == JSONValue.numberText(value), "\(value)")
        }
    }

    @Test("a probe is written as `probe` and read back; left out for a device's only sensor")
    func probe() throws {
        var measurement = Measurement(profile: "govee-meat", quantities: Quantities([.temperature: 61.5]), raw: "00")
        let plain = Event.reading(
            Reading(seq: 1, time: Self.time, address: "A4:C1:38:AD:00:01", name: nil, measurement: measurement))
        let plainLine = try JSONLines.encode(plain)
        #expect(!String(decoding: plainLine, as: UTF8.self).contains("probe"))
        measurement.probe = 3
        let probed = Event.reading(
            Reading(seq: 2, time: Self.time, address: "A4:C1:38:AD:00:01", name: nil, measurement: measurement))
        let line = try JSONLines.encode(probed)
        #expect(String(decoding: line, as: UTF8.self).contains(#""probe":3,"#))
        #expect(try JSONLines.decode(Event.self, from: line.dropLast()) == probed)
    }

    @Test("Event lines of readings with any quantities are the encoder's bytes")
    func eventLines() throws {
        for reading in Self.readings {
            let event = Event.reading(reading)
            #expect(try event.jsonLine() == JSONLines.encode(event), "\(reading)")
        }
    }

    @Test(
        "Objects with members beside the reading's are the encoder's bytes",
        arguments: [AbsentOptionals.null, .omitted])
    func extendedObjects(absent: AbsentOptionals) throws {
        let extras: [[(key: String, value: JSONMember)]] = [
            [], [("gateway", .string("bench"))], [("gateway", .string("gw")), ("rssi", .integer(-61))],
            [("zz", .integer(0)), ("Aa", .string("é")), ("name", .string("replaced")), ("seq", .integer(-1))],
        ]
        for (index, reading) in Self.readings.enumerated() {
            let extra = extras[index % extras.count]
            var expected = try JSONLines.encode(Extended(reading: reading, extra: extra), absent: absent)
            expected.removeLast()
            #expect(reading.jsonObject(absent: absent, adding: extra) == expected, "\(reading) \(extra)")
        }
    }

    @Test func aQuantityThatIsNoNumberIsLeftToTheEncoder() {
        var quantities = Quantities()
        quantities[.humidity] = .infinity
        let reading = Reading(
            seq: 1, time: Self.time, address: "A4:C1:38:AD:00:01", name: nil,
            measurement: Measurement(profile: "bthome", quantities: quantities, raw: ""))
        #expect(reading.jsonObject(absent: .omitted) == nil)
        #expect(throws: (any Error).self) { try Event.reading(reading).jsonLine() }
    }

    /// The Codable object the hand-written one stands for: the reading, then each extra member.
    private struct Extended: Encodable {
        let reading: Reading
        let extra: [(key: String, value: JSONMember)]

        func encode(to encoder: any Encoder) throws {
            try reading.encode(to: encoder)
            var container = encoder.container(keyedBy: JSONKey.self)
            for member in extra {
                switch member.value {
                case .string(let text): try container.encode(text, forKey: JSONKey(stringValue: member.key))
                case .integer(let number): try container.encode(number, forKey: JSONKey(stringValue: member.key))
                }
            }
        }
    }
}

@Suite("Calibrated readings in JSON")
struct CalibratedReadingJSONTests {
    @Test("uncalibrated carries the offset quantities' decoded values, round trips, and is optional")
    func roundTrip() throws {
        var measurement = Measurement(
            profile: "atc1441", quantities: Quantities([.temperature: 21.5, .humidity: 50.6]), raw: "a4c1")
        measurement.uncalibrated = Quantities([.temperature: 21.2, .humidity: 48.1])
        let reading = Reading(
            seq: 3, time: Timestamp(rfc3339: "2026-11-30T01:02:03.456Z")!, address: "A4:C1:38:00:00:01",
            name: nil, measurement: measurement)
        let text = String(decoding: try JSONLines.encode(reading), as: UTF8.self)
        #expect(text.contains(#""uncalibrated":{"celsius":21.2,"humidity":48.1}"#), "\(text)")
        #expect(try JSONLines.decode(Reading.self, from: Array(text.utf8)) == reading)
        let line = try Event.reading(reading).jsonLine()
        #expect(line == (try JSONLines.encode(Event.reading(reading))))
        var plain = reading
        plain.measurement.uncalibrated = nil
        let plainText = String(decoding: try JSONLines.encode(plain), as: UTF8.self)
        #expect(!plainText.contains("uncalibrated"))
        #expect(try JSONLines.decode(Reading.self, from: Array(plainText.utf8)).measurement.uncalibrated == nil)
    }
}
