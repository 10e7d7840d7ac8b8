import CBlueZ

/// A validated D-Bus type signature, such as `a{sv}`.
public struct Signature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The signature as text.
    public let rawValue: String

    /// The empty signature (no values).
    public static let empty = Signature(unchecked: "")

    /// Creates a signature, or returns nil when libdbus rejects it (bad syntax,
    /// nesting deeper than the specification's limit of 32, over 255 bytes).
    public init?(_ rawValue: String) {
        guard rawValue.isEmpty || Self.validate(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a signature from a literal; traps on an invalid literal (a programming error).
    public init(stringLiteral value: String) {
        precondition(value.isEmpty || Self.validate(value), "invalid D-Bus signature literal: \(value)")
        self.rawValue = value
    }

    @usableFromInline
    init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The signature as text.
    public var description: String { rawValue }

    /// Whether the signature describes exactly one complete type.
    var isSingleCompleteType: Bool {
        !rawValue.isEmpty && rawValue.withCString { dbus_signature_validate_single($0, nil) } != 0
    }

    private static func validate(_ text: String) -> Bool {
        text.utf8.count <= 255 && !text.utf8.contains(0)
            && text.withCString { dbus_signature_validate($0, nil) } != 0
    }
}
