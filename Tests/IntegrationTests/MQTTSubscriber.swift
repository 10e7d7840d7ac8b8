import Foundation
import Synchronization
import TestSupport

/// One message a subscriber received.
struct MQTTMessage: Sendable {
    let topic: String
    let payload: String
    let retained: Bool

    /// The payload as a JSON object, if it is one.
    var json: [String: Any]? { ChildProcessLines.parse(payload) }
    /// The `seq` of a state or error payload.
    var seq: UInt64? { (json?["seq"] as? NSNumber)?.uint64Value }
}

/// `mosquitto_sub` on `#`, keeping every message; stopped by ``stop()``.
final class MQTTSubscriber: Sendable {
    private let process: ChildProcess
    private let messages = Mutex<[MQTTMessage]>([])

    /// Subscribes to `topic` on `broker`; `session` names a persistent session (QoS 1), so
    /// messages published while the broker restarts are kept for it.
    init(_ broker: MQTTBroker, topic: String = "#", session: String? = nil, extra: [String] = []) throws {
        var arguments = ["-h", broker.tls ? "localhost" : "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-F", "%j"]
        if let session { arguments += ["-c", "-i", session, "-q", "1"] }
        if broker.tls { arguments += ["--cafile", broker.file("ca.pem")] }
        process = try ChildProcess.start(
            "/usr/bin/mosquitto_sub", arguments + extra,
            logFile: broker.directory.appendingPathComponent("sub-\(UUID().uuidString.prefix(6)).log"),
            captureStdout: true)
        let lines = process.stdoutLines
        Task { [self] in
            for await line in lines {
                guard let object = ChildProcessLines.parse(line), let topic = object["topic"] as? String else {
                    continue
                }
                let message = MQTTMessage(
                    topic: topic, payload: object["payload"] as? String ?? "",
                    retained: (object["retain"] as? NSNumber)?.intValue == 1)
                messages.withLock { $0.append(message) }
            }
        }
    }

    /// Every message so far.
    var received: [MQTTMessage] { messages.withLock { $0 } }

    /// Messages on `topic` so far.
    func on(_ topic: String) -> [MQTTMessage] { received.filter { $0.topic == topic } }

    /// Waits until `condition` holds for the messages received.
    func wait(
        within timeout: Duration = .seconds(30), _ what: String, until condition: @escaping ([MQTTMessage]) -> Bool
    ) async throws {
        guard await eventually(within: timeout, { condition(self.received) }) else {
            let topics = received.suffix(20).map { "\($0.topic) \($0.payload)" }.joined(separator: "\n")
            throw TestSupportError("no \(what) within \(timeout); last messages:\n\(topics)")
        }
    }

    func stop() async { await process.stop() }
}

/// Publishes one message with mosquitto_pub.
func mqttPublish(_ broker: MQTTBroker, topic: String, message: String) async throws {
    let result = try await run(
        "/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-m", message, "-q", "1"])
    guard result.status == 0 else { throw TestSupportError("mosquitto_pub: \(result.errors)") }
}
