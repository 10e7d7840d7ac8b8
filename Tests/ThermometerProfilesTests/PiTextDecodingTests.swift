import Testing
import SensorModel
import ThermometerProfiles

/// A text value and what it must decode to.
struct TextCase: Sendable, CustomTestStringConvertible {
    var text: String
    var celsius: Double
    var unit: TemperatureUnit
    var value: Double
    var testDescription: String { text.debugDescription }
}

/// A value that must be refused, and why.
struct RejectedCase: Sendable, CustomTestStringConvertible {
    var raw: [UInt8]
    var kind: ReadingError.Kind
    var testDescription: String {
        "\(kind): \(raw.count) bytes \(String(decoding: raw.prefix(12), as: UTF8.self).debugDescription)"
    }

    init(_ text: String, _ kind: ReadingError.Kind) {
        self.init(bytes(text), kind)
    }

    init(_ raw: [UInt8], _ kind: ReadingError.Kind) {
        self.raw = raw
        self.kind = kind
    }
}

@Suite("Pi cputemp text values")
struct PiTextDecodingTests {
    let profile = PiCPUTemperatureProfile()

    @Test(
        "decodes the values the real peripheral sends, with padding/case/separator variants",
        arguments: [
            TextCase(text: "112.5 F", celsius: 44.72, unit: .fahrenheit, value: 112.5),
            TextCase(text: "113.0 F", celsius: 45, unit: .fahrenheit, value: 113),
            TextCase(text: "44.7 C", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "-3.5 C", celsius: -3.5, unit: .celsius, value: -3.5),
            TextCase(text: "-40.0 F", celsius: -40, unit: .fahrenheit, value: -40),
            TextCase(text: "32 F", celsius: 0, unit: .fahrenheit, value: 32),
            TextCase(text: "+21 C", celsius: 21, unit: .celsius, value: 21),
            TextCase(text: "0.0 C", celsius: 0, unit: .celsius, value: 0),
            TextCase(text: "98.6 F", celsius: 37, unit: .fahrenheit, value: 98.6),
            TextCase(text: "31.99 F", celsius: -0.01, unit: .fahrenheit, value: 31.99),
            TextCase(text: "044.70 C", celsius: 44.7, unit: .celsius, value: 44.7),
            // Tolerated padding: surrounding whitespace and trailing NULs.
            TextCase(text: " 44.7 C ", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "44.7 C\n", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "\r\n44.7 C\r\n", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "44.7 C\0", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "44.7 C\n\0\0\0", celsius: 44.7, unit: .celsius, value: 44.7),
            // Separator: optional, any blanks.
            TextCase(text: "44.7C", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "44.7\tC", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "44.7   C", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "-5F", celsius: -20.56, unit: .fahrenheit, value: -5),
            // Case and degree sign.
            TextCase(text: "44.7 c", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "112.5 f", celsius: 44.72, unit: .fahrenheit, value: 112.5),
            TextCase(text: "44.7 °C", celsius: 44.7, unit: .celsius, value: 44.7),
            TextCase(text: "112.5°F", celsius: 44.72, unit: .fahrenheit, value: 112.5),
        ])
    func decodesGoodValues(_ testCase: TextCase) throws {
        let reading = try #require(profile.decode(bytes(testCase.text)).success)
        #expect(reading.celsius == testCase.celsius)
        #expect(reading.unit == testCase.unit)
        // The text without the tolerated padding.
        #expect(
            reading.raw
                == String(
                    testCase.text.trimmingPrefix(while: \.isPadding).reversed().drop(while: \.isPadding).reversed()))
        #expect(reading.profile == "pi-cputemp")
    }

    @Test("keeps the text the device sent")
    func keepsRawText() {
        let expected = Measurement(
            profile: "pi-cputemp", quantities: Quantities([.temperature: 44.72]), unit: .fahrenheit, raw: "112.5 F")
        #expect(profile.decode(bytes("112.5 F")) == .success(expected))
    }

    @Test("raw text drops the tolerated padding")
    func rawTextIsTrimmed() throws {
        let reading = try #require(profile.decode(bytes(" 44.7 C\r\n\0\0")).success)
        #expect(reading.raw == "44.7 C")
    }

    @Test(
        "Fahrenheit converts exactly as (F − 32) × 5/9, rounded to 0.01",
        arguments: [
            -76, -40, -0.5, 0, 31.9, 32, 50, 77.7, 98.6, 100, 112.5, 113, 150.3, 212, 391.9, 392,
        ] as [Double])
    func fahrenheitConversion(_ fahrenheit: Double) throws {
        let reading = try #require(profile.decode(bytes("\(fahrenheit) F")).success)
        #expect(reading.celsius == roundedCelsius(fahrenheit: fahrenheit))
    }

    @Test("a reading near zero is never −0")
    func noNegativeZero() throws {
        let reading = try #require(profile.decode(bytes("31.999 F")).success)
        #expect(reading.celsius == 0)
        #expect(reading.celsius?.sign == .plus)
    }

    @Test(
        "refuses bad text with the right error kind and the raw bytes",
        arguments: [
            // empty
            RejectedCase("", .empty),
            RejectedCase("   ", .empty),
            RejectedCase("\0", .empty),
            RejectedCase("\r\n\0\0", .empty),
            // notUTF8
            RejectedCase([0xFF, 0xFE], .notUTF8),
            RejectedCase([0x34, 0x34, 0x2E, 0x37, 0x20, 0xC3], .notUTF8),
            RejectedCase([0xC0, 0x80], .notUTF8),
            RejectedCase([0x34, 0x34, 0xED, 0xA0, 0x80, 0x20, 0x43], .notUTF8),
            // malformed
            RejectedCase("44.7 C F", .malformed),
            RejectedCase("44.7 ° C", .malformed),
            RejectedCase("44.7\nC", .malformed),
            RejectedCase("\044.7 C", .malformed),
            RejectedCase("44.7\0 C", .malformed),
            RejectedCase("44\u{1B}[0m.7 C", .malformed),
            RejectedCase("CPU 44.7 C", .malformed),
            // missingUnit
            RejectedCase("44.7", .missingUnit),
            RejectedCase("-3", .missingUnit),
            RejectedCase(" 44.7 \0", .missingUnit),
            // unknownUnit
            RejectedCase("44.7 K", .unknownUnit),
            RejectedCase("44.7K", .unknownUnit),
            RejectedCase("44.7 Celsius", .unknownUnit),
            RejectedCase("44.7 CF", .unknownUnit),
            RejectedCase("44.7 °", .unknownUnit),
            RejectedCase("44.7 ℃", .unknownUnit),
            RejectedCase("44.7 x", .unknownUnit),
            // notANumber
            RejectedCase("nan F", .notANumber),
            RejectedCase("NaN C", .notANumber),
            RejectedCase("-nan C", .notANumber),
            RejectedCase("inf C", .notANumber),
            RejectedCase("-inf F", .notANumber),
            RejectedCase("infinity C", .notANumber),
            RejectedCase("nan", .notANumber),
            RejectedCase("1e3 C", .notANumber),
            RejectedCase("1e3C", .notANumber),
            RejectedCase("0x10 C", .notANumber),
            RejectedCase("44,7 C", .notANumber),
            RejectedCase(".5 C", .notANumber),
            RejectedCase("5. C", .notANumber),
            RejectedCase("4.4.7 C", .notANumber),
            RejectedCase("--1 C", .notANumber),
            RejectedCase("+-1 C", .notANumber),
            RejectedCase("- C", .notANumber),
            RejectedCase("abc F", .notANumber),
            RejectedCase("F", .notANumber),
            RejectedCase("٤٤ C", .notANumber),
            // outOfRange (bounds −60…200 °C, inclusive)
            RejectedCase("900 C", .outOfRange),
            RejectedCase("200.01 C", .outOfRange),
            RejectedCase("-60.01 C", .outOfRange),
            RejectedCase("392.1 F", .outOfRange),
            RejectedCase("-76.1 F", .outOfRange),
            RejectedCase("-273.15 C", .outOfRange),
            RejectedCase("99999999999999999999999999999999 C", .outOfRange),
            // oversized (limit 64 bytes)
            RejectedCase(String(repeating: "1", count: 600), .oversized),
            RejectedCase([UInt8](repeating: 0xFF, count: 600), .oversized),
            RejectedCase("44.7 C" + String(repeating: " ", count: 59), .oversized),
        ])
    func rejects(_ testCase: RejectedCase) throws {
        let error = try #require(profile.decode(testCase.raw).failure)
        #expect(error.kind == testCase.kind)
        #expect(error.raw == testCase.raw)
    }

    @Test(
        "accepts the bounds themselves", arguments: ["-60 C", "200 C", "-76 F", "392 F", "-60.00 C"])
    func acceptsBounds(_ text: String) {
        #expect(profile.decode(bytes(text)).success != nil)
    }

    @Test("accepts a value of exactly 64 bytes")
    func acceptsLimitLength() throws {
        let raw = bytes("44.7 C" + String(repeating: " ", count: 58))
        #expect(raw.count == ReadingLimits.maximumValueLength)
        #expect(try #require(profile.decode(raw).success).celsius == 44.7)
    }
}

extension Character {
    /// Spaces, tabs, CR, LF and NUL: what the profile tolerates around a value.
    fileprivate var isPadding: Bool { [" ", "\t", "\r", "\n", "\r\n", "\0"].contains(self) }
}
