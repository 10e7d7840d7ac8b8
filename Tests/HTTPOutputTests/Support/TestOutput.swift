import BlectlProtocol
import HTTPOutput
import HistoryStore
import ReadingHub
import SensorModel
import TestSupport
import ConcurrencySupport
import UnixSupport

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current = Locked(Timestamp(rfc3339: "2026-11-30T12:00:00Z")!)

    var now: Timestamp { current.withLock { $0 } }

    func advance(_ duration: Duration) {
        current.withLock { $0 = Timestamp(millisecondsSince1970: $0.millisecondsSince1970 + duration.milliseconds) }
    }

    var function: @Sendable () -> Timestamp { { [self] in now } }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// A hub with a history store, and the HTTP output on a free loopback port, both on the
/// test clock.
struct TestOutput: Sendable {
    let hub: Hub
    let history: HistoryStore
    let port: UInt16
    let clock: TestClock
    let log: LogRecorder

    /// Applies events to the hub, one clock step apart.
    func apply(_ events: [SensorEvent], every step: Duration = .seconds(5)) async {
        for event in events {
            clock.advance(step)
            await hub.apply(event)
        }
    }

    func get(_ path: String) async throws -> TestResponse {
        try await request(port, path)
    }
}

/// Runs `body` with a started output and always stops it (and removes its directory).
func withTestOutput<T: Sendable>(
    address: String = "127.0.0.1:0",
    configure: (inout HTTPOutput.Configuration) -> Void = { _ in },
    _ body: (TestOutput) async throws -> T
) async throws -> T {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let clock = TestClock()
    let recorder = LogRecorder()
    let log = Log(level: .debug, sink: recorder.sink)
    let history = try HistoryStore.open(path: directory.path, log: log)
    let hub = Hub(lastSeq: history.lastSeq, now: clock.function)
    await hub.attach(history: history)
    var configuration = HTTPOutput.Configuration(address: ListenAddress(address)!)
    configure(&configuration)
    let output = HTTPOutput(configuration: configuration, hub: hub, log: log, now: clock.function)
    let port = try await output.start()
    let fixture = TestOutput(hub: hub, history: history, port: port, clock: clock, log: recorder)
    do {
        let result = try await body(fixture)
        await output.stop()
        await history.close()
        return result
    } catch {
        await output.stop()
        await history.close()
        throw error
    }
}
