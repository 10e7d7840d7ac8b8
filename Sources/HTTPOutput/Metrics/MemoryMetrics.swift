import BlectlProtocol
import SensorModel

/// The memory-capable sensors' families of `/metrics` (docs/sensor-memory.md, docs/http.md):
/// a series per sensor in `status`'s `sensor_memory` section, labelled `address` and `name`;
/// none while `sensor_memory = off`.
extension MetricsPage {
    static func writeSensorMemory(
        _ sensors: [SensorMemoryStatus], names: [BluetoothAddress: String], to out: inout PrometheusText
    ) {
        let families: [PrometheusText.Family<SensorMemoryStatus>] = [
            (
                "blectl_sensor_memory_downloads_total", .counter,
                "Downloads of each sensor's memory started since blectld started.", { Double($0.downloads) }
            ),
            (
                "blectl_sensor_memory_last_stored", .gauge, "Records the sensor's last download stored as readings.",
                { Double($0.stored) }
            ),
            (
                "blectl_sensor_memory_last_duplicates", .gauge,
                "Records the sensor's last download dropped: their minute had a reading already.",
                { Double($0.duplicates) }
            ),
            (
                "blectl_sensor_memory_last_rejected", .gauge,
                "Records the sensor's last download rejected: impossible times or values, erased flash.",
                { Double($0.rejected) }
            ),
            (
                "blectl_sensor_memory_last_download_timestamp_seconds", .gauge,
                "When the sensor's last download ended, in seconds since the Unix epoch.",
                { $0.lastDownload.map { Double($0.millisecondsSince1970) / 1000 } }
            ),
            (
                "blectl_sensor_clock_drift_seconds", .gauge,
                "The sensor's clock minus the gateway's, in seconds, as last read.",
                { $0.clockDriftSeconds.map(Double.init) }
            ),
        ]
        out.families(families, of: sensors) { ["address": $0.address.description, "name": names[$0.address] ?? ""] }
    }
}
