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
}
