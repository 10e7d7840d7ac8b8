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
    /// The field a format reads together with `changed` (``AdvertisementProfile/companion(of:)``)
    /// comes from the advertisement too.
    ///
    /// - Returns: `nil` when `changed` is absent, read by no known format, or carries
    ///   nothing measured here; otherwise the reading or why there is none.
    public mutating func decode(
        _ advertisement: Advertisement, changed field: AdvertisementField
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard let payload = advertisement[field] else { return nil }
        let companion = registry.companion(of: field).flatMap { advertisement[$0] }
        return decode(payload, in: field, name: advertisement.name, companion: companion, from: advertisement.address)
    }

    /// Decodes one field's payload from `address`.
    ///
    /// Empty and oversized payloads of a known field are errors before any format sees them.
    /// A reading that is not authenticated, from a device that has a key, is refused
    /// as ``ReadingError/Kind/unencrypted``: once a device has a key, only its encrypted
    /// packets count, whatever format an impostor sends under its address.
    ///
    /// - Parameter name: The device's local name: manufacturer data under any company id is
    ///   read by the formats whose ``AdvertisementProfile/manufacturerDataNames`` match it,
    ///   before those that read the company id (whose bytes, for such a device, are data:
    ///   an Inkbird at 11.77 °C sends 0x0499, Ruuvi's).
    /// - Parameter companion: The device's latest payload of the field read with `field`
    ///   (``AdvertisementRegistry/companion(of:)``), when one was heard.
    public mutating func decode(
        _ payload: [UInt8], in field: AdvertisementField, name: String? = nil, companion: [UInt8]? = nil,
        from address: BluetoothAddress
    ) -> Result<AdvertisementReading, ReadingError>? {
        var lengthChecked = false
        let context = AdvertisementContext(name: name, companion: companion)
        if name != nil, registry.readsAnyManufacturerData(from: name),
            let result = firstClaim(payload, in: field, context, byName: true, from: address, &lengthChecked)
        {
            return result
        }
        return firstClaim(payload, in: field, context, byName: false, from: address, &lengthChecked)
    }

    /// The first profile's claim on a payload: of those reading it by the sender's name (not
    /// the field), or of those reading the field. The registry's profiles are walked in place,
    /// not filtered into an array per payload.
    private mutating func firstClaim(
        _ payload: [UInt8], in field: AdvertisementField, _ context: AdvertisementContext, byName: Bool,
        from address: BluetoothAddress, _ lengthChecked: inout Bool
    ) -> Result<AdvertisementReading, ReadingError>? {
        for profile in registry.profiles
        where profile.fields.contains(field) != byName && (!byName || profile.reads(field, name: context.name)) {
            if !lengthChecked {
                if let error = ReadingLimits.checkLength(payload) { return .failure(error) }
                lengthChecked = true
            }
            guard let result = profile.decode(payload, in: field, context: context, from: address, keyring: &keyring)
            else { continue }
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
