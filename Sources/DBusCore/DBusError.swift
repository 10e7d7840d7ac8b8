/// An error that carries a D-Bus error name and message.
///
/// Replies of type `error` from a peer become this error, as do the errors
/// libdbus synthesises locally (`org.freedesktop.DBus.Error.NoReply` for a
/// deadline, `…Disconnected` when the connection drops). Method handlers throw
/// it to send a specific error reply.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error name, such as `org.bluez.Error.InProgress`.
    public var name: String
    /// The human-readable message; empty when the peer sent none.
    public var message: String

    /// Creates an error with a D-Bus error name and a message.
    public init(name: String, message: String = "") {
        self.name = name
        self.message = message
    }

    /// The error name, then the message if there is one.
    public var description: String { message.isEmpty ? name : "\(name): \(message)" }
}

extension DBusError {
    /// Well-known error names of the freedesktop D-Bus specification.
    public enum Name {
        /// `org.freedesktop.DBus.Error.Failed`.
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        /// `org.freedesktop.DBus.Error.NoReply`.
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        /// `org.freedesktop.DBus.Error.Timeout`.
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        /// `org.freedesktop.DBus.Error.Disconnected`.
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        /// `org.freedesktop.DBus.Error.UnknownMethod`.
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        /// `org.freedesktop.DBus.Error.UnknownObject`.
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        /// `org.freedesktop.DBus.Error.PropertyReadOnly`.
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        /// `org.freedesktop.DBus.Error.InvalidArgs`.
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        /// `org.freedesktop.DBus.Error.AccessDenied`.
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        /// `org.freedesktop.DBus.Error.ServiceUnknown`.
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        /// `org.freedesktop.DBus.Error.NameHasNoOwner`.
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// `org.freedesktop.DBus.Error.NoMemory`.
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
        /// `org.freedesktop.DBus.Error.LimitsExceeded`: dbus-daemon's limit of pending
        /// replies per connection, or our own budget of outstanding calls.
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
    }

    /// No place in the budget of outstanding calls came in time: the call was not sent.
    static func noPlace(in budget: CallBudget) -> DBusError {
        DBusError(
            name: Name.limitsExceeded,
            message: "not sent: \(budget.outstanding) calls awaiting replies (budget \(budget.limit)), "
                + "\(budget.waiting) waiting")
    }

    /// The connection is closed or was never opened.
    public static func disconnected(_ detail: String = "the connection is closed") -> DBusError {
        DBusError(name: Name.disconnected, message: detail)
    }

    /// Whether the call failed because no reply came in time.
    public var isTimeout: Bool { name == Name.noReply || name == Name.timeout }
}

/// A value that could not be read as the type the caller asked for.
///
/// Decoding never traps: a reply with an unexpected signature, a missing
/// argument or an out-of-range value becomes this error.
public struct DBusDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the caller expected, as a D-Bus signature or a Swift type name.
    public var expected: String
    /// What was found, as a D-Bus signature (empty when the value was missing).
    public var found: String
    /// Where the mismatch is, such as `argument 0` or `property "RSSI"`.
    public var context: String

    /// Creates a decoding error.
    public init(expected: String, found: String, context: String = "") {
        self.expected = expected
        self.found = found
        self.context = context
    }

    /// What was expected, what was found, and where.
    public var description: String {
        let place = context.isEmpty ? "" : " (\(context))"
        let got = found.isEmpty ? "nothing" : "'\(found)'"
        return "expected '\(expected)' but found \(got)\(place)"
    }
}

/// A value that cannot be sent: an invalid name, path or signature, an array
/// whose elements disagree with its element type, or a value over the limits of
/// the D-Bus specification (nesting, array and message size).
public struct DBusEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the value cannot be sent.
    public var reason: String

    /// Creates an encoding error.
    public init(_ reason: String) { self.reason = reason }

    /// Why the value cannot be encoded.
    public var description: String { reason }
}
