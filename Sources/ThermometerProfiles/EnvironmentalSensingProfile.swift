public import SensorModel

/// The Bluetooth SIG Environmental Sensing profile: service 0x181A, Temperature 0x2A6E.
///
/// The value is exactly two bytes, a little-endian sint16 in units of 0.01 °C; any other
/// length is `malformed`, and 0x8000 ("value is not known") is `unsupportedValue`.
public struct EnvironmentalSensingProfile: ThermometerProfile {
    /// The Environmental Sensing service, 0x181A.
    public static let serviceUUID = BluetoothUUID(UInt16(0x181A))
    /// The Temperature characteristic (read, notify), 0x2A6E.
    public static let temperatureUUID = BluetoothUUID(UInt16(0x2A6E))

    /// The family: any maker's device with the Bluetooth SIG service.
    public static let family = SensorFamily(
        id: "environmental-sensing", name: "Environmental Sensing", manufacturer: "Bluetooth LE",
        models: ["Environmental Sensing"], quantities: [.temperature])
    /// The Environmental Sensing service.
    public let serviceUUIDs = [Self.serviceUUID]
    /// The Temperature characteristic.
    public let temperatureCharacteristicUUIDs = [Self.temperatureUUID]

    /// Creates the profile.
    public init() {}

    /// Decodes a Temperature value to Celsius.
    public func decode(_ value: [UInt8]) -> Result<Measurement, ReadingError> {
        if let error = ReadingLimits.checkLength(value) { return .failure(error) }
        guard value.count == 2 else {
            return .failure(
                ReadingError(.malformed, raw: value, detail: "expected 2 bytes, got \(value.count)"))
        }
        let hundredths = Int16(bitPattern: UInt16(value[0]) | UInt16(value[1]) << 8)
        guard hundredths != .min else {
            return .failure(
                ReadingError(.unsupportedValue, raw: value, detail: "0x8000, temperature not known"))
        }
        // Dividing by 100 (exact) gives the Double nearest to the decimal the device meant.
        return ReadingLimits.reading(id, value: Double(hundredths) / 100, unit: .celsius, raw: value)
    }
}
