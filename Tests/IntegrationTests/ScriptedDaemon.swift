import Foundation
import Glibc
import TestSupport

/// A stand-in for blectld on a Unix socket, answering each command with a scripted result
/// and pushing scripted event lines after `subscribe`: what a newer daemon may send
/// (fields and event types this blectl does not know) without changing the real one.
final class ScriptedDaemon: @unchecked Sendable {
    // @unchecked: `listener` is set in init and only closed in `stop`; each connection is
    // served on its own thread with its own descriptor.
    let socket: String
    private let listener: Int32

    /// Serves on `socket`: `results[cmd]` is the JSON of each reply's result, `events` the
    /// lines pushed after `subscribe`.
    init(socket: String, results: [String: String], events: [String]) throws {
        self.socket = socket
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        let bound = withUnixAddress(socket) { bind(listener, $0, $1) }
        guard bound == 0, listen(listener, 8) == 0 else {
            close(listener)
            throw TestSupportError("cannot listen on \(socket)")
        }
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { Self.serve(client, results: results, events: events) }
            }
        }
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(socket)
    }

    private static func serve(_ client: Int32, results: [String: String], events: [String]) {
        defer { close(client) }
        send(client, #"{"daemon":"blectld","type":"hello","v":1,"version":"9.9.9"}"#)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            buffer += chunk[..<count]
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let request = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                    let command = request["cmd"] as? String, let id = request["id"] as? Int
                else { continue }
                send(client, #"{"v":1,"id":\#(id),"ok":true,"result":\#(results[command] ?? "{}")}"#)
                if command == "subscribe" { events.forEach { send(client, $0) } }
            }
        }
    }

    private static func send(_ client: Int32, _ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
