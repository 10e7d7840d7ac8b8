import Foundation
import TestSupport

/// One message as `dbus-monitor` prints its header.
struct MonitorEvent: Sendable, Equatable {
    var kind: String
    var sender: String
    var destination: String
    var serial: UInt32?
    var replySerial: UInt32?
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
}

/// `dbus-monitor` on the test bus: the exact order in which the bus passed messages on,
/// replies included — the same tool that recorded the real BlueZ trace.
final class BusMonitor: Sendable {
    private let process: ChildProcess
    private let events = Guarded<[MonitorEvent]>([])

    private init(process: ChildProcess) { self.process = process }

    /// Starts monitoring and returns once the monitor is attached.
    static func start(address: String, logDirectory: URL) async throws -> BusMonitor {
        let process = try ChildProcess.start(
            "/usr/bin/dbus-monitor", ["--address", address, "--monitor"],
            logFile: logDirectory.appendingPathComponent("dbus-monitor.err"), captureStdout: true)
        let monitor = BusMonitor(process: process)
        let lines = process.stdoutLines
        Task {
            for await line in lines { monitor.feed(line) }
        }
        // dbus-monitor sees its own NameAcquired/NameLost once it is a monitor.
        let clock = ContinuousClock()
        let deadline = clock.now + Duration.seconds(5).scaled
        while monitor.events.withLock({ $0.isEmpty }) {
            guard clock.now < deadline else {
                await process.stop()
                throw TestSupportError("dbus-monitor printed nothing: \(process.log())")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return monitor
    }

    func stop() async { await process.stop() }

    var all: [MonitorEvent] { events.withLock { $0 } }

    private func feed(_ line: String) {
        let kinds = ["method call", "method return", "signal", "error"]
        guard let kind = kinds.first(where: { line.hasPrefix($0 + " ") }) else { return }
        var event = MonitorEvent(kind: kind, sender: "", destination: "")
        let header = line.dropFirst(kind.count).replacingOccurrences(of: "(null destination)", with: "(null)")
        for token in header.split(separator: " ") {
            let parts = token.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let value = parts[1].hasSuffix(";") ? String(parts[1].dropLast()) : parts[1]
            switch parts[0] {
            case "sender": event.sender = value
            case "destination": event.destination = value
            case "serial": event.serial = UInt32(value)
            case "reply_serial": event.replySerial = UInt32(value)
            case "path": event.path = value
            case "interface": event.interface = value
            case "member": event.member = value
            case "error_name": event.errorName = value
            default: break
            }
        }
        events.withLock { $0.append(event) }
    }
}
