import BlectlProtocol

extension FuzzTarget {
    /// One line of the socket protocol, read as the daemon reads a request and as blectl
    /// reads what the daemon sends.
    static let protocolLines = FuzzTarget(
        name: "protocol", summary: "a JSON line: Request.parse (blectld) and ServerLine/Event/Reply decoding (blectl)"
    ) { line in
        var accepted = false
        switch Request.parse(line) {
        case .success(let request):
            // What blectld accepts, blectl can send: the request encodes back to itself.
            let encoded = try? JSONLines.encode(request)
            require(encoded.map(Request.parse) == .success(request), "request \(request) does not round-trip")
            accepted = true
        case .failure(let refusal):
            require(!refusal.error.message.isEmpty, "a refusal without a message")
        }
        let serverLine = ServerLine.classify(line)
        if case .event(let event) = serverLine {
            // An event blectl decodes re-encodes to one that decodes to the same event.
            let again = (try? JSONLines.encode(event)).flatMap { try? JSONLines.decode(Event.self, from: $0) }
            require(again == event, "event \(event) does not round-trip")
        }
        _ = try? JSONLines.decode(Reply<StatusResult>.self, from: line)
        _ = try? JSONLines.decode(Reply<[ReadingReport]>.self, from: line)
        _ = try? JSONLines.decode(Reply<[PeripheralInfo]>.self, from: line)
        _ = try? JSONLines.decode(Reply<HistoryResult>.self, from: line)
        _ = try? JSONLines.decode(Reply<SubscribeResult>.self, from: line)
        return accepted || serverLine != .unknown
    }
}
