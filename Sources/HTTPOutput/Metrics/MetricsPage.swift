import BlectlProtocol
import SensorModel

/// `/metrics`: the snapshot in Prometheus names and base units.
///
/// Per-device gauges (temperature, humidity, battery, pressure, RSSI) list only devices
/// whose newest reading is current (``TrackedDevice/isStale(at:)``): a stale value is not
/// reported as if it were measured now. `blectl_last_reading_timestamp_seconds` stays for
/// every device with a reading, so that an alert can see how old it is. Counters count the
/// events the output received since blectld started.
enum MetricsPage {
    static func render(_ snapshot: HubSnapshot, process: ProcessMetrics?) -> String {
        var out = PrometheusText()
        let devices = snapshot.devices
        let current = devices.filter { !$0.isStale }
        writeQuantities(current, to: &out)
        out.family("blectl_rssi_dbm", .gauge, help: "Signal strength of each current device when last seen, in dBm.")
        for device in current {
            guard let rssi = device.peripheral?.rssi else { continue }
            out.sample(
                "blectl_rssi_dbm", ["address": device.address.description, "name": device.name ?? ""], Double(rssi))
        }
        out.family(
            "blectl_last_reading_timestamp_seconds", .gauge,
            help: "When each device's newest reading arrived, in seconds since the Unix epoch.")
        for device in devices {
            guard let reading = device.latest else { continue }
            out.sample(
                "blectl_last_reading_timestamp_seconds", identity(device),
                Double(reading.time.millisecondsSince1970) / 1000)
        }
        writeCounters(snapshot.tracked, to: &out)
        writeDaemon(snapshot.status, to: &out)
        writeSections(snapshot, devices: devices, to: &out)
        if let process {
            out.single(
                "process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.", process.residentBytes)
            out.single(
                "process_cpu_seconds_total", .counter, help: "Total user and system CPU time spent in seconds.",
                process.cpuSeconds)
        }
        return out.text
    }

    private static func identity(_ device: DeviceView) -> KeyValuePairs<String, String> {
        ["address": device.address.description, "name": device.name ?? ""]
    }

    /// One family per quantity, in base units: ratios for percentages, pascals for hPa (each
    /// with the power of ten that converts to it).
    private static func writeQuantities(_ devices: [DeviceView], to out: inout PrometheusText) {
        let families = Quantity.allCases.compactMap { quantity in
            family(of: quantity).map { (quantity, $0.name, $0.help, $0.exponent) }
        }
        for (quantity, name, help, exponent) in families {
            out.family(name, .gauge, help: help)
            // A device with several probes: a sample per probe, told apart by a `probe` label.
            for device in devices {
                for reading in device.currentReadings {
                    guard let measured = reading.measurement.quantities[quantity] else { continue }
                    let address = device.address.description
                    let (deviceName, profile) = (device.name ?? "", reading.measurement.profile.rawValue)
                    let value = shifted(measured, by: exponent)
                    if let probe = reading.measurement.probe {
                        out.sample(
                            name, ["address": address, "name": deviceName, "profile": profile, "probe": "\(probe)"],
                            value)
                    } else {
                        out.sample(name, ["address": address, "name": deviceName, "profile": profile], value)
                    }
                }
            }
        }
    }

    /// The family of `quantity`: its name, help and the power of ten to its base unit; nil for
    /// the battery's voltage, which /metrics leaves out (the charge is the family people plot).
    private static func family(of quantity: Quantity) -> (name: String, help: String, exponent: Int)? {
        switch quantity {
        case .temperature: ("blectl_temperature_celsius", "Newest temperature of each current device, in °C.", 0)
        case .humidity: ("blectl_humidity_ratio", "Newest relative humidity of each current device, 0 to 1.", -2)
        case .battery: ("blectl_battery_ratio", "Newest battery charge of each current device, 0 to 1.", -2)
        case .pressure: ("blectl_pressure_pascals", "Newest air pressure of each current device, in pascals.", 2)
        case .voltage: nil
        case .co2: ("blectl_co2_ppm", "Newest carbon dioxide concentration of each current device, in ppm.", 0)
        case .dewPoint: ("blectl_dew_point_celsius", "Newest dew point of each current device, in °C.", 0)
        }
    }

    /// `value` times 10^`exponent`, the decimal point moved in its shortest text: the
    /// decimal meant, printed as such (47.1 % is 0.471; 47.1 × 0.01 is 0.47100000000000003).
    static func shifted(_ value: Double, by exponent: Int) -> Double {
        guard value.isFinite, exponent != 0 else { return value }
        let text = value.description  // shortest round-trip: "47.1", "1e-05", "1.5e+20"
        let parts = text.split(separator: "e", maxSplits: 1)
        let power = (parts.count == 2 ? Int(parts[1]) ?? 0 : 0) + exponent
        return Double("\(parts[0])e\(power)") ?? value
    }

    private static func writeCounters(_ tracked: [TrackedDevice], to out: inout PrometheusText) {
        let devices = tracked.sorted { $0.address < $1.address }
        let counters: [(String, String, (TrackedDevice) -> UInt64)] = [
            ("blectl_readings_total", "Readings received from each device.", \.readings),
            ("blectl_reading_errors_total", "Values from each device that could not be decoded.", \.readingErrors),
            ("blectl_connects_total", "Connections made to each device.", \.connects),
        ]
        for (name, help, count) in counters {
            out.family(name, .counter, help: help)
            for device in devices {
                out.sample(
                    name, ["address": device.address.description, "name": device.name ?? ""], Double(count(device)))
            }
        }
        out.family("blectl_disconnects_total", .counter, help: "Disconnections of each device, by reason.")
        for device in devices {
            for (reason, count) in device.disconnects.sorted(by: { $0.key < $1.key }) {
                out.sample(
                    "blectl_disconnects_total",
                    ["address": device.address.description, "name": device.name ?? "", "reason": reason],
                    Double(count))
            }
        }
    }

    /// What each advertising sensor sent that was received and missed (docs/advertisements.md,
    /// "Received and missed"), and the share received over the last hour.
    static func writeReception(
        _ sensors: [AdvertisementStatus.Sensor], names: [BluetoothAddress: String], to out: inout PrometheusText
    ) {
        let counted = sensors.filter { $0.countedBy != nil }
        let families: [PrometheusText.Family<AdvertisementStatus.Sensor>] = [
            (
                "blectl_sensor_received_total", .counter,
                "Measurements (by the sensor's counter) or advertisements (by its interval) received from each advertising sensor.",
                { $0.received.map(Double.init) }
            ),
            (
                "blectl_sensor_missed_total", .counter,
                "Measurements or advertisements each advertising sensor sent that were not received.",
                { $0.missed.map(Double.init) }
            ),
            (
                "blectl_sensor_reception_ratio", .gauge,
                "Share of each advertising sensor's measurements or advertisements received over the last hour, 0 to 1.",
                \.ratioLastHour
            ),
        ]
        out.families(families, of: counted) { sensor in
            [
                "address": sensor.address.description, "name": names[sensor.address] ?? "",
                "counted_by": sensor.countedBy ?? "",
            ]
        }
    }

    /// The daemon's own state: the adapter's and bluetoothd's.
    private static func writeDaemon(_ status: StatusResult, to out: inout PrometheusText) {
        out.single(
            "blectl_adapter_powered", .gauge, help: "1 when the Bluetooth adapter is powered on, else 0.",
            status.state == .poweredOn ? 1 : 0)
        out.single(
            "blectl_bluez_up", .gauge,
            help: "1 when bluetoothd answers with a usable adapter (powered on or off, or refusing access), else 0.",
            [.poweredOn, .poweredOff, .unauthorized].contains(status.state) ? 1 : 0)
    }

    /// The scan watchdog's recovery ladder (README, "Recovery ladder"): steps by kind.
    static func writeWatchdog(_ watchdog: ScanWatchdogStatus, to out: inout PrometheusText) {
        out.family(
            "blectl_scan_watchdog_steps_total", .counter,
            help: "Steps the scan watchdog took against a silent adapter, by step.")
        let steps = [
            ("restart_discovery", watchdog.discoveryRestarts), ("power_cycle", watchdog.powerCycles),
            ("reset_controller", watchdog.controllerResets),
        ]
        for (step, count) in steps {
            out.sample("blectl_scan_watchdog_steps_total", ["step": step], Double(count))
        }
        out.single(
            "blectl_scan_watchdog_silent", .gauge,
            help: "1 from a scan watchdog step until a device is heard again, else 0.", watchdog.silent ? 1 : 0)
    }
}
