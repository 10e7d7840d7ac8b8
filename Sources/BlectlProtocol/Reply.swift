/// A reply line: `{"v":1,"id":7,"ok":true,"result":…}` or
/// `{"v":1,"id":7,"ok":false,"error":{"code":"bad_request","message":"…"}}`.
///
/// `Result` is the command's result type; clients decode with the type matching the
/// command they sent. `id` is null when the request's id could not be read.
public struct Reply<Result: Codable & Sendable>: Codable, Sendable {
    /// The protocol version.
    public var v: Int
    /// The request's id.
    public var id: Int?
    /// Whether the command succeeded.
    public var ok: Bool
    /// The result, when `ok`.
    public var result: Result?
    /// The error, when not `ok`.
    public var error: ErrorInfo?

    /// A successful reply.
    public static func success(id: Int?, _ result: Result) -> Reply {
        Reply(v: ProtocolInfo.version, id: id, ok: true, result: result, error: nil)
    }

    /// A failed reply.
    public static func failure(id: Int?, _ error: ErrorInfo) -> Reply {
        Reply(v: ProtocolInfo.version, id: id, ok: false, result: nil, error: error)
    }

    private enum CodingKeys: String, CodingKey { case v, id, ok, result, error }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(v, forKey: .v)
        try container.encode(id, forKey: .id)  // null rather than absent
        try container.encode(ok, forKey: .ok)
        try container.encodeUnlessNil(result, forKey: .result)
        try container.encodeUnlessNil(error, forKey: .error)
    }

    /// The result, or the error as a thrown ``ErrorInfo``.
    public func get() throws(ErrorInfo) -> Result {
        if ok, let result { return result }
        throw error ?? ErrorInfo(.internal, "reply without result or error")
    }
}

extension Reply: Equatable where Result: Equatable {}

/// The result of a command that returns nothing in particular.
public struct Empty: Codable, Equatable, Sendable {
    /// Creates the empty result, `{}`.
    public init() {}
}

/// What a client needs to know about a line from the server before decoding it fully.
public enum ServerLine: Equatable, Sendable {
    /// The greeting.
    case hello(Hello)
    /// A reply to the request with this id (nil for replies to unreadable requests and
    /// for refusals such as `too_many_clients`).
    case reply(id: Int?, ok: Bool)
    /// A pushed event.
    case event(Event)
    /// A line this build does not understand (e.g. an event type from a newer daemon).
    case unknown

    /// Classifies one line.
    public static func classify(_ line: some Collection<UInt8>) -> ServerLine {
        guard let envelope = try? JSONLines.decode(Envelope.self, from: line) else { return .unknown }
        if let ok = envelope.ok { return .reply(id: envelope.id, ok: ok) }
        if envelope.type == "hello" {
            return (try? JSONLines.decode(Hello.self, from: line)).map(ServerLine.hello) ?? .unknown
        }
        return (try? JSONLines.decode(Event.self, from: line)).map(ServerLine.event) ?? .unknown
    }

    private struct Envelope: Decodable {
        var type: String?
        var id: Int?
        var ok: Bool?
    }
}
