import BlectlProtocol
@testable import HTTPOutput
import SensorModel
import TestSupport
import Testing

/// Memory-capable sensors' downloads and clocks on /metrics (docs/http.md), from `status`.
@Suite("Sensor memory on /metrics")
struct MemoryMetricsTests {
    static let downloaded: BluetoothAddress = "A4:C1:38:EE:00:01"
    static let waiting: BluetoothAddress = "A4:C1:38:EE:00:02"

    /// One sensor after a download (40 stored, 2 duplicates, 1 rejected, its clock 3 s behind),
    /// one not visited yet.
    static func sensors() -> [SensorMemoryStatus] {
        var done = SensorMemoryStatus(address: downloaded)
        done.downloads = 2
        done.stored = 40
        done.duplicates = 2
        done.rejected = 1
        done.lastDownload = Timestamp(millisecondsSince1970: 1_764_900_000_500)
        done.lastResult = "finished"
        done.clockDriftSeconds = -3
        return [done, SensorMemoryStatus(address: waiting)]
    }

    @Test("a series per sensor: downloads, the last one's records, when it ended, the clock's drift")
    func metrics() async throws {
        try await withTestOutput { output in
            await output.hub.addStatusContributor { $0.setSection(Self.sensors()) }
            let weather = Measurement(profile: "pvvx", quantities: Quantities([.temperature: 21.5]), raw: "40")
            await output.apply([.reading(Self.downloaded, name: "Cellar", weather)])
            let families = try await parsePrometheus(try await output.get("/metrics").text)
            let cellar = ["address": Self.downloaded.description, "name": "Cellar"]
            let other = ["address": Self.waiting.description, "name": ""]
            let value = { (family: String, labels: [String: String]) in
                families[family]?.samples.first { $0.labels == labels }?.value
            }
            #expect(families["blectl_sensor_memory_downloads"]?.type == "counter")
            #expect(value("blectl_sensor_memory_downloads", cellar) == 2)
            #expect(value("blectl_sensor_memory_downloads", other) == 0)
            #expect(value("blectl_sensor_memory_last_stored", cellar) == 40)
            #expect(value("blectl_sensor_memory_last_duplicates", cellar) == 2)
            #expect(value("blectl_sensor_memory_last_rejected", cellar) == 1)
            #expect(value("blectl_sensor_memory_last_download_timestamp_seconds", cellar) == 1_764_900_000.5)
            #expect(value("blectl_sensor_clock_drift_seconds", cellar) == -3)
            // Not downloaded yet: no time, no drift.
            #expect(value("blectl_sensor_memory_last_download_timestamp_seconds", other) == nil)
            #expect(value("blectl_sensor_clock_drift_seconds", other) == nil)
        }
    }

    @Test("a card shows its sensor's last download: records stored, when, how it ended unless finished")
    func page() async throws {
        try await withTestOutput { output in
            let cut: BluetoothAddress = "A4:C1:38:EE:00:03"
            var disconnected = SensorMemoryStatus(address: cut)
            disconnected.stored = 1
            disconnected.lastDownload = Timestamp(millisecondsSince1970: 1_764_900_000_500)
            disconnected.lastResult = "disconnected"
            let sensors = Self.sensors() + [disconnected]
            await output.hub.addStatusContributor { $0.setSection(sensors) }
            let weather = Measurement(profile: "pvvx", quantities: Quantities([.temperature: 21.5]), raw: "40")
            await output.apply([
                .reading(Self.downloaded, name: "Cellar", weather), .reading(Self.waiting, name: "Attic", weather),
                .reading(cut, name: "Shed", weather),
            ])
            let page = try await output.get("/").text
            #expect(page.contains("<p class=\"memory\" data-stored=\"40\">memory: 40 records stored <time"), "\(page)")
            #expect(page.contains("datetime=\"\(Timestamp(millisecondsSince1970: 1_764_900_000_500).rfc3339)\""))
            #expect(page.contains(">memory: 1 record stored <time"))
            #expect(page.contains("</time>, disconnected</p>"))
            // Not downloaded yet: no line on its card.
            #expect(page.components(separatedBy: "class=\"memory\"").count == 3)
        }
    }

    @Test("sensor_memory off: no family of it")
    func off() async throws {
        try await withTestOutput { output in
            let text = try await output.get("/metrics").text
            #expect(!text.contains("blectl_sensor_memory"))
            #expect(!text.contains("blectl_sensor_clock_drift"))
        }
    }
}
