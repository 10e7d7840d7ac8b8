@testable import HTTPOutput
import SensorModel
import TestSupport
import Testing

@Suite("/metrics")
struct MetricsTests {
    static let families = [
        "blectl_temperature_celsius", "blectl_humidity_ratio", "blectl_battery_ratio", "blectl_pressure_pascals",
        "blectl_co2_ppm", "blectl_dew_point_celsius", "blectl_rssi_dbm", "blectl_last_reading_timestamp_seconds",
        "blectl_readings", "blectl_reading_errors",
        "blectl_connects", "blectl_disconnects", "blectl_adapter_powered", "blectl_bluez_up", "blectl_history_rows",
        "process_resident_memory_bytes", "process_cpu_seconds",
    ]

    static let weather = Measurement(
        profile: "bthome",
        quantities: Quantities([
            .temperature: 21.5, .humidity: 45, .battery: 80, .pressure: 1013.2, .co2: 812, .dewPoint: 9.25,
        ]),
        raw: "40a1b2")

    @Test("a device with several probes: a temperature sample per probe, with a probe label")
    func probes() async throws {
        try await withTestOutput { output in
            func probe(_ number: UInt8, _ celsius: Double) -> Measurement {
                Measurement(
                    profile: "govee-meat", quantities: Quantities([.temperature: celsius]), raw: "00", probe: number)
            }
            await output.apply([
                .reading(BluetoothAddress("A4:C1:38:00:00:09"), name: "Grill", probe(2, 61.5)),
                .reading(BluetoothAddress("A4:C1:38:00:00:09"), name: "Grill", probe(1, 40.5)),
                .reading(BluetoothAddress("A4:C1:38:00:00:09"), name: "Grill", probe(2, 62)),
            ])
            await output.history.flush()
            let families = try await parsePrometheus(try await output.get("/metrics").text)
            let grill = ["address": "A4:C1:38:00:00:09", "name": "Grill", "profile": "govee-meat"]
            #expect(value(families, "blectl_temperature_celsius", grill.merging(["probe": "1"]) { $1 }) == 40.5)
            #expect(value(families, "blectl_temperature_celsius", grill.merging(["probe": "2"]) { $1 }) == 62)
            let page = try await output.get("/").text
            #expect(page.contains("probe 1 40.5 °C") && page.contains("probe 2 62.0 °C"), "\(page)")
        }
    }

    @Test("every metric in base units, with HELP and TYPE, as prometheus_client parses it")
    func baseUnits() async throws {
        try await withTestOutput { output in
            await output.apply([
                .adapterState(adapter: "hci0", state: .poweredOn),
                .peripheralSeen(address: "A4:C1:38:00:00:01", name: "Kitchen", rssi: -61, isThermometer: true),
                .connected(address: "A4:C1:38:00:00:01", name: "Kitchen"),
                .reading(BluetoothAddress("A4:C1:38:00:00:01"), name: "Kitchen", Self.weather),
                .readingError(address: "A4:C1:38:00:00:01", detail: "short", raw: [1]),
                .disconnected(address: "A4:C1:38:00:00:01", reason: "link lost"),
            ])
            await output.history.flush()
            let response = try await output.get("/metrics")
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            let families = try await parsePrometheus(response.text)
            for name in Self.families {
                #expect(families[name] != nil, "\(name) missing")
                #expect(families[name]?.help.isEmpty == false, "\(name) has no HELP")
            }
            let kitchen = ["address": "A4:C1:38:00:00:01", "name": "Kitchen", "profile": "bthome"]
            #expect(value(families, "blectl_temperature_celsius", kitchen) == 21.5)
            #expect(value(families, "blectl_humidity_ratio", kitchen) == 0.45)
            #expect(value(families, "blectl_battery_ratio", kitchen) == 0.8)
            #expect(value(families, "blectl_pressure_pascals", kitchen) == 101_320)
            #expect(value(families, "blectl_co2_ppm", kitchen) == 812)
            #expect(value(families, "blectl_dew_point_celsius", kitchen) == 9.25)
            let identity = ["address": "A4:C1:38:00:00:01", "name": "Kitchen"]
            #expect(value(families, "blectl_rssi_dbm", identity) == -61)
            #expect(value(families, "blectl_readings_total", identity) == 1)
            #expect(value(families, "blectl_reading_errors_total", identity) == 1)
            #expect(value(families, "blectl_connects_total", identity) == 1)
            #expect(value(families, "blectl_disconnects_total", identity.merging(["reason": "link lost"]) { $1 }) == 1)
            #expect(
                value(families, "blectl_last_reading_timestamp_seconds", identity)
                    == Double(output.clock.now.millisecondsSince1970 - 10_000) / 1000)
            #expect(families["blectl_readings"]?.type == "counter")
            #expect(families["blectl_temperature_celsius"]?.type == "gauge")
            #expect(value(families, "blectl_adapter_powered", [:]) == 1)
            #expect(value(families, "blectl_bluez_up", [:]) == 1)
            #expect(value(families, "blectl_history_rows", [:]) == 2)
            #expect((value(families, "process_resident_memory_bytes", [:]) ?? 0) > 1_000_000)
            #expect(value(families, "process_cpu_seconds_total", [:]) != nil)
        }
    }

    @Test("a quantity in base units prints as the decimal meant, not a binary product's digits")
    func shortestDecimal() async throws {
        try await withTestOutput { output in
            let measurement = Measurement(
                profile: "ruuvi", quantities: Quantities([.temperature: 21.5, .humidity: 47.1, .pressure: 1093.61]),
                raw: "05")
            await output.apply([.reading(BluetoothAddress("C8:47:8C:00:00:01"), name: "Ruuvi", measurement)])
            let lines = try await output.get("/metrics").text.split(separator: "\n")
            let humidity = try #require(lines.first { $0.hasPrefix("blectl_humidity_ratio{") })
            #expect(humidity.hasSuffix("} 0.471"), "\(humidity)")
            let pressure = try #require(lines.first { $0.hasPrefix("blectl_pressure_pascals{") })
            #expect(pressure.hasSuffix("} 109361"), "\(pressure)")
        }
        for (value, exponent, shifted) in [(47.1, -2, 0.471), (0.1, -2, 0.001), (1e-05, -2, 1e-07), (5, 2, 500.0)] {
            #expect(MetricsPage.shifted(value, by: exponent).description == shifted.description, "\(value)")
        }
        #expect(MetricsPage.shifted(-.infinity, by: -2) == -.infinity)
        #expect(MetricsPage.shifted(.nan, by: 2).isNaN)
    }

    @Test("a device that goes stale drops out of the per-device gauges; its timestamp and counters stay")
    func staleness() async throws {
        try await withTestOutput { output in
            let address: BluetoothAddress = "DC:A6:32:00:00:01"
            await output.apply((0..<3).map { .fahrenheit(address, 100 + Double($0)) }, every: .seconds(30))
            var families = try await parsePrometheus(try await output.get("/metrics").text)
            #expect(families["blectl_temperature_celsius"]?.samples.count == 1)
            // Readings came 30 s apart: stale after max(30 s + 5 s, 60 s) = 60 s.
            output.clock.advance(.seconds(59))
            families = try await parsePrometheus(try await output.get("/metrics").text)
            #expect(families["blectl_temperature_celsius"]?.samples.count == 1)
            output.clock.advance(.seconds(2))
            families = try await parsePrometheus(try await output.get("/metrics").text)
            #expect(families["blectl_temperature_celsius"]?.samples.isEmpty == true)
            #expect(families["blectl_last_reading_timestamp_seconds"]?.samples.count == 1)
            #expect(
                value(families, "blectl_readings_total", ["address": address.description, "name": "Thermometer"]) == 3)
        }
    }

    @Test("a slow sensor is current for its largest recent interval plus 5 s")
    func slowSensor() {
        var gaps = RecentGaps()
        #expect(gaps.staleAfter == .seconds(60))
        gaps.add(.seconds(100))
        gaps.add(.seconds(10))
        #expect(gaps.staleAfter == .seconds(105))
        for _ in 0..<RecentGaps.count { gaps.add(.seconds(20)) }
        #expect(gaps.staleAfter == .seconds(60))
    }

    @Test("names with quotes, backslashes and newlines survive as label values")
    func labelEscaping() async throws {
        try await withTestOutput { output in
            let name = "a\"b\\c\nd{e}=,"
            await output.apply([.fahrenheit("DC:A6:32:00:00:07", 99, name: name)])
            let families = try await parsePrometheus(try await output.get("/metrics").text)
            #expect(families["blectl_temperature_celsius"]?.samples.first?.labels["name"] == name)
        }
    }

    @Test("/proc/self figures: resident pages and CPU ticks, with a command name holding ') '")
    func processFigures() {
        let stat = "4242 (blectld) x (y)) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 5 0"
        let figures = ProcessMetrics.parse(
            statm: "5000 2000 300 10 0 900 0", stat: stat, pageSize: 4096, ticksPerSecond: 100)
        #expect(figures == ProcessMetrics(residentBytes: 2000 * 4096, cpuSeconds: 3))
        #expect(ProcessMetrics.parse(statm: "", stat: stat, pageSize: 4096, ticksPerSecond: 100) == nil)
        #expect(ProcessMetrics.current() != nil)
    }

    @Test("numbers in the format's syntax")
    func numbers() {
        #expect(PrometheusText.format(3) == "3")
        #expect(PrometheusText.format(-61) == "-61")
        #expect(PrometheusText.format(47.31) == "47.31")
        #expect(PrometheusText.format(.nan) == "NaN")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(1_796_141_176.647) == "1796141176.647")
    }

    private func value(_ families: [String: MetricFamily], _ sample: String, _ labels: [String: String]) -> Double? {
        families.values.flatMap(\.samples).first { $0.name == sample && $0.labels == labels }?.value
    }
}
