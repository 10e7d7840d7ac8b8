/// A Swift type with a fixed D-Bus type, convertible to and from ``DBusValue``.
///
/// `[String: DBusValue]` maps to `a{sv}` (``DBusValue`` itself stands for a variant),
/// arrays to `a…`, dictionaries to `a{…}`.
public protocol DBusConvertible: Sendable {
    /// The D-Bus signature of every value of this type.
    static var dbusSignature: Signature { get }
    /// Reads a value, throwing ``DBusDecodingError`` when `value` has another type.
    init(dbusValue value: DBusValue) throws
    /// The value in D-Bus form.
    var dbusValue: DBusValue { get }
}

extension DBusValue {
    // Inlinable, as the array conformance below: callers are in other modules, where generic
    // code that is not inlinable runs unspecialised, with metadata look-ups on every call.
    /// Reads this value as `T`, looking through variants when `T` is not itself a variant.
    @inlinable
    public func decode<T: DBusConvertible>(_ type: T.Type = T.self, context: String = "") throws -> T {
        do {
            if T.dbusSignature.rawValue == "v" { return try T(dbusValue: self) }
            return try T(dbusValue: unwrappingVariants)
        } catch var error as DBusDecodingError {
            if error.context.isEmpty { error.context = context }
            throw error
        }
    }
}

@usableFromInline
func mismatch<T: DBusConvertible>(_: T.Type, _ value: DBusValue) -> DBusDecodingError {
    DBusDecodingError(expected: T.dbusSignature.rawValue, found: value.signatureText)
}

extension Bool: DBusConvertible {
    /// The D-Bus signature of `Bool` values.
    public static var dbusSignature: Signature { Signature(unchecked: "b") }
    /// Reads a `Bool`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .boolean(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .boolean(self) }
}

extension UInt8: DBusConvertible {
    /// The D-Bus signature of `UInt8` values.
    public static var dbusSignature: Signature { Signature(unchecked: "y") }
    /// Reads a `UInt8`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .byte(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .byte(self) }
}

extension Int16: DBusConvertible {
    /// The D-Bus signature of `Int16` values.
    public static var dbusSignature: Signature { Signature(unchecked: "n") }
    /// Reads an `Int16`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .int16(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .int16(self) }
}

extension UInt16: DBusConvertible {
    /// The D-Bus signature of `UInt16` values.
    public static var dbusSignature: Signature { Signature(unchecked: "q") }
    /// Reads a `UInt16`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .uint16(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .uint16(self) }
}

extension Int32: DBusConvertible {
    /// The D-Bus signature of `Int32` values.
    public static var dbusSignature: Signature { Signature(unchecked: "i") }
    /// Reads an `Int32`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .int32(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .int32(self) }
}

extension UInt32: DBusConvertible {
    /// The D-Bus signature of `UInt32` values.
    public static var dbusSignature: Signature { Signature(unchecked: "u") }
    /// Reads a `UInt32`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .uint32(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .uint32(self) }
}

extension Int64: DBusConvertible {
    /// The D-Bus signature of `Int64` values.
    public static var dbusSignature: Signature { Signature(unchecked: "x") }
    /// Reads an `Int64`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .int64(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .int64(self) }
}

extension UInt64: DBusConvertible {
    /// The D-Bus signature of `UInt64` values.
    public static var dbusSignature: Signature { Signature(unchecked: "t") }
    /// Reads a `UInt64`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .uint64(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .uint64(self) }
}

extension Double: DBusConvertible {
    /// The D-Bus signature of `Double` values.
    public static var dbusSignature: Signature { Signature(unchecked: "d") }
    /// Reads a `Double`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .double(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .double(self) }
}

extension String: DBusConvertible {
    /// The D-Bus signature of `String` values.
    public static var dbusSignature: Signature { Signature(unchecked: "s") }
    /// Reads a `String`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .string(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .string(self) }
}

extension ObjectPath: DBusConvertible {
    /// The D-Bus signature of `ObjectPath` values.
    public static var dbusSignature: Signature { Signature(unchecked: "o") }
    /// Reads an `ObjectPath`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .objectPath(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .objectPath(self) }
}

extension Signature: DBusConvertible {
    /// The D-Bus signature of `Signature` values.
    public static var dbusSignature: Signature { Signature(unchecked: "g") }
    /// Reads a `Signature`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .signature(let v) = value else { throw mismatch(Self.self, value) }
        self = v
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .signature(self) }
}

extension UnixFileDescriptor: DBusConvertible {
    /// The D-Bus signature of `UnixFileDescriptor` values.
    public static var dbusSignature: Signature { Signature(unchecked: "h") }
    /// Reads a `UnixFileDescriptor`; a value of another D-Bus type throws ``DBusDecodingError``.
    public convenience init(dbusValue value: DBusValue) throws {
        guard case .unixFD(let fd) = value else { throw mismatch(UnixFileDescriptor.self, value) }
        try self.init(duplicating: fd.rawValue)
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .unixFD(self) }
}

extension DBusValue: DBusConvertible {
    /// A bare ``DBusValue`` stands for a variant: `[String: DBusValue]` is `a{sv}`.
    public static var dbusSignature: Signature { Signature(unchecked: "v") }
    /// Reads a `DBusValue`; a value of another D-Bus type throws ``DBusDecodingError``.
    public init(dbusValue value: DBusValue) throws {
        guard case .variant(let inner) = value else { throw mismatch(Self.self, value) }
        self = inner
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .variant(self) }
}

extension Array: DBusConvertible where Element: DBusConvertible {
    /// The D-Bus signature of `Array` values.
    @inlinable
    public static var dbusSignature: Signature { Signature(unchecked: "a" + Element.dbusSignature.rawValue) }
    // Inlinable: a characteristic's `Value` comes through here on every notification, and
    // unspecialised (callers are in other modules) it looked up the metadata of `Array`
    // and its storage each time (about 650 instructions; docs/benchmarks-log.md item 26).
    /// Reads an `Array`; a value of another D-Bus type throws ``DBusDecodingError``.
    @inlinable
    public init(dbusValue value: DBusValue) throws {
        guard case .array(let element, let items) = value, element == Element.dbusSignature else {
            throw mismatch(Self.self, value)
        }
        // A loop, not `map`: should this run unspecialised, `map` reads each item through a
        // coroutine whose frame is a heap allocation (a characteristic's six-byte `Value`
        // cost seven allocations rather than one).
        var elements: [Element] = []
        elements.reserveCapacity(items.count)
        for item in items { elements.append(try Element(dbusValue: item)) }
        self = elements
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue { .array(element: Element.dbusSignature, map(\.dbusValue)) }
}

extension Dictionary: DBusConvertible where Key: DBusConvertible, Value: DBusConvertible {
    /// The D-Bus signature of `Dictionary` values.
    public static var dbusSignature: Signature {
        Signature(unchecked: "a{" + Key.dbusSignature.rawValue + Value.dbusSignature.rawValue + "}")
    }
    // Inlinable for the same reason as `Array`'s: unspecialised in the callers' modules it
    // looked up `Dictionary`'s metadata on every call.
    /// Reads a `Dictionary`; a value of another D-Bus type throws ``DBusDecodingError``.
    @inlinable
    public init(dbusValue value: DBusValue) throws {
        guard case .dictionary(let dictionary) = value, dictionary.signatureText == Self.dbusSignature.rawValue
        else { throw mismatch(Self.self, value) }
        var result: [Key: Value] = [:]
        for entry in dictionary.entries {
            result[try Key(dbusValue: entry.key)] = try Value(dbusValue: entry.value)
        }
        self = result
    }
    /// The value in D-Bus form.
    public var dbusValue: DBusValue {
        .dictionary(
            key: Key.dbusSignature, value: Value.dbusSignature,
            map { DBusDictionaryEntry($0.key.dbusValue, $0.value.dbusValue) })
    }
}
