import BlectlProtocol

/// `blectl status`'s table of sensors whose memory blectld reads.
enum SensorMemoryRows {
    /// The header and one row per sensor: the last download (when, how it ended, what it
    /// brought), the clock's drift and when it was last set.
    static func table(_ sensors: [SensorMemoryStatus]) -> [[String]] {
        [["", "MEMORY OF", "LAST DOWNLOAD", "RESULT", "STORED", "DUPLICATES", "REJECTED", "CLOCK DRIFT", "CLOCK SET"]]
            + sensors.map(row)
    }

    static func row(_ sensor: SensorMemoryStatus) -> [String] {
        [
            "", sensor.address.description,
            sensor.lastDownload.map { Format.age(seconds: Format.secondsSince($0)) } ?? "–",
            sensor.lastResult ?? "–", "\(sensor.stored)", "\(sensor.duplicates)", "\(sensor.rejected)",
            sensor.clockDriftSeconds.map { "\($0 > 0 ? "+" : "")\($0) s" } ?? "–",
            sensor.clockSet.map { Format.age(seconds: Format.secondsSince($0)) }
                ?? (sensor.clockResult.map { $0 == "set" ? "–" : $0 } ?? "–"),
        ]
    }
}
