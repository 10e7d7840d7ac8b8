public import SensorModel

/// Turns advertisements into readings: the registry's formats, the configured BTHome keys,
/// and the replay state of each keyed device.
///
/// A plain value: whoever owns it (one per adapter, say) owns the replay state with it.
/// Decoding does no I/O and reads no clock.
public struct AdvertisementDecoder: Sendable {
    /// The formats tried.
    public let registry: AdvertisementRegistry
    /// The keys and replay state of devices that encrypt.
    public private(set) var keyring: AdvertisementKeyring

    /// A decoder for the given formats and BTHome keys.
    public init(registry: AdvertisementRegistry = .standard, keys: [BluetoothAddress: AdvertisementKey] = [:]) {
        self.registry = registry
        keyring = AdvertisementKeyring(keys: keys)
    }

    /// Decodes the field of `advertisement` that changed in this update.
    ///
    /// BlueZ's `ManufacturerData` and `ServiceData` keep the entries of earlier
    /// advertisements, so an update may hold stale entries of other formats next to the new
    /// one (a Govee's 0x004C iBeacon beside its 0xEC88, a device switched from pvvx to BTHome):
    /// only `changed` is decoded. On a device's first sighting, call once per field.
    ///
    /// - Returns: `nil` when `changed` is absent, read by no known format, or carries
    ///   nothing measured here; otherwise the reading or why there is none.
    public mutating func decode(
        _ advertisement: Advertisement, changed field: AdvertisementField
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard let payload = advertisement[field] else { return nil }
        return decode(payload, in: field, from: advertisement.address)
    }

    /// Decodes one field's payload from `address`.
    ///
    /// Empty and oversized payloads of a known field are errors before any format sees them.
    /// A reading that is not authenticated, from a device that has a key, is refused
    /// as ``ReadingError/Kind/unencrypted``: once a device has a key, only its encrypted
    /// packets count, whatever format an impostor sends under its address.
    public mutating func decode(
        _ payload: [UInt8], in field: AdvertisementField, from address: BluetoothAddress
    ) -> Result<AdvertisementReading, ReadingError>? {
        // The registry's profiles walked in place, not filtered into an array per payload.
        var lengthChecked = false
        for profile in registry.profiles where profile.fields.contains(field) {
            if !lengthChecked {
                if let error = ReadingLimits.checkLength(payload) { return .failure(error) }
                lengthChecked = true
            }
            guard let result = profile.decode(payload, from: address, keyring: &keyring) else { continue }
            if case .success(let reading) = result, !reading.isAuthenticated,
                let error = keyring.downgradeError(from: address, raw: payload, format: profile.name)
            {
                return .failure(error)
            }
            return result
        }
        return nil
    }
}
