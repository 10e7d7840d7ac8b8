import BlectlProtocol
@testable import Daemon
import UnixSupport

/// A hub and a socket server on a socket in a temporary directory.
struct TestDaemon: Sendable {
    let hub: Hub
    let server: SocketServer
    let socketPath: String
    let log: LogRecorder

    func connect(timeout: Duration = .seconds(10)) async throws -> TestClient {
        let path = socketPath
        return try await offload { try TestClient(path: path, timeout: timeout) }
    }

    /// A new client subscribed to `events`.
    func subscriber(to events: Set<EventType>? = [.reading]) async throws -> TestClient {
        let client = try await connect()
        try await offload {
            try client.expectHello()
            _ = try client.call(.subscribe(events: events), as: SubscribeResult.self)
        }
        return client
    }

    /// `status` asked on a new connection: the daemon is alive and serving.
    func freshStatus() async throws -> StatusResult {
        let client = try await connect()
        return try await offload {
            try client.expectHello()
            return try client.call(.status, as: StatusResult.self)
        }
    }
}

/// Runs `body` with a started daemon and always stops it (and removes its directory),
/// whether `body` returns or throws.
func withTestDaemon<T: Sendable>(
    limits: Hub.Limits = Hub.Limits(),
    central: (any CentralControl)? = nil,
    configure: (inout SocketServer.Configuration) -> Void = { _ in },
    _ body: (TestDaemon) async throws -> T
) async throws -> T {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    var configuration = SocketServer.Configuration(path: directory.file("blectld.sock"))
    configure(&configuration)
    let recorder = LogRecorder()
    let hub = Hub(limits: limits, central: central)
    let server = SocketServer(
        configuration: configuration, handler: RequestDispatcher(hub: hub), log: Log(level: .debug, sink: recorder.sink)
    )
    let service = DaemonService(hub: hub, server: server)
    try await service.start()
    let daemon = TestDaemon(hub: hub, server: server, socketPath: configuration.path, log: recorder)
    do {
        let result = try await body(daemon)
        await service.stop()
        return result
    } catch {
        await service.stop()
        throw error
    }
}

/// A scriptable Bluetooth side.
actor FakeCentral: CentralControl {
    var readResult: Result<TemperatureSample, ErrorInfo> = .failure(ErrorInfo(.unavailable, "not scripted"))
    var sightings: [DaemonEvent] = []
    weak var hub: Hub?
    private(set) var scans: [Duration] = []
    private(set) var reads: [String] = []
    /// How long a scan takes, as a real one does (zero: it returns at once).
    private var scanTakes: Duration = .zero

    func script(read: Result<TemperatureSample, ErrorInfo>) {
        readResult = read
    }

    func script(scanTakes: Duration) {
        self.scanTakes = scanTakes
    }

    func script(sightings: [DaemonEvent], hub: Hub) {
        self.sightings = sightings
        self.hub = hub
    }

    func scan(for duration: Duration) async throws {
        scans.append(duration)
        if scanTakes > .zero { try await Task.sleep(for: scanTakes) }
        for sighting in sightings { await hub?.apply(sighting) }
    }

    func readNow(address: String) async throws -> TemperatureSample {
        reads.append(address)
        return try readResult.get()
    }
}

extension DaemonEvent {
    /// A Fahrenheit reading as the reference peripheral sends it.
    static func fahrenheit(_ address: String, _ value: Double, name: String? = "Thermometer") -> DaemonEvent {
        .reading(
            address: address, name: name,
            sample: TemperatureSample(celsius: (value - 32) * 5 / 9, raw: "\(value) F", unit: .fahrenheit))
    }
}
