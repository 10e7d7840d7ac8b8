/// What one value from a sensor measured: the decoded quantities and the value as sent.
///
/// The one shape a reading has from the decoder to the edge: the central reports it, the
/// hub numbers it, outputs write it out (JSON, SQL, MQTT, metrics) without reshaping it.
public struct Measurement: Sendable, Equatable {
    /// The profile that decoded it, e.g. `pi-cputemp` (see ``ProfileID``).
    public var profile: ProfileID
    /// The decoded values; a temperature in degrees Celsius, rounded to 0.01.
    public var quantities: Quantities
    /// The unit the device sent its temperature in.
    public var unit: TemperatureUnit
    /// The value as the device sent it: the text for text profiles (`"112.5 F"`), the bytes
    /// in lower-case hex otherwise.
    public var raw: String
    /// The probe that measured it, on a device with several (a meat thermometer's): numbered
    /// from 1 as the device and Home Assistant number them; nil for a device's only sensor.
    public var probe: UInt8?
    /// The device's model as an index into its family's ``SensorFamily/models``, where the
    /// decoder tells the model apart (a product id, the device's name); nil where it cannot,
    /// and the family's label stands.
    public var modelIndex: UInt8?
    /// The values as decoded, before a configured calibration offset changed them: only the
    /// quantities that were offset; nil when no offset applied.
    public var uncalibrated: Quantities? {
        get { uncalibratedBox?.value }
        set { uncalibratedBox = newValue.map(QuantitiesBox.init) }
    }
    /// Boxed, so a measurement stays small: `Quantities` is 64 bytes inline, and a second one
    /// carried by value through every hop of every reading cost an allocation per GATT
    /// notification (bench-check: 13.06 against 12.07). Only a calibrated reading allocates it.
    private var uncalibratedBox: QuantitiesBox?

    /// Creates a measurement.
    public init(
        profile: ProfileID, quantities: Quantities, unit: TemperatureUnit = .celsius, raw: String, probe: UInt8? = nil
    ) {
        self.profile = profile
        self.quantities = quantities
        self.unit = unit
        self.raw = raw
        self.probe = probe
    }

    /// The temperature in degrees Celsius, if measured.
    public var celsius: Double? { quantities[.temperature] }
}

/// A profile's stable name, as outputs show it (`profile` in JSON, a column in the store).
public struct ProfileID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The name, e.g. `pi-cputemp`.
    public let rawValue: String

    /// A profile name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A profile name from a literal.
    public init(stringLiteral value: String) { rawValue = value }

    /// The name.
    public var description: String { rawValue }

    /// A profile that is not known (an old history row, say).
    public static let unknown: ProfileID = "unknown"
}

extension [UInt8] {
    /// The bytes as lower-case hex, two digits each, no separator.
    public var hexString: String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: count * 2) { buffer in
            digits.withUTF8Buffer { hex in
                for (index, byte) in enumerated() {
                    buffer[index * 2] = hex[Int(byte >> 4)]
                    buffer[index * 2 + 1] = hex[Int(byte & 0xF)]
                }
            }
            return count * 2
        }
    }
}

/// A `Quantities` behind a reference (``Measurement/uncalibrated``), compared by value.
final class QuantitiesBox: Sendable, Equatable {
    let value: Quantities

    init(_ value: Quantities) {
        self.value = value
    }

    static func == (lhs: QuantitiesBox, rhs: QuantitiesBox) -> Bool {
        lhs.value == rhs.value
    }
}
