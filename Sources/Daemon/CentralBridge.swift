import BlectlProtocol
public import Central
public import UnixSupport

/// Connects the BLE side to the hub: thermometer events become hub events, in
/// order, and the hub's scan and read requests go to the monitor.
public final class CentralBridge: CentralControl {
    private let monitor: ThermometerMonitor
    private let log: Log

    /// Creates the monitor over `central` and starts forwarding its events to `hub`.
    ///
    /// Events are applied on the hub's event loop in the order the monitor reported
    /// them; when the hub shares the central's executor (as in blectld) that is the
    /// thread the monitor reports on, so a reading reaches the hub without a hop.
    public init(
        hub: Hub, central: CentralManager, configuration: ThermometerConfiguration, log: Log
    ) {
        self.log = log
        monitor = ThermometerMonitor(central: central, configuration: configuration) { [hub, log] event in
            guard let translated = Self.translate(event, log: log) else { return }
            // On the hub's loop already (blectld): apply now. Every event comes this one
            // way, so the order holds either way.
            if hub.executor.isCurrent {
                hub.assumeIsolated(passing: translated) { $0.apply($1) }
            } else {
                hub.executor.execute { hub.assumeIsolated { $0.apply(translated) } }
            }
        }
    }

    /// Starts the monitor: scanning and connecting begin.
    public func start() async { await monitor.start() }

    /// Unsubscribes, disconnects and stops scanning.
    public func shutdown() async {
        await monitor.shutdown()
    }

    /// Scans for `duration` (a `scan` request), on top of the monitor's own windows.
    public func scan(for duration: Duration) async throws {
        await monitor.scan(for: duration)
    }

    /// Reads the thermometer at `address` now (a `read` request), returning its sample.
    public func readNow(address: String) async throws -> TemperatureSample {
        guard let parsed = BluetoothAddress(address) else {
            throw ErrorInfo(.badRequest, "not a Bluetooth address: \(address)")
        }
        do {
            return Self.sample(try await monitor.readNow(parsed))
        } catch {
            throw ErrorInfo(.unavailable, "\(error)")
        }
    }

    // MARK: Translation

    static func translate(_ event: ThermometerEvent, log: Log) -> DaemonEvent? {
        switch event {
        case .adapterState(let adapter, let state):
            log.notice("adapter \(adapter ?? "-"): \(state.rawValue)")
            return .adapterState(adapter: adapter ?? "", state: AdapterState(rawValue: state.rawValue) ?? .unknown)
        case .peripheralSeen(let address, let name, let rssi, let isThermometer):
            return .peripheralSeen(
                address: address.description, name: name, rssi: rssi.map(Int.init), isThermometer: isThermometer)
        case .peripheralLost(let address):
            return .peripheralLost(address: address.description)
        case .connected(let address, let name):
            log.notice("connected to \(name ?? "thermometer") \(address)")
            return .connected(address: address.description, name: name)
        case .disconnected(let address, let reason):
            log.notice("lost \(address): \(reason)")
            return .disconnected(address: address.description, reason: reason)
        case .reading(let address, let name, let reading):
            return .reading(address: address.description, name: name, sample: sample(reading))
        case .readingError(let address, _, let error):
            log.warning("bad value from \(address): \(error)")
            return .readingError(address: address.description, message: "\(error)", raw: error.raw)
        case .log(let level, let message):
            log.log(LogLevel(rawValue: level) ?? .info, message)
            return nil
        }
    }

    static func sample(_ reading: TemperatureReading) -> TemperatureSample {
        TemperatureSample(
            celsius: reading.celsius, raw: reading.rawText ?? reading.raw.map { hex($0) }.joined(),
            unit: reading.unit == .fahrenheit ? .fahrenheit : .celsius)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
