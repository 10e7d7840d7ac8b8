public import SensorModel

/// The keys of devices that encrypt their advertisements, and the replay state of each.
///
/// A plain value owned by whoever decodes (an ``AdvertisementDecoder``), never global: state
/// is kept only for devices that have a key and sent an authentic packet, so it stays as
/// small as the configuration.
public struct AdvertisementKeyring: Sendable {
    /// The key of each device that has one (BTHome, MiBeacon), from the configuration.
    public let keys: [BluetoothAddress: AdvertisementKey]
    /// The replay guard of each keyed device heard from.
    public private(set) var replayGuards: [BluetoothAddress: ReplayGuard] = [:]

    /// A keyring with the given keys and no history.
    public init(keys: [BluetoothAddress: AdvertisementKey] = [:]) {
        self.keys = keys
    }

    /// Judges the counter of an authentic packet from `address` (see ``ReplayGuard``).
    mutating func admit(_ counter: UInt32, from address: BluetoothAddress) -> ReplayGuard.Verdict {
        replayGuards[address, default: ReplayGuard()].admit(counter)
    }

    /// The key of `address`, or a ``ReadingError/Kind/missingKey`` error naming `format`.
    func key(for address: BluetoothAddress, raw: [UInt8], format: String) throws(ReadingError) -> AdvertisementKey {
        guard let key = keys[address] else {
            throw ReadingError(.missingKey, raw: raw, detail: "no \(format) key is configured for \(address)")
        }
        return key
    }

    /// Admits the counter of an authentic packet, or throws ``ReadingError/Kind/replayed``.
    mutating func admitFresh(_ counter: UInt32, from address: BluetoothAddress, raw: [UInt8]) throws(ReadingError) {
        if case .replayed(let last) = admit(counter, from: address) {
            throw ReadingError(
                .replayed, raw: raw, detail: "counter \(counter) is below \(last), the last accepted from \(address)")
        }
    }

    /// The error for an advertisement that is not authenticated from a device that has a
    /// key, or `nil` when the device has none.
    func downgradeError(from address: BluetoothAddress, raw: [UInt8], format: String) -> ReadingError? {
        guard keys[address] != nil else { return nil }
        return ReadingError(
            .unencrypted, raw: raw, detail: "\(address) has a key but sent unencrypted \(format) data")
    }
}
