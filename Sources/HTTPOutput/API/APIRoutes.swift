import BlectlProtocol
import ReadingHub

/// `/api/*`: the socket protocol's replies over HTTP, in the same JSON shapes
/// (`{"v":1,"id":null,"ok":true,"result":…}`, or `"ok":false` with an `error`), with an
/// HTTP status that matches.
///
/// - `/api/status`: the result of `status`;
/// - `/api/devices`: the result of `peripherals`;
/// - `/api/history?device=&since=&from=&until=&limit=`: the result of `history`, with the
///   socket protocol's parameters (`device` is its `address`: an address or a name).
enum APIRoutes {
    static func status(_ snapshot: HubSnapshot) -> HTTPResponse {
        json(Reply.success(id: nil, snapshot.status))
    }

    static func devices(_ snapshot: HubSnapshot) -> HTTPResponse {
        json(Reply.success(id: nil, snapshot.peripherals))
    }

    static func history(_ request: HTTPRequest, hub: Hub) async -> HTTPResponse {
        let query: HistoryQuery
        do throws(ErrorInfo) {
            query = try historyQuery(request.query)
        } catch {
            return failure(error)
        }
        do throws(ErrorInfo) {
            return json(Reply.success(id: nil, try await hub.history(query)))
        } catch {
            return failure(error)
        }
    }

    /// The socket protocol's `history` request made of a query string, and checked by the
    /// protocol's own parser: the same checks and the same messages as on the socket.
    /// `device` is the request's `address`; other arguments keep their names, and unknown
    /// ones are ignored, as unknown fields are on the socket.
    static func historyQuery(_ arguments: [String: String]) throws(ErrorInfo) -> HistoryQuery {
        guard let line = try? JSONLines.encode(HistoryRequestLine(arguments: arguments)) else {
            throw ErrorInfo(.badRequest, "malformed request")
        }
        switch Request.parse(line) {
        case .success(let request):
            guard case .history(let query) = request.command else {
                throw ErrorInfo(.internal, "not a history request")
            }
            return query
        case .failure(let refusal):
            throw refusal.error
        }
    }

    static func failure(_ error: ErrorInfo) -> HTTPResponse {
        var response = json(Reply<Empty>.failure(id: nil, error))
        response.status = httpStatus(error.code)
        return response
    }

    static func httpStatus(_ code: ErrorCode) -> Int {
        switch code {
        case .badRequest, .parseError: 400
        case .notFound: 404
        case .timeout: 504
        case .unavailable: 503
        default: 500
        }
    }

    /// Serves only failures that cannot be encoded, which plain structs never are.
    private static let unencodable = Array(
        #"{"error":{"code":"internal","message":"could not encode the reply"},"id":null,"ok":false,"v":1}"#.utf8)

    private static func json(_ reply: some Encodable) -> HTTPResponse {
        let encoded = try? JSONLines.encode(reply)
        return HTTPResponse(
            status: encoded == nil ? 500 : 200, contentType: "application/json", body: encoded ?? unencodable,
            headers: [(name: "Cache-Control", value: "no-store")])
    }
}

/// A `history` request line with the query string's arguments: numbers where the protocol
/// wants numbers and the text is one, text otherwise (which the parser then refuses).
private struct HistoryRequestLine: Encodable {
    let arguments: [String: String]

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(ProtocolInfo.version, forKey: Key(stringValue: "v"))
        try container.encode("history", forKey: Key(stringValue: "cmd"))
        for (name, value) in arguments {
            switch name {
            case "device":
                if !value.isEmpty { try container.encode(value, forKey: Key(stringValue: "address")) }
            case "since", "limit":
                if let number = UInt64(value) {
                    try container.encode(number, forKey: Key(stringValue: name))
                } else if let number = Int64(value) {
                    try container.encode(number, forKey: Key(stringValue: name))
                } else {
                    try container.encode(value, forKey: Key(stringValue: name))
                }
            case "from", "until":
                try container.encode(value, forKey: Key(stringValue: name))
            default:
                continue
            }
        }
    }
}
