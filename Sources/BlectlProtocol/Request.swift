public import SensorModel

/// A command a client asks the daemon to carry out, with its parameters.
public enum Command: Equatable, Sendable {
    /// Daemon and adapter state, connected thermometers.
    case status
    /// The peripheral table: everything seen recently, and what is connected.
    case peripherals
    /// A current temperature from each connected thermometer matching `address` (an
    /// address or a name; all when nil), waiting up to `timeout` seconds for one to connect.
    case read(address: String?, timeout: Double?)
    /// Stored readings and reading errors, oldest first: those the query selects.
    case history(HistoryQuery)
    /// Starts pushing events of the given types (all when nil) on this connection.
    case subscribe(events: Set<EventType>?)
    /// Scans for `timeout` seconds, then returns the peripherals seen.
    case scan(timeout: Double?)
    /// Reads the memory of the sensor at `address` now, waiting up to `timeout` seconds for
    /// the download to end (docs/sensor-memory.md).
    case memoryDownload(address: BluetoothAddress, timeout: Double?)

    /// The `cmd` string on the wire.
    public var name: String {
        switch self {
        case .status: "status"
        case .peripherals: "peripherals"
        case .read: "read"
        case .history: "history"
        case .subscribe: "subscribe"
        case .scan: "scan"
        case .memoryDownload: "memory_download"
        }
    }
}

/// One request line: `{"v":1,"id":7,"cmd":"read","address":"DC:A6:32:01:02:03"}`.
///
/// Parameters sit beside `cmd` at the top level. `id` is chosen by the client and echoed
/// in the reply; it may be omitted, and the reply then carries `"id":null`.
public struct Request: Equatable, Sendable, Encodable {
    /// The client's correlation id.
    public var id: Int?
    /// What to do.
    public var command: Command

    /// Creates a request.
    public init(id: Int?, _ command: Command) {
        self.id = id
        self.command = command
    }

    private enum Key: String, CodingKey {
        case v, id, cmd, address, since, from, until, limit, events, timeout
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(ProtocolInfo.version, forKey: .v)
        try container.encode(id, forKey: .id)
        try container.encode(command.name, forKey: .cmd)
        switch command {
        case .status, .peripherals:
            break
        case .read(let address, let timeout):
            try container.encodeUnlessNil(address, forKey: .address)
            try container.encodeUnlessNil(timeout, forKey: .timeout)
        case .history(let query):
            try container.encodeUnlessNil(query.selector ?? query.address?.description, forKey: .address)
            try container.encode(query.since, forKey: .since)
            try container.encodeUnlessNil(query.from, forKey: .from)
            try container.encodeUnlessNil(query.until, forKey: .until)
            try container.encodeUnlessNil(query.limit, forKey: .limit)
        case .subscribe(let events):
            try container.encodeUnlessNil(events.map { $0.map(\.rawValue).sorted() }, forKey: .events)
        case .scan(let timeout):
            try container.encodeUnlessNil(timeout, forKey: .timeout)
        case .memoryDownload(let address, let timeout):
            try container.encode(address, forKey: .address)
            try container.encodeUnlessNil(timeout, forKey: .timeout)
        }
    }
}

/// Why a request line was refused, with the id to answer to when it could be read.
public struct RequestError: Error, Equatable, Sendable {
    /// The request's id, if the line was JSON with an integer `id`.
    public var id: Int?
    /// The error to reply with.
    public var error: ErrorInfo

    /// Creates an error.
    public init(id: Int?, _ code: ErrorCode, _ message: String) {
        self.id = id
        self.error = ErrorInfo(code, message)
    }
}

extension Request {
    /// Parses one request line, telling apart garbage (`parse_error`), a wrong field
    /// (`bad_request`), a wrong version and an unknown command.
    public static func parse(_ line: some Collection<UInt8>) -> Result<Request, RequestError> {
        guard let envelope = try? JSONLines.decode(Envelope.self, from: line) else {
            return .failure(RequestError(id: nil, .parseError, "not a JSON object"))
        }
        let id = envelope.id
        guard let version = envelope.v else {
            return .failure(RequestError(id: id, .badRequest, "missing \"v\" (protocol version)"))
        }
        guard version == ProtocolInfo.version else {
            return .failure(
                RequestError(id: id, .unsupportedVersion, "protocol version \(version) is not supported; use 1"))
        }
        let fields: Fields
        do {
            fields = try JSONLines.decode(Fields.self, from: line)
        } catch {
            return .failure(RequestError(id: id, .badRequest, Self.describe(error)))
        }
        return fields.command().map { Request(id: id, $0) }.mapError { RequestError(id: id, $0.code, $0.message) }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "malformed request" }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let field = context.codingPath.map(\.stringValue).first ?? "request"
            return "invalid value for \"\(field)\""
        case .keyNotFound(let key, _):
            return "missing \"\(key.stringValue)\""
        @unknown default:
            return "malformed request"
        }
    }

    /// The fields needed to answer even a broken request; decoding fails only when the
    /// line is not a JSON object.
    private struct Envelope: Decodable {
        var v: Int?
        var id: Int?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            v = (try? container.decodeIfPresent(Int.self, forKey: .v)) ?? nil
            id = (try? container.decodeIfPresent(Int.self, forKey: .id)) ?? nil
        }
    }

    /// Every field with its wire type, before the per-command checks.
    private struct Fields: Decodable {
        var id: Int?
        var cmd: String?
        var address: String?
        var since: UInt64?
        var from: Timestamp?
        var until: Timestamp?
        var limit: Int?
        var events: [String]?
        var timeout: Double?

        func command() -> Result<Command, ErrorInfo> {
            guard let cmd else { return .failure(ErrorInfo(.badRequest, "missing \"cmd\"")) }
            if let timeout, !(timeout.isFinite && timeout >= 0) {
                return .failure(ErrorInfo(.badRequest, "\"timeout\" must be a non-negative number of seconds"))
            }
            if let limit, limit < 1 {
                return .failure(ErrorInfo(.badRequest, "\"limit\" must be at least 1"))
            }
            switch cmd {
            case "status": return .success(.status)
            case "peripherals": return .success(.peripherals)
            case "read": return .success(.read(address: address, timeout: timeout))
            case "scan": return .success(.scan(timeout: timeout))
            case "history":
                guard since != nil || from != nil else {
                    return .failure(ErrorInfo(.badRequest, "\"history\" needs \"since\" or \"from\""))
                }
                if let from, let until, until < from {
                    return .failure(ErrorInfo(.badRequest, "\"until\" is before \"from\""))
                }
                return .success(
                    .history(HistoryQuery(selector: address, since: since ?? 0, from: from, until: until, limit: limit))
                )
            case "subscribe":
                return EventType.parse(events).map { .subscribe(events: $0) }
            case "memory_download":
                guard let text = address else {
                    return .failure(ErrorInfo(.badRequest, "\"memory_download\" needs \"address\""))
                }
                guard let sensor = BluetoothAddress(text) else {
                    return .failure(ErrorInfo(.badRequest, "\"\(text)\" is not a Bluetooth address"))
                }
                return .success(.memoryDownload(address: sensor, timeout: timeout))
            default:
                return .failure(ErrorInfo(.unknownCommand, "unknown command \"\(cmd)\""))
            }
        }
    }
}
