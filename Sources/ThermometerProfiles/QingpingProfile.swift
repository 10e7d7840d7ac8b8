public import SensorModel

/// Qingping (ClearGrass): service data 0xFDCD, a frame-control byte, the device type, the
/// address (6 bytes), then objects: id (uint8), length (uint8), data, little-endian.
///
/// Objects read (as Home Assistant's qingping-ble reads them): 0x01 temperature (sint16 ×
/// 0.1 °C) and humidity (uint16 × 0.1 %), 0x02 battery (% ; 0xFF, mains power, is 100 %),
/// 0x07 pressure (uint16 × 0.1 hPa), 0x13 carbon dioxide (uint16, ppm: CGP22C, CGDN1, CGR1PC).
/// Objects of another length than theirs, and the others (motion, light, particulates, VOC,
/// noise, the hardware bitmap 0x18, the packet id), are skipped;
/// one that runs past the end ends the frame. A device type Home Assistant does not list, or
/// a frame shorter than its header, is nobody's. The sensors send no counter.
public struct QingpingProfile: AdvertisementProfile {
    /// Qingping's service data UUID, 0xFDCD.
    public static let serviceUUID = BluetoothUUID(UInt16(0xFDCD))

    /// The device types Home Assistant's qingping-ble knows, by the byte that names them.
    public static let models: [UInt8: String] = [
        0x01: "CGG1", 0x04: "CGH1", 0x07: "CGG1", 0x09: "CGP1W", 0x0C: "CGD1", 0x0E: "CGDN1", 0x0F: "CGM1",
        0x10: "CGDK2", 0x12: "CGPR1", 0x15: "CGF1W", 0x16: "CGG1", 0x18: "CGP23W", 0x1E: "CGC1", 0x24: "CGDN1",
        0x26: "CGP23W", 0x33: "CGP22C", 0x4F: "CGG3", 0x5D: "CGP22C", 0x52: "CGR1PC", 0x62: "CGR1PC",
    ]

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "qingping", name: "Qingping (ClearGrass)", manufacturer: "Qingping",
        models: [
            "CGG1", "CGDK2", "CGP1W", "CGDN1", "CGP22C", "CGP23W", "CGG3", "CGF1W", "CGD1", "CGC1", "CGM1", "CGR1PC",
        ],
        quantities: [.temperature, .humidity, .battery, .pressure, .co2])

    /// Service data 0xFDCD.
    public let fields: [AdvertisementField] = [.serviceData(Self.serviceUUID)]

    /// Where the objects start: frame control, device type, address.
    static let headerLength = 8

    /// Creates the profile.
    public init() {}

    /// Decodes a Qingping frame.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        catchingReadingError { () throws(ReadingError) in
            guard payload.count >= Self.headerLength, let model = Self.models[payload[1]] else { return nil }
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(of: model)
            var start = Self.headerLength
            while start + 2 <= payload.count {
                let length = Int(payload[start + 1])
                let next = start + 2 + length
                guard next <= payload.count else { break }
                try read(payload[start], length, at: start + 2, of: payload, into: &builder)
                start = next
            }
            guard !builder.isEmpty else { return nil }
            return try builder.reading(counter: nil, counterModulus: nil)
        }
    }

    /// One object; a later object of a quantity replaces an earlier one, as in Home Assistant.
    private func read(
        _ id: UInt8, _ length: Int, at offset: Int, of payload: [UInt8], into builder: inout QuantitiesBuilder
    ) throws(ReadingError) {
        switch (id, length) {
        case (0x01, 4):
            try builder.replace(.temperature, payload.signedLittleEndian(at: offset, count: 2), per: 10)
            try builder.replace(.humidity, payload.unsignedLittleEndian(at: offset + 2, count: 2), per: 10)
        case (0x02, 1): try builder.replace(.battery, payload[offset] == 0xFF ? 100 : Int(payload[offset]))
        case (0x07, 2): try builder.replace(.pressure, payload.unsignedLittleEndian(at: offset, count: 2), per: 10)
        case (0x13, 2): try builder.replace(.co2, payload.unsignedLittleEndian(at: offset, count: 2))
        default: break
        }
    }
}
