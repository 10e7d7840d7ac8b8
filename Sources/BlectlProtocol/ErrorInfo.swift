/// A machine-readable error kind in a failed reply.
///
/// An open set: a newer daemon may send codes this build does not know; compare against
/// the constants and fall back to showing `message`.
public struct ErrorCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent on the wire.
    public var rawValue: String

    /// Wraps a code as sent on the wire.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The line was not a JSON object.
    public static let parseError = ErrorCode(rawValue: "parse_error")
    /// A field is missing, has the wrong type, or a value is out of range.
    public static let badRequest = ErrorCode(rawValue: "bad_request")
    /// `cmd` names no known command.
    public static let unknownCommand = ErrorCode(rawValue: "unknown_command")
    /// `v` is not a version this daemon speaks.
    public static let unsupportedVersion = ErrorCode(rawValue: "unsupported_version")
    /// The line exceeded the daemon's maximum length; the connection is closed.
    public static let lineTooLong = ErrorCode(rawValue: "line_too_long")
    /// The daemon serves its maximum number of clients; the connection is closed.
    public static let tooManyClients = ErrorCode(rawValue: "too_many_clients")
    /// The user has its maximum number of requests being answered; the connection stays open.
    public static let tooManyRequests = ErrorCode(rawValue: "too_many_requests")
    /// No peripheral matches the address or name.
    public static let notFound = ErrorCode(rawValue: "not_found")
    /// Nothing arrived in time (no thermometer connected, no value read).
    public static let timeout = ErrorCode(rawValue: "timeout")
    /// The Bluetooth side cannot do it now (no adapter, adapter off, no central).
    public static let unavailable = ErrorCode(rawValue: "unavailable")
    /// The daemon failed in a way that is not the client's fault.
    public static let `internal` = ErrorCode(rawValue: "internal")

    /// Decodes the wire form.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// A readable form, for logs and messages.
    public var description: String { rawValue }
}

/// The `error` object of a failed reply.
public struct ErrorInfo: Codable, Equatable, Sendable, Error, CustomStringConvertible {
    /// What kind of failure.
    public var code: ErrorCode
    /// A sentence for a person.
    public var message: String

    /// Creates an error.
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A readable form, for logs and messages.
    public var description: String { "\(message) (\(code))" }
}
