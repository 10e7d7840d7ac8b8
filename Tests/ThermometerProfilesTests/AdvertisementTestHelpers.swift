import Testing
import SensorModel
import ThermometerProfiles

/// Bytes written as hex, spaces allowed: `bytes(hex: "40 02 C4 09")`.
func bytes(hex text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count.isMultiple(of: 2), "odd hex: \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// The address most tests' advertisements come from.
let sensorAddress = BluetoothAddress("A4:C1:38:8D:18:B2")

/// Service data 0xFCD2 (BTHome).
let bthomeField = AdvertisementField.serviceData(BTHomeProfile.serviceUUID)
/// Service data 0x181A (pvvx, atc1441).
let environmentalField = AdvertisementField.serviceData(PVVXProfile.serviceUUID)
/// Manufacturer data 0x0499 (Ruuvi).
let ruuviField = AdvertisementField.manufacturerData(RuuviProfile.companyID)
/// Manufacturer data 0xEC88 (Govee).
let goveeField = AdvertisementField.manufacturerData(GoveeH5075Profile.companyID)

/// A good payload of every advertisement format, with the field it comes in and the local
/// name of its sender (for the formats that read manufacturer data by name).
let goodAdvertisements: [([UInt8], AdvertisementField, String?)] = [
    (bytes(hex: "40 00 3f 01 5e 02 82 08 03 ac 17 0c 83 0b 04 13 8a 01"), bthomeField, nil),
    (EncryptedVectors.counter1000, bthomeField, nil),
    (bytes(hex: "dc3312342d58 2f09 aa17 3d0b 4b 7c 05"), environmentalField, nil),
    (bytes(hex: "582d341233dc 00e0 3e 49 0b2c 2e"), environmentalField, nil),
    (bytes(hex: "05 12FC 5394 C37C 0004 FFFC 040C AC36 42 00CD CBB8334C884F"), ruuviField, nil),
    (bytes(hex: "06 144E 40F8 C915 0006 0219 32 00 A3 4B BD C0 FF00FF"), ruuviField, nil),
    (bytes(hex: "00 0418ee 64 00"), goveeField, nil),
    (bytes(hex: "00 c408 231d 64 02"), goveeField, nil),
    (
        bytes(hex: "40 50 5b05 01 0d10 04 fe00 4802"),
        AdvertisementField.serviceData(XiaomiMiBeaconProfile.serviceUUID), nil
    ),
    (
        bytes(hex: "0816a72514342d580104d800bb01020164"), AdvertisementField.serviceData(QingpingProfile.serviceUUID),
        nil
    ),
    (bytes(hex: "00009c0d0000fe44450cc501870217000000"), AdvertisementField.manufacturerData(0x10), nil),
    (bytes(hex: "1b570000000000f201f22794"), AdvertisementField.manufacturerData(BlueMaestroProfile.companyID), nil),
    (bytes(hex: "2001000101e401860c1cffff860af0ffff"), AdvertisementField.manufacturerData(0x1B36), nil),
    (bytes(hex: "c71200c83d5606"), AdvertisementField.manufacturerData(0x07FC), "sps"),
    (bytes(hex: "000030e2837db5020401fa000401fa00"), AdvertisementField.manufacturerData(0x0000), "iBBQ"),
    (bytes(hex: "0029220b01"), AdvertisementField.manufacturerData(0xEEC2), "TP357S (2142)"),
    (bytes(hex: "0030083800"), AdvertisementField.manufacturerData(0x3A00), "TP960R (0000)"),
    (bytes(hex: "5400e4069835"), AdvertisementField.serviceData(SwitchBotProfile.serviceUUID), nil),
    (bytes(hex: "00ba0af90f63020101"), goveeField, nil),
    (bytes(hex: "010103465464"), AdvertisementField.manufacturerData(GoveeH5100Profile.companyID), "GVH5100_7738"),
    (bytes(hex: "01010ed13298"), AdvertisementField.manufacturerData(GoveeH5100Profile.companyID), "GVH5106_4E05"),
    (bytes(hex: "010100002af7640003"), AdvertisementField.manufacturerData(GoveeH5100Profile.companyID), nil),
    (bytes(hex: "ec0001010a0aa40664"), AdvertisementField.manufacturerData(GoveeH5179Profile.companyID), nil),
    (bytes(hex: "c9a546"), AdvertisementField.manufacturerData(0x9A04), "SensorPush HT.w 0CA1"),
    (bytes(hex: "0200b4 02015d 23025d09 0303b718"), AdvertisementField.serviceData(BTHomeV1Profile.plainUUID), nil),
    (PVVXEncryptedVectors.custom, environmentalField, nil),
]

/// Decodes one payload with a fresh standard decoder.
func decode(
    _ payload: [UInt8], in field: AdvertisementField, name: String? = nil, companion: [UInt8]? = nil,
    from address: BluetoothAddress = sensorAddress, keys: [BluetoothAddress: AdvertisementKey] = [:]
) -> Result<AdvertisementReading, ReadingError>? {
    var decoder = AdvertisementDecoder(keys: keys)
    return decoder.decode(payload, in: field, name: name, companion: companion, from: address)
}

/// What a decoded advertisement must hold.
struct ExpectedReading: Sendable, CustomTestStringConvertible {
    var payload: [UInt8]
    var quantities: Quantities
    var counter: UInt32?
    /// The quantities left out as implausible, each with an error beside the reading.
    var dropped: Set<Quantity>
    var testDescription: String { payload.hexString }

    init(
        _ payload: [UInt8], _ quantities: KeyValuePairs<Quantity, Double>, counter: UInt32? = nil,
        dropped: Set<Quantity> = []
    ) {
        self.payload = payload
        self.quantities = Quantities(quantities)
        self.counter = counter
        self.dropped = dropped
    }
}

/// A payload that must be refused, and why.
struct ExpectedError: Sendable, CustomTestStringConvertible {
    var payload: [UInt8]
    var kind: ReadingError.Kind
    var testDescription: String { "\(kind): \(payload.hexString)" }

    init(_ payload: [UInt8], _ kind: ReadingError.Kind) {
        self.payload = payload
        self.kind = kind
    }
}

/// Checks a decoded reading against what is expected of `profile`.
func expectReading(
    _ result: Result<AdvertisementReading, ReadingError>?, _ expected: ExpectedReading, profile: ProfileID,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let outcome = try #require(result, "no reading at all", sourceLocation: sourceLocation)
    let reading = try #require(outcome.success, "\(outcome)", sourceLocation: sourceLocation)
    #expect(reading.measurement.quantities == expected.quantities, sourceLocation: sourceLocation)
    #expect(reading.counter == expected.counter, sourceLocation: sourceLocation)
    #expect(reading.measurement.profile == profile, sourceLocation: sourceLocation)
    #expect(reading.measurement.raw == expected.payload.hexString, sourceLocation: sourceLocation)
    #expect(reading.measurement.unit == .celsius, sourceLocation: sourceLocation)
    let dropped = Set(
        Quantity.allCases.filter { quantity in
            reading.dropped.contains { $0.detail?.hasPrefix("\(quantity) ") == true }
        })
    #expect(dropped == expected.dropped, "\(reading.dropped)", sourceLocation: sourceLocation)
    #expect(reading.dropped.count == expected.dropped.count, "\(reading.dropped)", sourceLocation: sourceLocation)
    for error in reading.dropped {
        #expect(error.kind == .outOfRange && error.raw == expected.payload, sourceLocation: sourceLocation)
    }
}

/// Checks that a payload was refused with the expected kind and its bytes.
func expectError(
    _ result: Result<AdvertisementReading, ReadingError>?, _ expected: ExpectedError,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let outcome = try #require(result, "no error at all", sourceLocation: sourceLocation)
    let error = try #require(outcome.failure, "\(outcome)", sourceLocation: sourceLocation)
    #expect(error.kind == expected.kind, "\(error)", sourceLocation: sourceLocation)
    #expect(error.raw == expected.payload, sourceLocation: sourceLocation)
}
