import Testing
import SensorModel
import ThermometerProfiles

@Suite("ReadingError")
struct ReadingErrorTests {
    /// One value per error kind, each from the decoder that produces it.
    static let oneOfEachKind: [(raw: [UInt8], decode: @Sendable () -> ReadingError?)] = [
        gatt(PiCPUTemperatureProfile(), []),
        gatt(PiCPUTemperatureProfile(), [0xFF, 0xFE, 0x34]),
        gatt(PiCPUTemperatureProfile(), bytes("44.7 C F")),
        gatt(PiCPUTemperatureProfile(), bytes("44.7")),
        gatt(PiCPUTemperatureProfile(), bytes("44.7 K")),
        gatt(PiCPUTemperatureProfile(), bytes("nan F")),
        gatt(PiCPUTemperatureProfile(), bytes("900 C")),
        gatt(PiCPUTemperatureProfile(), [UInt8](repeating: 0x31, count: 600)),
        gatt(HealthThermometerProfile(), [0x00, 0xFF, 0xFF, 0x7F, 0x00]),
        gatt(EnvironmentalSensingProfile(), [0x00, 0x80]),
        advertisement(bytes(hex: "40 02 C4 09 EE 01")),
        advertisement(bytes(hex: "20 02 C4 09")),
        advertisement(EncryptedVectors.counter1000),
        advertisement(EncryptedVectors.counter1000, keys: [sensorAddress: EncryptedVectors.publishedKey]),
        advertisement(bytes(hex: "40 02 C4 09"), keys: EncryptedVectors.keys),
        (
            EncryptedVectors.counter999,
            {
                var decoder = AdvertisementDecoder(keys: EncryptedVectors.keys)
                _ = decoder.decode(EncryptedVectors.counter1000, in: bthomeField, from: sensorAddress)
                return decoder.decode(EncryptedVectors.counter999, in: bthomeField, from: sensorAddress)?.failure
            }
        ),
    ]

    static func gatt(_ profile: some ThermometerProfile, _ raw: [UInt8]) -> (
        raw: [UInt8], decode: @Sendable () -> ReadingError?
    ) {
        (raw, { profile.decode(raw).failure })
    }

    static func advertisement(_ raw: [UInt8], keys: [BluetoothAddress: AdvertisementKey] = [:]) -> (
        raw: [UInt8], decode: @Sendable () -> ReadingError?
    ) {
        (raw, { decode(raw, in: bthomeField, keys: keys)?.failure })
    }

    @Test("every kind is reachable, and every description names its problem and shows the value")
    func everyKind() {
        var seen: Set<ReadingError.Kind> = []
        for (raw, decode) in Self.oneOfEachKind {
            guard let error = decode() else {
                Issue.record("accepted \(raw.hexString)")
                continue
            }
            seen.insert(error.kind)
            #expect(error.raw == raw)
            #expect(error.description.hasPrefix(error.kind.summary))
            #expect(error.description.contains("(\(raw.count) bytes)"))
        }
        #expect(seen == Set(ReadingError.Kind.allCases))
    }

    @Test("printable text is quoted")
    func quotesText() {
        let error = ReadingError(.unknownUnit, raw: bytes("44.7 K"), detail: #""K" is not C or F"#)
        #expect(
            error.description == #"unknown temperature unit: "K" is not C or F; raw "44.7 K" (6 bytes)"#)
        let decoded = PiCPUTemperatureProfile().decode(bytes("44.7 K")).failure
        #expect(decoded == error)
    }

    @Test("quotes and backslashes inside quoted text are escaped")
    func escapesQuotes() {
        let error = ReadingError(.malformed, raw: bytes(#"4"7\ C"#))
        #expect(error.description == #"malformed temperature value; raw "4\"7\\ C" (6 bytes)"#)
    }

    @Test(
        "unprintable bytes are shown as hex",
        arguments: [
            ([0xFF, 0xFE, 0x34], "<ff fe 34> (3 bytes)"),
            (bytes("44.7 C\0"), "<34 34 2e 37 20 43 00> (7 bytes)"),
            (bytes("\u{1B}[31m"), "<1b 5b 33 31 6d> (5 bytes)"),
            (bytes("4\u{202E}C"), "<34 e2 80 ae 43> (5 bytes)"),
            (bytes("4\n"), "<34 0a> (2 bytes)"),
            ([0x0A], "<0a> (1 byte)"),
        ] as [([UInt8], String)])
    func hex(_ raw: [UInt8], _ rendering: String) {
        #expect(
            ReadingError(.malformed, raw: raw).description == "malformed temperature value; raw "
                + rendering)
    }

    @Test("an empty value shows as empty quotes")
    func emptyValue() {
        #expect(
            ReadingError(.empty, raw: []).description == #"empty temperature value; raw "" (0 bytes)"#)
    }

    @Test("long values are cut, with their full length given")
    func longValues() throws {
        let text = try #require(
            PiCPUTemperatureProfile().decode(bytes(String(repeating: "1", count: 600))).failure)
        #expect(
            text.description == "temperature value is too long: 600 bytes, limit 64; raw \""
                + String(repeating: "1", count: 32) + "…\" (600 bytes)")
        let binary = ReadingError(.oversized, raw: [UInt8](repeating: 0xAB, count: 600))
        #expect(binary.description.hasSuffix(String(repeating: "ab ", count: 31) + "ab …> (600 bytes)"))
        #expect(binary.raw.count == 600)
    }

    @Test("untrusted parts inside the detail are rendered safely too")
    func safeDetail() throws {
        let error = try #require(PiCPUTemperatureProfile().decode(bytes("44.7 \u{202E}K")).failure)
        #expect(error.kind == .unknownUnit)
        #expect(error.detail == "<e2 80 ae 4b> is not C or F")
        #expect(!error.description.unicodeScalars.contains("\u{202E}"))
    }

    @Test(
        "details say what was wrong",
        arguments: [
            ("nan F", #""nan" is not a decimal number"#),
            ("44.7", "expected C or F after the number"),
            ("900 C", "900.0 C is outside -60.0...200.0 °C"),
            ("44\u{7}.7 C", "control character <07>"),
        ] as [(String, String)])
    func details(_ text: String, _ detail: String) throws {
        #expect(try #require(PiCPUTemperatureProfile().decode(bytes(text)).failure).detail == detail)
    }
}
