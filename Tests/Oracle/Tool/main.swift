// blectl-oracle: blectl's advertisement decoders and the mock's encoders on the command
// line, for Tests/Oracle/oracle.py, which holds them against Home Assistant's parsers.
//
//   blectl-oracle decode          reads `FIELD ADDRESS HEX[/COMPANION] [KEY [NAME]]` lines (KEY `-`:
//                                 none; NAME the local name, to its end; COMPANION the payload
//                                 of the field read with FIELD, SwitchBot's), writes one JSON
//                                 line each
//   blectl-oracle generate FORMAT COUNT SEED
//                                 writes COUNT `FIELD ADDRESS HEX KEY NAME` lines the mock's
//                                 encoder made from random measurements (KEY `-`: none);
//                                 FORMAT is a mock format, or mibeacon-objects (random models,
//                                 objects and encryptions, v2/v3 included)
//
// FIELD is `s:XXXX` (service data, 16-bit UUID) or `m:XXXX` (manufacturer data, company id).
import MockBlueZ
import SensorModel
import ThermometerProfiles

#if canImport(Glibc)
    import Glibc
#endif

/// Why a line or an argument is refused.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

func field(_ text: Substring) throws -> AdvertisementField {
    guard text.count == 6, let value = UInt16(text.dropFirst(2), radix: 16) else {
        throw UsageError(description: "bad field \(text)")
    }
    switch text.prefix(2) {
    case "s:": return .serviceData(BluetoothUUID(value))
    case "m:": return .manufacturerData(value)
    default: throw UsageError(description: "bad field \(text)")
    }
}

func hexBytes(_ text: Substring) throws -> [UInt8] {
    let digits = Array(text.utf8)
    guard digits.count.isMultiple(of: 2) else { throw UsageError(description: "odd hex \(text)") }
    return try stride(from: 0, to: digits.count, by: 2).map { index in
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
            throw UsageError(description: "bad hex \(text)")
        }
        return byte
    }
}

/// One line of `decode`: the reading as JSON (`{"reading":{…}}`, `{"error":"…"}` or `null`).
func decodeLine(_ line: Substring) throws -> String {
    let words = line.split(separator: " ", maxSplits: 4)
    guard words.count >= 3, let address = BluetoothAddress(String(words[1])) else {
        throw UsageError(description: "decode takes FIELD ADDRESS HEX [KEY [NAME]]: \(line)")
    }
    let key = words.count >= 4 && words[3] != "-" ? String(words[3]) : nil
    let keys = try key.map { [address: try AdvertisementKey.fromOracle($0)] } ?? [:]
    let name = words.count == 5 ? String(words[4]) : nil
    var decoder = AdvertisementDecoder(keys: keys)
    let hex = words[2].split(separator: "/", maxSplits: 1)
    let companion = try hex.count == 2 ? hexBytes(hex[1]) : nil
    switch decoder.decode(
        try hexBytes(hex[0]), in: try field(words[0]), name: name, companion: companion, from: address)
    {
    case nil: return "null"
    case .failure(let error)?: return "{\"error\":\"\(error.kind)\"}"
    case .success(let reading)?:
        // A device with several probes: each probe's quantities as `celsius_probe_N`.
        let members = ([reading.measurement] + reading.probes).flatMap { measurement in
            let suffix = measurement.probe.map { "_probe_\($0)" } ?? ""
            return measurement.quantities.present.map { "\"\($0.quantity.key)\(suffix)\":\($0.value)" }
        }
        return "{\"profile\":\"\(reading.measurement.profile)\",\"reading\":{\(members.joined(separator: ","))}}"
    }
}

extension AdvertisementKey {
    /// A key of whichever format its length says (BTHome and MiBeacon v4/v5 keys are the same).
    static func fromOracle(_ hex: String) throws -> AdvertisementKey {
        try AdvertisementKey.miBeacon(hex: hex)
    }
}

/// `generate`: random measurements through the mock's encoder of `format`.
func generate(_ format: MockAdvertiser.Format, count: Int, seed: UInt64) -> [String] {
    var random = SplitMix64(seed: seed)
    let advertiser = MockAdvertiser(format: format)
    return (0..<count).map { index in
        let address: [UInt8] = [
            0xA4, 0xC1, 0x38, UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF),
        ]
        // Whole tenths: every format carries them (ATC1441 and Govee have no hundredths).
        let centiCelsius = 10 * Int.random(in: -300...600, using: &random)
        let centiHumidity = 10 * Int.random(in: 0...999, using: &random)
        let battery = Int.random(in: 0...100, using: &random)
        let counter = UInt32.random(in: 0...0xFF_FFFF, using: &random)
        let (serviceData, manufacturerData) = advertiser.advertisement(
            address: address, centiCelsius: centiCelsius, centiHumidity: centiHumidity, battery: battery,
            counter: counter)
        let text = address.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }
        var fields =
            serviceData.map { ("s:" + $0.key.dropFirst(4).prefix(4), $0.value.map(hex2).joined()) }
            + manufacturerData.filter { $0.key != 0x004C }.map { ("m:" + hex4($0.key), $0.value.map(hex2).joined()) }
        // Fields read together (SwitchBot's): one line, the manufacturer data with the service
        // data as its companion.
        if let (company, payload) = manufacturerData.first(where: { $0.key != 0x004C }),
            AdvertisementRegistry.standard.companion(of: .manufacturerData(company)) != nil,
            let service = serviceData.values.first
        {
            fields = [("m:" + hex4(company), payload.map(hex2).joined() + "/" + service.map(hex2).joined())]
        }
        let key = format.oracleKey.map { $0.map(hex2).joined() } ?? "-"
        let name = MockPeripheral.advertiser(index: index, format: format).advertisedName ?? "-"
        return fields.map { "\($0.0) \(text.joined(separator: ":")) \($0.1) \(key) \(name)" }
            .joined(separator: "\n")
    }
}

/// `generate mibeacon-objects`: frames of random thermometer models with random objects of
/// every kind read, plain, v5 or v2/v3 encrypted, from the mock's MiBeacon encoder.
func generateMiBeaconObjects(count: Int, seed: UInt64) -> [String] {
    var random = SplitMix64(seed: seed)
    let products = XiaomiMiBeaconProfile.models.keys.sorted()
    let key16 = MiBeaconEncoder.mockKey
    let key12 = Array(MiBeaconEncoder.mockKey.prefix(12))
    return (0..<count).map { index in
        let address: [UInt8] = [
            0x58, 0x2D, 0x34, UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF),
        ]
        var objects: [UInt8] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) { objects += randomObject(using: &random) }
        let counter = UInt32.random(in: 0...0xFF_FFFF, using: &random)
        let (encryption, key): (MiBeaconEncoder.Encryption, [UInt8]?) =
            switch Int.random(in: 0...2, using: &random) {
            case 0: (.none, nil)
            case 1: (.v5(key: key16, counterExtension: counter >> 8), key16)
            default: (.legacy(key: key12, counterExtension: counter >> 8), key12)
            }
        let frame = MiBeaconEncoder.frame(
            productID: products.randomElement(using: &random)!, frameCounter: UInt8(truncatingIfNeeded: counter),
            address: address, objects: objects, encryption: encryption)
        let text = address.map(hex2).joined(separator: ":").uppercased()
        return "s:fe95 \(text) \(frame.map(hex2).joined()) \(key.map { $0.map(hex2).joined() } ?? "-") -"
    }
}

/// One MiBeacon object of a kind the thermometers send, with a random value.
func randomObject(using random: inout SplitMix64) -> [UInt8] {
    func bytes(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    func float(_ value: Float) -> [UInt8] { bytes(Int(value.bitPattern), 4) }
    let tenths = Int.random(in: -300...600, using: &random)
    let humidity = Int.random(in: 0...999, using: &random)
    let percent = Int.random(in: 0...100, using: &random)
    return switch Int.random(in: 0...8, using: &random) {
    case 0: MiBeaconEncoder.object(0x1004, bytes(tenths, 2))
    case 1: MiBeaconEncoder.object(0x1006, bytes(humidity, 2))
    case 2: MiBeaconEncoder.object(0x100D, bytes(tenths, 2) + bytes(humidity, 2))
    case 3: MiBeaconEncoder.object(0x100A, [UInt8(percent)])
    case 4: MiBeaconEncoder.object(0x4803, [UInt8(percent)])
    case 5: MiBeaconEncoder.object(0x4C01, float(Float(Int.random(in: -3000...6000, using: &random)) / 100))
    case 6: MiBeaconEncoder.object(0x4C02, [UInt8(percent)])
    case 7: MiBeaconEncoder.object(0x4C08, float(Float(Int.random(in: 0...10000, using: &random)) / 100))
    default: MiBeaconEncoder.object(0x4C03, [UInt8(percent)])
    }
}

func hex2(_ byte: UInt8) -> String { byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }
func hex4(_ value: UInt16) -> String { hex2(UInt8(value >> 8)) + hex2(UInt8(value & 0xFF)) }

extension MockAdvertiser.Format {
    /// The key the mock's sensors of this format encrypt with.
    var oracleKey: [UInt8]? {
        switch self {
        case .bthomeEncrypted, .bthomeV1Encrypted, .pvvxEncrypted, .atc1441Encrypted: MockAdvertiser.bthomeKey
        case .miBeaconEncrypted: MiBeaconEncoder.mockKey
        default: nil
        }
    }
}

func main() -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    do {
        switch arguments.first {
        case "decode":
            while let line = readLine(), !line.isEmpty { print(try decodeLine(line[...])) }
        case "generate":
            let rest = Array(arguments.dropFirst())
            guard rest.count == 3, let count = Int(rest[1]), let seed = UInt64(rest[2]) else {
                throw UsageError(description: "generate takes FORMAT COUNT SEED")
            }
            if rest[0] == "mibeacon-objects" {
                print(generateMiBeaconObjects(count: count, seed: seed).joined(separator: "\n"))
            } else if let format = MockAdvertiser.Format(rawValue: rest[0]) {
                print(generate(format, count: count, seed: seed).joined(separator: "\n"))
            } else {
                throw UsageError(description: "no format \(rest[0])")
            }
        default:
            throw UsageError(description: "usage: blectl-oracle decode | generate FORMAT COUNT SEED")
        }
        return 0
    } catch {
        print("blectl-oracle: \(error)")
        return 64
    }
}

exit(main())
