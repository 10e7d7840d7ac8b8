/// A GET or HEAD request as the routes see it: the path and the query's arguments.
struct HTTPRequest: Sendable, Equatable {
    /// The path without the query, percent-decoded (`/api/history`).
    var path: String
    /// The query's arguments, percent-decoded; an argument given twice keeps its last value.
    var query: [String: String]

    init(path: String, query: [String: String] = [:]) {
        self.path = path
        self.query = query
    }
}

/// A complete response: status, type, extra headers and the body.
struct HTTPResponse: Sendable {
    /// The status code.
    var status: Int
    /// The `Content-Type`.
    var contentType: String
    /// The body (left out by the server for HEAD requests).
    var body: [UInt8]
    /// Headers besides `Content-Type` (and those the server adds).
    var headers: [(name: String, value: String)] = []

    init(status: Int = 200, contentType: String, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// Plain text for a person (errors, refusals).
    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
    }

    /// A method other than GET or HEAD: the output changes nothing.
    static let methodNotAllowed: HTTPResponse = {
        var response = text(405, "only GET and HEAD are served: the HTTP output is read-only")
        response.headers.append((name: "Allow", value: "GET, HEAD"))
        return response
    }()
}
