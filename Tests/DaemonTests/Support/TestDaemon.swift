import TestSupport
import BlectlProtocol
import SensorModel
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
    var readResult: Result<Measurement, ErrorInfo> = .failure(ErrorInfo(.unavailable, "not scripted"))
    var sightings: [SensorEvent] = []
    weak var hub: Hub?
    private(set) var scans: [Duration] = []
    private(set) var reads: [String] = []
    /// How long a scan takes at most (zero: it returns at once); a real one takes as long
    /// as it was asked to.
    private var scanTakes: Duration = .zero

    func script(read: Result<Measurement, ErrorInfo>, hub: Hub) {
        readResult = read
        self.hub = hub
    }

    func script(scanTakes: Duration) {
        self.scanTakes = scanTakes
    }

    func script(sightings: [SensorEvent], hub: Hub) {
        self.sightings = sightings
        self.hub = hub
    }

    func scan(for duration: Duration) async throws {
        scans.append(duration)
        if scanTakes > .zero { try await Task.sleep(for: min(scanTakes, duration)) }
        for sighting in sightings { await hub?.apply(sighting) }
    }

    /// Reports the scripted measurement to the hub, as the monitor reports a read's value.
    func readNow(address: BluetoothAddress) async throws {
        reads.append(address.description)
        let measurement = try readResult.get()
        await hub?.apply(.reading(address, name: nil, measurement))
    }
}

extension Measurement {
    /// A Fahrenheit value as the reference peripheral sends it.
    static func fahrenheit(_ value: Double) -> Measurement {
        let celsius = ((value - 32) * 5 / 9 * 100).rounded() / 100
        return Measurement(
            profile: "pi-cputemp", quantities: Quantities([.temperature: celsius]), unit: .fahrenheit,
            raw: "\(value) F")
    }

    /// A Celsius value with its text.
    static func celsius(_ value: Double, raw: String? = nil, profile: ProfileID = "pi-cputemp") -> Measurement {
        Measurement(
            profile: profile, quantities: Quantities([.temperature: value]), unit: .celsius, raw: raw ?? "\(value) C")
    }
}

/// Builders for the events a test feeds the hub, with addresses as text.
extension SensorEvent {
    /// A Fahrenheit reading as the reference peripheral sends it.
    static func fahrenheit(_ address: String, _ value: Double, name: String? = "Thermometer") -> SensorEvent {
        .reading(BluetoothAddress(address)!, name: name, .fahrenheit(value))
    }

    /// A value that was not a temperature.
    static func readingError(address: String, detail: String, raw: [UInt8]) -> SensorEvent {
        .readingError(BluetoothAddress(address)!, name: nil, ReadingError(.malformed, raw: raw, detail: detail))
    }

    static func adapterState(adapter: String, state: AdapterState) -> SensorEvent {
        .adapterState(adapter: adapter, state)
    }

    static func peripheralSeen(address: String, name: String?, rssi: Int?, isThermometer: Bool) -> SensorEvent {
        .peripheralSeen(
            Sighting(address: BluetoothAddress(address)!, name: name, rssi: rssi, isThermometer: isThermometer))
    }

    static func peripheralLost(address: String) -> SensorEvent { .peripheralLost(BluetoothAddress(address)!) }

    static func connected(address: String, name: String?) -> SensorEvent {
        .connected(BluetoothAddress(address)!, name: name)
    }

    static func disconnected(address: String, reason: String) -> SensorEvent {
        .disconnected(BluetoothAddress(address)!, reason: reason)
    }
}

extension Reading {
    /// A temperature reading from the Pi's profile.
    init(
        seq: UInt64, time: Timestamp, address: String, name: String?, celsius: Double, raw: String,
        unit: TemperatureUnit, profile: ProfileID = "pi-cputemp"
    ) {
        self.init(
            seq: seq, time: time, address: address, name: name,
            measurement: Measurement(
                profile: profile, quantities: Quantities([.temperature: celsius]), unit: unit, raw: raw))
    }
}

extension Reading {
    var raw: String { measurement.raw }
    var unit: TemperatureUnit { measurement.unit }
}

extension ReadingReport {
    var seq: UInt64 { reading.seq }
    var celsius: Double? { reading.celsius }
    var raw: String { reading.raw }
    var name: String? { reading.name }
}
