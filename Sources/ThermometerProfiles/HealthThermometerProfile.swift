public import SensorModel

/// The Bluetooth SIG Health Thermometer profile: service 0x1809, Temperature Measurement 0x2A1C.
///
/// A measurement is a flags byte, an IEEE-11073 32-bit FLOAT, then optional fields:
/// bit 0 set means Fahrenheit, bit 1 a 7-byte timestamp, bit 2 a 1-byte temperature type.
/// The optional fields must be present when announced (else `malformed`) and are not decoded;
/// bytes after them are ignored, as later revisions may append fields. Reserved flag bits
/// are ignored. NaN, NRes, ±INF and the reserved mantissa are `unsupportedValue`.
public struct HealthThermometerProfile: ThermometerProfile {
    /// The Health Thermometer service, 0x1809.
    public static let serviceUUID = BluetoothUUID(UInt16(0x1809))
    /// The Temperature Measurement characteristic (indicate), 0x2A1C.
    public static let temperatureMeasurementUUID = BluetoothUUID(UInt16(0x2A1C))

    /// The family: any maker's device with the Bluetooth SIG service.
    public static let family = SensorFamily(
        id: "health-thermometer", name: "Health Thermometer", manufacturer: "Bluetooth LE",
        models: ["Health Thermometer"], quantities: [.temperature])
    /// The Health Thermometer service.
    public let serviceUUIDs = [Self.serviceUUID]
    /// The Temperature Measurement characteristic. Intermediate Temperature (0x2A1E) is left
    /// out on purpose: it carries readings taken while a measurement is still settling.
    public let temperatureCharacteristicUUIDs = [Self.temperatureMeasurementUUID]

    /// Creates the profile.
    public init() {}

    /// Decodes a Temperature Measurement value to Celsius.
    public func decode(_ value: [UInt8]) -> Result<Measurement, ReadingError> {
        if let error = ReadingLimits.checkLength(value) { return .failure(error) }
        let flags = value[0]
        let isFahrenheit = flags & 0x01 != 0
        let hasTimestamp = flags & 0x02 != 0
        let hasType = flags & 0x04 != 0
        let needed = 1 + 4 + (hasTimestamp ? 7 : 0) + (hasType ? 1 : 0)
        guard value.count >= needed else {
            return .failure(
                ReadingError(
                    .malformed, raw: value,
                    detail: "flags 0x\(String(flags, radix: 16)) announce \(needed) bytes, got \(value.count)"
                ))
        }
        let word = value[1..<5].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        switch IEEE11073Float.decode(word) {
        case .success(let number):
            return ReadingLimits.reading(
                id, value: number, unit: isFahrenheit ? .fahrenheit : .celsius, raw: value)
        case .failure(let special):
            return .failure(
                ReadingError(
                    .unsupportedValue, raw: value,
                    detail: "IEEE-11073 \(special.name) (0x\(String(special.word, radix: 16)))"))
        }
    }
}
