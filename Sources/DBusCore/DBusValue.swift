/// One D-Bus value of any type, with enough type information to be sent.
///
/// Containers keep their element signature so that empty arrays and
/// dictionaries round-trip with the right type.
public enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    /// A unix file descriptor; the value owns a duplicate and closes it when released.
    case unixFD(UnixFileDescriptor)
    /// An array whose elements all have the type `element`.
    case array(element: Signature, [DBusValue])
    /// A dictionary (`a{kv}`), kept in wire order; build one with
    /// ``dictionary(key:value:_:)``.
    case dictionary(DBusDictionary)
    /// A struct, `(…)`.
    case structure([DBusValue])
    /// A variant: a value that carries its own type.
    indirect case variant(DBusValue)
}

/// A D-Bus dictionary's entries and their types.
///
/// The key and value signatures are kept as one text (the key is one basic type, so its
/// first character), which keeps ``DBusValue`` at 24 bytes instead of 40: the mirror of
/// BlueZ's objects holds thousands of them.
public struct DBusDictionary: Sendable, Equatable {
    /// The entries' signature without braces, such as `sv`.
    private let entrySignature: String
    /// The entries, in wire order.
    public var entries: [DBusDictionaryEntry]

    /// Creates a dictionary of `entries` typed `key` → `value`.
    public init(key: Signature, value: Signature, _ entries: [DBusDictionaryEntry]) {
        entrySignature = key.rawValue + value.rawValue
        self.entries = entries
    }

    /// The keys' signature (one basic type).
    public var key: Signature { Signature(unchecked: String(entrySignature.prefix(1))) }
    /// The values' signature.
    public var value: Signature { Signature(unchecked: String(entrySignature.dropFirst())) }
    /// The entries' signature, such as `{sv}` (what a writer opens the array with).
    var entryTypeText: String { "{" + entrySignature + "}" }
    /// The whole signature, such as `a{sv}`.
    @usableFromInline var signatureText: String { "a" + entryTypeText }
}

/// One key–value pair of a D-Bus dictionary.
public struct DBusDictionaryEntry: Sendable, Equatable {
    /// The key: a basic type.
    public var key: DBusValue
    /// The value.
    public var value: DBusValue

    /// Creates an entry.
    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension DBusValue {
    /// The value's D-Bus signature, such as `a{sv}`.
    public var signature: Signature { Signature(unchecked: signatureText) }

    var signatureText: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element.rawValue
        case .dictionary(let dictionary): dictionary.signatureText
        case .structure(let fields): "(" + fields.map(\.signatureText).joined() + ")"
        case .variant: "v"
        }
    }

    /// The value inside any number of variants.
    public var unwrappingVariants: DBusValue {
        var value = self
        while case .variant(let inner) = value { value = inner }
        return value
    }
}

extension DBusValue {
    /// A dictionary of `entries` typed `key` → `value`.
    public static func dictionary(key: Signature, value: Signature, _ entries: [DBusDictionaryEntry]) -> DBusValue {
        .dictionary(DBusDictionary(key: key, value: value, entries))
    }

    /// The entries when this is a dictionary.
    public var dictionaryEntries: [DBusDictionaryEntry]? {
        if case .dictionary(let dictionary) = self { dictionary.entries } else { nil }
    }

    /// A string-keyed dictionary of variants (`a{sv}`), the shape of BlueZ's property maps.
    public static func propertyMap(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            key: String.dbusSignature, value: DBusValue.dbusSignature,
            entries.map { DBusDictionaryEntry(.string($0.0), .variant($0.1)) })
    }

    /// An array of strings (`as`).
    public static func strings(_ values: [String]) -> DBusValue {
        .array(element: String.dbusSignature, values.map(DBusValue.string))
    }

    /// An array of bytes (`ay`).
    public static func bytes(_ values: [UInt8]) -> DBusValue {
        .array(element: UInt8.dbusSignature, values.map(DBusValue.byte))
    }
}
