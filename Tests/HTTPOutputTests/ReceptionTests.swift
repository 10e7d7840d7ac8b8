import BlectlProtocol
@testable import HTTPOutput
import SensorModel
import TestSupport
import Testing

/// Advertising sensors' reception on /metrics and the page (docs/http.md), from `status`.
@Suite("Reception on /metrics and the page")
struct ReceptionTests {
    /// A status part with a sensor counted by counter (70 % received), one by interval, and
    /// one with nothing counted yet.
    static func advertisements() -> AdvertisementStatus {
        var counted = AdvertisementStatus.Sensor(
            address: "A4:C1:38:00:00:01", profile: "bthome", readings: 700, lostPackets: 300, staleAfter: 60,
            lost: false)
        counted.setReception(countedBy: "counter", received: 700, missed: 300, receivedLastHour: 70, missedLastHour: 30)
        var byInterval = AdvertisementStatus.Sensor(
            address: "A4:C1:38:00:00:02", profile: "govee-h5075", readings: 10, lostPackets: 0, staleAfter: 60,
            lost: false)
        byInterval.setReception(
            countedBy: "interval", received: 1000, missed: 0, receivedLastHour: 1000, missedLastHour: 0)
        let uncounted = AdvertisementStatus.Sensor(
            address: "A4:C1:38:00:00:03", profile: nil, readings: 0, lostPackets: 0, staleAfter: 60, lost: false)
        return AdvertisementStatus(
            scanMode: "active", advertisements: 2000, readings: 710, duplicates: 0, lostPackets: 300, errors: 0,
            forgotten: 0, sensors: [counted, byInterval, uncounted])
    }

    static let weather = Measurement(profile: "bthome", quantities: Quantities([.temperature: 21.5]), raw: "40")

    @Test("received and missed counters and the hour's ratio per sensor, as prometheus_client parses them")
    func metrics() async throws {
        try await withTestOutput { output in
            await output.hub.addStatusContributor { $0.setSection(Self.advertisements()) }
            await output.apply([.reading(BluetoothAddress("A4:C1:38:00:00:01"), name: "Kitchen", Self.weather)])
            let families = try await parsePrometheus(try await output.get("/metrics").text)
            #expect(families["blectl_sensor_received"]?.type == "counter")
            #expect(families["blectl_sensor_missed"]?.type == "counter")
            #expect(families["blectl_sensor_reception_ratio"]?.type == "gauge")
            let kitchen = ["address": "A4:C1:38:00:00:01", "name": "Kitchen", "counted_by": "counter"]
            let govee = ["address": "A4:C1:38:00:00:02", "name": "", "counted_by": "interval"]
            let samples = { (family: String) in families[family]?.samples ?? [] }
            #expect(samples("blectl_sensor_received").contains { $0.labels == kitchen && $0.value == 700 })
            #expect(samples("blectl_sensor_missed").contains { $0.labels == kitchen && $0.value == 300 })
            #expect(samples("blectl_sensor_reception_ratio").contains { $0.labels == kitchen && $0.value == 0.7 })
            #expect(samples("blectl_sensor_reception_ratio").contains { $0.labels == govee && $0.value == 1 })
            // Nothing counted, nothing exported.
            #expect(!samples("blectl_sensor_received").contains { $0.labels["address"] == "A4:C1:38:00:00:03" })
        }
    }

    @Test("a card shows the share its sensor missed over the last hour; a device that is none shows nothing")
    func page() async throws {
        try await withTestOutput { output in
            await output.hub.addStatusContributor { $0.setSection(Self.advertisements()) }
            await output.apply([
                .reading(BluetoothAddress("A4:C1:38:00:00:01"), name: "Kitchen", Self.weather),
                .connected(address: "DC:A6:32:00:00:01", name: "Thermometer"),
            ])
            let page = try await output.get("/").text
            #expect(page.contains("<span class=\"reception\" data-ratio=\"0.7\""))
            #expect(page.contains(">30 % missed in 1 h</span>"))
            #expect(page.contains("<p class=\"state\">connected</p>"), "a GATT thermometer: no figure")
        }
    }
}
