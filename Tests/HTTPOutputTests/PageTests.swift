import Foundation
@testable import HTTPOutput
import SensorModel
import TestSupport
import Testing

@Suite("The page")
struct PageTests {
    @Test("with no devices yet: a page that says so")
    func noDevices() async throws {
        try await withTestOutput { output in
            let page = try await output.get("/")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.text.contains("data-devices=\"0\""))
            #expect(page.text.contains("No thermometers yet"))
            #expect(!page.text.contains("<svg"))
        }
    }

    @Test("a device with no history yet: its row, no value, an empty plot")
    func noHistory() async throws {
        try await withTestOutput { output in
            await output.apply([.connected(address: "DC:A6:32:00:00:01", name: "Thermometer")])
            let page = try await output.get("/").text
            #expect(page.contains("data-devices=\"1\""))
            #expect(page.contains("data-address=\"DC:A6:32:00:00:01\""))
            #expect(page.contains("no reading yet"))
            #expect(page.contains("<p class=\"state\">connected</p>"))
            #expect(page.contains("data-points=\"0\""))
            #expect(page.contains("no readings in this time"))
        }
    }

    @Test("one row and one plot per device, with its newest values")
    func devices() async throws {
        try await withTestOutput { output in
            let weather = Measurement(
                profile: "bthome", quantities: Quantities([.temperature: 21.46, .humidity: 45.2, .battery: 80]),
                raw: "40")
            await output.apply([
                .fahrenheit("DC:A6:32:00:00:01", 117.1),
                .reading(BluetoothAddress("A4:C1:38:00:00:09"), name: "Kitchen", weather),
                .peripheralSeen(address: "F0:5E:CD:00:00:01", name: "HRM-Pro", rssi: -70, isThermometer: false),
            ])
            let page = try await output.get("/").text
            #expect(occurrences(of: "<section class=\"device", in: page) == 2)
            #expect(occurrences(of: "<svg class=\"plot\"", in: page) == 2)
            #expect(!page.contains("HRM-Pro"))
            #expect(page.contains("data-celsius=\"21.46\">21.5 °C"))
            #expect(page.contains("humidity 45%"))
            #expect(page.contains("battery 80%"))
            #expect(page.contains("bthome"))
            #expect(page.contains("data-celsius=\"47.28\">47.3 °C"))
            #expect(page.contains("5 s ago"))
            // Sorted by name: Kitchen before Thermometer.
            #expect(page.range(of: "Kitchen")!.lowerBound < page.range(of: "<h2>Thermometer")!.lowerBound)
        }
    }

    @Test(
        "the adapter in words, and every quantity a device reports (a Ruuvi's pressure and voltage, CO₂ and dew point)")
    func wordsAndQuantities() async throws {
        try await withTestOutput { output in
            let ruuvi = Measurement(
                profile: "ruuvi",
                quantities: Quantities([.temperature: 24.3, .humidity: 53.49, .pressure: 1000.44, .voltage: 2.977]),
                raw: "05")
            let meter = Measurement(
                profile: "switchbot", quantities: Quantities([.temperature: 21.5, .co2: 812, .dewPoint: 9.25]),
                raw: "00")
            await output.apply([
                .adapterState(adapter: "hci0", state: .poweredOn),
                .reading(BluetoothAddress("C8:47:8C:00:00:01"), name: "Ruuvi 0001", ruuvi),
                .reading(BluetoothAddress("C8:47:8C:00:00:02"), name: "Meter Pro", meter),
            ])
            let page = try await output.get("/").text
            #expect(page.contains("adapter hci0 on · 0 connected"))
            #expect(!page.contains("poweredOn"))
            #expect(page.contains("humidity 53%"))
            #expect(page.contains("pressure 1000.4 hPa"))
            #expect(page.contains("voltage 2.98 V"))
            #expect(page.contains("co2 812 ppm"))
            #expect(page.contains("dew_point 9.3 °C"))
        }
        let off = DashboardPage.adapterWords("hci0", .poweredOff, reason: "rfkill")
        #expect(off == "adapter hci0 off (rfkill)")
        #expect(DashboardPage.adapterWords(nil, .unsupported, reason: nil) == "no Bluetooth adapter")
    }

    @Test("10,000 readings: the plot keeps at most 300 points, and the spike")
    func manyPoints() async throws {
        try await withTestOutput { output in
            let address: BluetoothAddress = "DC:A6:32:00:00:01"
            let events: [SensorEvent] = (0..<10_000).map { index in
                .reading(
                    address, name: "Thermometer",
                    .celsius(index == 9000 ? 90 : 40 + Double(index % 50) / 10))
            }
            // Every 10 s: 27.8 hours, more than the window, so it is full from end to end.
            await output.apply(events, every: .seconds(10))
            let page = try await output.get("/").text
            let path = try #require(plotPath(page))
            let points = path.filter { $0 == "M" || $0 == "L" }.count
            #expect(points > 100)
            #expect(points <= 300)
            #expect(page.contains("text-anchor=\"end\">90</text>"))
            #expect(page.contains("data-points=\"\(points)\""))
        }
    }

    @Test("later requests add the readings that came since, and ?hours= narrows the window")
    func incremental() async throws {
        try await withTestOutput { output in
            let address: BluetoothAddress = "DC:A6:32:00:00:01"
            await output.apply((0..<20).map { .fahrenheit(address, 100 + Double($0)) }, every: .seconds(600))
            let before = try #require(plotPath(try await output.get("/").text))
            await output.apply([.fahrenheit(address, 150)], every: .seconds(600))
            let after = try await output.get("/").text
            #expect(try #require(plotPath(after)).count > before.count)
            #expect(after.contains(">65.6</text>"))  // 150 °F, the new highest
            let hour = try await output.get("/?hours=1").text
            let recent = try #require(plotPath(hour))
            // Readings 10 min apart, the last at the window's end: 7 within the hour, both ends in.
            #expect(recent.filter { $0 == "M" || $0 == "L" }.count == 7)
            #expect(hour.contains("aria-current=\"page\">1 h"))
        }
    }

    @Test("names from the air are escaped")
    func escaping() async throws {
        try await withTestOutput { output in
            await output.apply([.fahrenheit("DC:A6:32:00:00:01", 100, name: "<script>alert('x')</script>&\"")])
            let page = try await output.get("/").text
            #expect(!page.contains("<script>alert"))
            #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"))
        }
    }

    @Test("a bad ?hours= is a 400 that says what is expected")
    func badHours() async throws {
        try await withTestOutput { output in
            for hours in ["abc", "0", "-1", "1e9", "nan"] {
                let response = try await output.get("/?hours=\(hours)")
                #expect(response.status == 400, "\(hours)")
                #expect(response.text.contains("hours must be a number from 0.1 to 8760"))
            }
        }
    }

    @Test("the refresh script is served, and the page works without it")
    func refreshScript() async throws {
        try await withTestOutput { output in
            let script = try await output.get("/refresh.js")
            #expect(script.status == 200)
            #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(script.text.contains("querySelector(\"main\")"))
            let page = try await output.get("/")
            #expect(page.text.contains("<noscript><meta http-equiv=\"refresh\" content=\"30\"></noscript>"))
            #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            #expect(!page.text.contains("http://") && !page.text.contains("https://"))
        }
    }

    @Test("values keep one decimal; labels drop trailing zeros")
    func numbers() {
        #expect(fixed(47, digits: 1) == "47.0")
        #expect(fixed(21.46, digits: 1) == "21.5")
        #expect(fixed(-0.5, digits: 1) == "-0.5")
        #expect(fixed(-0.04, digits: 1) == "0.0")
        #expect(decimal(47.0, digits: 1) == "47")
        #expect(decimal(-273.15, digits: 1) == "-273.2")
        #expect(decimal(0.25, digits: 3) == "0.25")
    }

    private func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The `d` of the first plot's line.
    private func plotPath(_ page: String) -> String? {
        guard let start = page.range(of: "<path class=\"line\" d=\"") else { return nil }
        return String(page[start.upperBound...].prefix { $0 != "\"" })
    }
}
