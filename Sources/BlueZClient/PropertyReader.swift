import DBusCore

/// Reads typed properties out of a BlueZ property map.
///
/// A property of an unexpected type is reported (to ``problems``) and treated
/// as absent: BlueZ versions differ, and a bad value must never be fatal.
struct PropertyReader {
    /// The raw properties.
    let properties: [String: DBusValue]
    /// Descriptions of properties whose type was unexpected.
    private(set) var problems: [String] = []

    /// Creates a reader over a property map.
    init(_ properties: [String: DBusValue]) { self.properties = properties }

    /// The property `name` as `T`, or nil when absent or of another type.
    mutating func read<T: DBusConvertible>(_ name: String, as type: T.Type = T.self) -> T? {
        guard let value = properties[name] else { return nil }
        do {
            return try value.decode(T.self)
        } catch {
            problems.append("property \(name): \(error)")
            return nil
        }
    }

    /// The property `name`, one of BlueZ's `a{?v}` maps of byte arrays (`ManufacturerData`
    /// keyed by company, `ServiceData` by UUID), as plain bytes by key; entries that hold no
    /// bytes are skipped, a property of another type is reported and treated as absent.
    ///
    /// The same as reading `[Key: DBusValue]` and decoding each value, without going through
    /// DBusCore's generic `Dictionary` decoding, which runs unspecialized here (about 6,500
    /// instructions a map, for every advertisement, twice when the central scans).
    mutating func readBytesByKey<Key: DBusConvertible & Hashable>(_ name: String, as _: Key.Type) -> [Key: [UInt8]] {
        guard let value = properties[name] else { return [:] }
        guard case .dictionary(let map) = value.unwrappingVariants, Self.isVariantMap(map, keyedBy: Key.self) else {
            _ = read(name, as: [Key: DBusValue].self)  // the mismatch, reported as any other
            return [:]
        }
        var result: [Key: [UInt8]] = [:]
        for entry in map.entries {
            guard let key = try? Key(dbusValue: entry.key), let inner = try? DBusValue(dbusValue: entry.value) else {
                continue
            }
            result[key] = try? inner.decode([UInt8].self)  // a later entry of the same key wins
        }
        return result
    }

    /// Whether `map` is an `a{?v}` with keys of type `Key`. Told by its first entry (every
    /// entry has the map's types) rather than by `DBusDictionary.key`, whose text is a new
    /// heap string each time; an empty map by its signature.
    private static func isVariantMap<Key: DBusConvertible>(_ map: DBusDictionary, keyedBy _: Key.Type) -> Bool {
        guard let first = map.entries.first else {
            return map.key == Key.dbusSignature && map.value == DBusValue.dbusSignature
        }
        guard case .variant = first.value else { return false }
        return (try? Key(dbusValue: first.key)) != nil
    }
}
