public import SensorModel

/// The Raspberry Pi "cputemp" peripheral: CPU temperature as text such as `"112.5 F"`.
///
/// Two spellings of its UUIDs are in circulation: the peripheral's code uses the suffix
/// `…-3e5b444bc3cf`, its README (and the iOS app derived from it) prints `…-3e5b444b3c3f`.
/// Both are accepted by default, and configuration can add more.
///
/// The text format and the decisions about padding, case and separators are documented on
/// ``decode(_:)``.
public struct PiCPUTemperatureProfile: ThermometerProfile {
    /// The local name the peripheral advertises; it advertises no service UUID, so
    /// discovery has to match on this name.
    public static let advertisedLocalName = "Thermometer"

    /// The thermometer service in both known spellings.
    public static let defaultServiceUUIDs = [
        BluetoothUUID(known: "00000001-710e-4a5b-8d75-3e5b444bc3cf"),
        BluetoothUUID(known: "00000001-710e-4a5b-8d75-3e5b444b3c3f"),
    ]

    /// The temperature characteristic (read, notify) in both known spellings.
    public static let defaultTemperatureCharacteristicUUIDs = [
        BluetoothUUID(known: "00000002-710e-4a5b-8d75-3e5b444bc3cf"),
        BluetoothUUID(known: "00000002-710e-4a5b-8d75-3e5b444b3c3f"),
    ]

    /// The unit characteristic (read, write; one letter) in both known spellings.
    public static let defaultUnitCharacteristicUUIDs = [
        BluetoothUUID(known: "00000003-710e-4a5b-8d75-3e5b444bc3cf"),
        BluetoothUUID(known: "00000003-710e-4a5b-8d75-3e5b444b3c3f"),
    ]

    /// The family: a GATT thermometer that sends its temperature as text.
    public static let family = SensorFamily(
        id: "pi-cputemp", name: "Raspberry Pi CPU temperature", manufacturer: "Raspberry Pi",
        models: ["cputemp peripheral"], quantities: [.temperature], sendsText: true)
    /// The default service spellings followed by any configured extras.
    public let serviceUUIDs: [BluetoothUUID]
    /// The default temperature characteristic spellings followed by any configured extras.
    public let temperatureCharacteristicUUIDs: [BluetoothUUID]
    /// The default unit characteristic spellings followed by any configured extras.
    ///
    /// Writing this characteristic does nothing on the real peripheral, so the unit is taken
    /// from each temperature value.
    public let unitCharacteristicUUIDs: [BluetoothUUID]

    /// Creates the profile with both default spellings plus extra UUIDs, e.g. from configuration.
    ///
    /// Duplicates are dropped; order is defaults first, then extras as given.
    public init(
        extraServiceUUIDs: [BluetoothUUID] = [],
        extraTemperatureCharacteristicUUIDs: [BluetoothUUID] = [],
        extraUnitCharacteristicUUIDs: [BluetoothUUID] = []
    ) {
        serviceUUIDs = appendingUnique(Self.defaultServiceUUIDs, extraServiceUUIDs)
        temperatureCharacteristicUUIDs = appendingUnique(
            Self.defaultTemperatureCharacteristicUUIDs, extraTemperatureCharacteristicUUIDs)
        unitCharacteristicUUIDs = appendingUnique(
            Self.defaultUnitCharacteristicUUIDs, extraUnitCharacteristicUUIDs)
    }

    /// Returns a copy that also accepts the given UUIDs.
    public func adding(
        serviceUUIDs services: [BluetoothUUID] = [],
        temperatureCharacteristicUUIDs temperatures: [BluetoothUUID] = [],
        unitCharacteristicUUIDs units: [BluetoothUUID] = []
    ) -> PiCPUTemperatureProfile {
        PiCPUTemperatureProfile(
            extraServiceUUIDs: appendingUnique(serviceUUIDs, services),
            extraTemperatureCharacteristicUUIDs: appendingUnique(
                temperatureCharacteristicUUIDs, temperatures),
            extraUnitCharacteristicUUIDs: appendingUnique(unitCharacteristicUUIDs, units))
    }

    /// Whether a discovered characteristic is the unit characteristic.
    public func isUnitCharacteristic(_ uuid: BluetoothUUID) -> Bool {
        unitCharacteristicUUIDs.contains(uuid)
    }

    /// Decodes a temperature value such as `"112.5 F"` or `"44.7 C"` to Celsius.
    ///
    /// Accepted: a plain decimal (sign allowed), optional blanks, then `C`/`F` in either case,
    /// optionally preceded by `°`. Surrounding spaces, tabs, CR/LF and trailing NUL bytes are
    /// ignored. Everything else is a ``ReadingError``: `nan`/`inf`/exponents are
    /// `notANumber`, a missing letter is `missingUnit`, `"44.7 K"` is `unknownUnit`, extra
    /// words or control characters are `malformed`.
    public func decode(_ value: [UInt8]) -> Result<Measurement, ReadingError> {
        TemperatureText.decode(value, profile: id)
    }
}
