public import SensorModel

/// A format that decodes nothing from a payload alone: it needs the field it came in, the
/// sender's name or the companion payload (``AdvertisementContext``), and implements
/// ``AdvertisementProfile/decode(_:in:context:from:keyring:)``.
public protocol ContextualAdvertisementProfile: AdvertisementProfile {}

extension ContextualAdvertisementProfile {
    /// `nil`: without the context nothing is known.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        nil
    }
}

/// A format whose first two bytes sit where BlueZ expects the company id, read from any
/// manufacturer data of a device its ``AdvertisementProfile/manufacturerDataNames`` match
/// (Inkbird, ThermoPro): the `ManufacturerData` key changes with the measurement.
///
/// Conforming types read no ``AdvertisementProfile/fields`` of their own, and decode nothing
/// without the company id and the name.
public protocol NamedManufacturerDataProfile: ContextualAdvertisementProfile {
    /// Decodes one advertisement's data.
    ///
    /// - Parameters:
    ///   - data: The company id's two bytes (little-endian, as sent), then the payload.
    ///   - payload: The payload as BlueZ files it, for the measurement's raw value and errors.
    ///   - name: The device's local name, which ``AdvertisementProfile/manufacturerDataNames`` matched.
    /// - Returns: as ``AdvertisementProfile/decode(_:from:keyring:)``.
    func decode(data: [UInt8], payload: [UInt8], name: String) -> Result<AdvertisementReading, ReadingError>?
}

extension NamedManufacturerDataProfile {
    /// None: manufacturer data under any company id, by name.
    public var fields: [AdvertisementField] { [] }

    /// Puts the company id back in front of the payload and decodes the data of a device with
    /// a matching name; anything else is nobody's.
    public func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard case .manufacturerData(let company) = field, let name = context.name,
            manufacturerDataNames?.matches(name) == true
        else { return nil }
        let data = [UInt8(truncatingIfNeeded: company), UInt8(truncatingIfNeeded: company >> 8)] + payload
        return decode(data: data, payload: payload, name: name)
    }
}
