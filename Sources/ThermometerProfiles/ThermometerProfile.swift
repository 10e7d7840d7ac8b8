public import SensorModel

/// A kind of BLE thermometer: which GATT service and characteristic carry the temperature,
/// and how to decode the characteristic's bytes.
///
/// Conforming types are plain values; decoding is pure, never traps, and checks every value
/// against ``ReadingLimits``.
public protocol ThermometerProfile: Sendable {
    /// What every other layer knows of this kind of thermometer (the one declaration of the
    /// family, in the profile's file).
    static var family: SensorFamily { get }
    /// The primary services that identify this kind of thermometer, in 128-bit form.
    var serviceUUIDs: [BluetoothUUID] { get }
    /// The characteristics, inside those services, whose values are temperatures.
    var temperatureCharacteristicUUIDs: [BluetoothUUID] { get }
    /// Decodes one value read from, or notified by, a temperature characteristic.
    func decode(_ value: [UInt8]) -> Result<Measurement, ReadingError>
    /// Whether a device is taken for this kind of thermometer by its services (advertised,
    /// or listed once connected); false for a profile followed only on devices configured
    /// for it (`gatt_live`): a Xiaomi stock sensor lists its service after any connection.
    var isFoundByService: Bool { get }
}

extension ThermometerProfile {
    /// The family, through an instance (``ProfileRegistry`` holds existentials).
    public var family: SensorFamily { Self.family }
    /// The profile's stable name in outputs, e.g. `health-thermometer`.
    public var id: ProfileID { Self.family.id }
    /// A short human name, e.g. `"Health Thermometer"`.
    public var name: String { Self.family.name }
    /// Found by its services.
    public var isFoundByService: Bool { true }

    /// Whether a discovered service belongs to this profile.
    public func matches(service uuid: BluetoothUUID) -> Bool {
        serviceUUIDs.contains(uuid)
    }

    /// Whether a discovered characteristic carries this profile's temperature.
    public func isTemperatureCharacteristic(_ uuid: BluetoothUUID) -> Bool {
        temperatureCharacteristicUUIDs.contains(uuid)
    }
}

/// Appends UUIDs not already present, keeping first-seen order.
func appendingUnique(_ base: [BluetoothUUID], _ extra: [BluetoothUUID]) -> [BluetoothUUID] {
    var result = base
    for uuid in extra where !result.contains(uuid) { result.append(uuid) }
    return result
}
