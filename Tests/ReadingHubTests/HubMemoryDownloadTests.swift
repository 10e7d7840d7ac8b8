import BlectlProtocol
import ReadingHub
import SensorModel
import Synchronization
import TestSupport
import Testing

/// A sensor memory service that answers from a script: an entry after `delay`, or an error.
final class FakeSensorMemory: SensorMemoryControl {
    let delay: Duration
    let error: ErrorInfo?
    private let asked = Mutex<[BluetoothAddress]>([])

    init(delay: Duration = .zero, error: ErrorInfo? = nil) {
        self.delay = delay
        self.error = error
    }

    var requests: [BluetoothAddress] { asked.withLock { $0 } }

    func downloadNow(_ address: BluetoothAddress) async throws(ErrorInfo) -> SensorMemoryStatus {
        asked.withLock { $0.append(address) }
        try? await Task.sleep(for: delay)
        if let error { throw error }
        var entry = SensorMemoryStatus(address: address)
        entry.downloads = 1
        entry.stored = 42
        entry.lastResult = "finished"
        return entry
    }
}

/// `memory_download` as the hub routes it: to the service, bounded by the request's timeout.
@Suite("Hub memory downloads")
struct HubMemoryDownloadTests {
    let sensor: BluetoothAddress = "A4:C1:38:EE:00:01"

    @Test("without a service the reply is unavailable, naming why")
    func unavailable() async {
        let hub = Hub()
        await #expect(throws: ErrorInfo(.unavailable, "the daemon reads no sensor memory")) {
            try await hub.downloadMemory(of: sensor, timeout: nil)
        }
        await hub.sensorMemoryUnavailable(because: "sensor memory is off (sensor_memory = off)")
        await #expect(throws: ErrorInfo(.unavailable, "sensor memory is off (sensor_memory = off)")) {
            try await hub.downloadMemory(of: sensor, timeout: nil)
        }
    }

    @Test("the service's entry is the reply, its errors are passed on")
    func routed() async throws {
        let hub = Hub()
        let memory = FakeSensorMemory()
        await hub.attach(memory: memory)
        // The fake answers at once; a loaded run is slow to pass it on.
        let entry = try await hub.downloadMemory(of: sensor, timeout: .seconds(60))
        #expect(entry.address == sensor && entry.stored == 42 && entry.lastResult == "finished")
        #expect(memory.requests == [sensor])

        let unknown = ErrorInfo(.notFound, "no memory-capable sensor")
        await hub.attach(memory: FakeSensorMemory(error: unknown))
        await #expect(throws: unknown) { try await hub.downloadMemory(of: sensor, timeout: .seconds(60)) }
    }

    @Test("a download that outlasts the timeout is a timeout reply, sent at the timeout")
    func timeout() async throws {
        let hub = Hub()
        await hub.attach(memory: FakeSensorMemory(delay: .seconds(60)))
        let started = ContinuousClock.now
        do {
            let entry = try await hub.downloadMemory(of: sensor, timeout: .milliseconds(200))
            Issue.record("a reply before the download ended: \(entry)")
        } catch {
            #expect(error.code == .timeout, "\(error)")
        }
        // Well before the download's end, on a loaded machine too.
        #expect(ContinuousClock.now - started < Duration.seconds(30).scaled)
    }
}
