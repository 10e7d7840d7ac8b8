import BlectlProtocol
import ReadingHub
import SensorModel

/// A scriptable Bluetooth side.
actor FakeCentral: CentralControl {
    var readResult: Result<Measurement, ErrorInfo> = .failure(ErrorInfo(.unavailable, "not scripted"))
    var sightings: [SensorEvent] = []
    weak var hub: Hub?
    private(set) var scans: [Duration] = []
    private(set) var reads: [BluetoothAddress] = []
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
        reads.append(address)
        let measurement = try readResult.get()
        await hub?.apply(.reading(address, name: nil, measurement))
    }
}
