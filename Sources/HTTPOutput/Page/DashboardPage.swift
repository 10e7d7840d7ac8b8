import BlectlProtocol
import SensorModel

/// `/`: every device with its newest values and a plot of its temperatures, as one HTML
/// page with inline SVG; nothing is loaded from elsewhere.
///
/// `/refresh.js` (``RefreshScript``) swaps in a fresh copy of `<main>` every 10 s; without
/// JavaScript the page reloads itself every 30 s.
struct DashboardPage {
    /// What the page shows of one device: its view and its plot's points (nil: no history kept).
    struct Device {
        var view: DeviceView
        var points: [PlotSeries.Point]?
    }

    let snapshot: HubSnapshot
    let devices: [Device]
    /// The plots' window.
    let window: Duration

    /// The page's headers: it is made fresh for every request and runs only our script.
    static let headers: [(name: String, value: String)] = [
        (name: "Cache-Control", value: "no-store"),
        (
            name: "Content-Security-Policy",
            value: "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; "
                + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        (name: "X-Content-Type-Options", value: "nosniff"),
        (name: "Referrer-Policy", value: "no-referrer"),
    ]

    func render() -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>blectl — thermometers</title>
        <link rel="icon" href="data:,">
        <noscript><meta http-equiv="refresh" content="30"></noscript>
        <style>\(PageStyle.css)</style>
        <script src="/refresh.js" defer></script>
        </head>
        <body>
        \(main())
        </body>
        </html>

        """
    }

    private var hours: Double { Double(window.components.seconds) / 3600 }

    private func main() -> String {
        var html = "<main data-devices=\"\(devices.count)\">\n<header>\n<h1>Thermometers</h1>\n"
        html += "<p class=\"summary\">\(summary())</p>\n"
        html += "<nav>" + windowLinks() + "</nav>\n</header>\n"
        html += adapterTable()
        if devices.isEmpty {
            html += "<p class=\"none\">No thermometers yet. blectld connects to them as it finds them; "
            html += "this page shows them as they report.</p>\n"
        }
        let sensors = Dictionary(
            (snapshot.status.section(AdvertisementStatus.self)?.sensors ?? []).map { ($0.address, $0) },
            uniquingKeysWith: { first, _ in first })
        let memories = Dictionary(
            (snapshot.status.section([SensorMemoryStatus].self) ?? []).map { ($0.address, $0) },
            uniquingKeysWith: { first, _ in first })
        for device in devices {
            html += section(device, sensor: sensors[device.view.address], memory: memories[device.view.address])
        }
        html += "<footer>blectld \(escaped(snapshot.status.version)) · updated "
        html += "<time datetime=\"\(snapshot.time.rfc3339)\">\(clock(snapshot.time)) UTC</time> · "
        html += "<a href=\"/metrics\">metrics</a> · <a href=\"/api/devices\">api</a></footer>\n</main>"
        return html
    }

    private func summary() -> String {
        let status = snapshot.status
        let adapter = Self.adapterWords(status.adapter, status.state, reason: status.reason)
        return "\(escaped(adapter)) · \(status.connected.count) connected"
    }

    /// The adapter's state in words for people (`adapter hci0 on`), not the API's state names;
    /// the reason, when it is not on.
    static func adapterWords(_ name: String?, _ state: AdapterState, reason: String?) -> String {
        let adapter = name.map { "adapter \($0)" } ?? "adapter"
        let words =
            switch state {
            case .poweredOn: "\(adapter) on"
            case .poweredOff: "\(adapter) off"
            case .unknown: "\(adapter) not known yet"
            case .resetting: "\(adapter) away: bluetoothd restarting"
            case .unsupported: name == nil ? "no Bluetooth adapter" : "\(adapter) unusable"
            case .unauthorized: "\(adapter) refused: no access to bluetoothd"
            }
        guard state != .poweredOn, let reason else { return words }
        return "\(words) (\(reason))"
    }

    private func windowLinks() -> String {
        [(1.0, "1 h"), (6, "6 h"), (24, "24 h"), (168, "7 d")].map { value, label in
            let current = abs(value - hours) < 0.001 ? " aria-current=\"page\"" : ""
            return "<a href=\"/?hours=\(decimal(value, digits: 3))\"\(current)>\(label)</a>"
        }.joined(separator: " ")
    }

    private func section(
        _ device: Device, sensor: AdvertisementStatus.Sensor?, memory: SensorMemoryStatus?
    ) -> String {
        let view = device.view
        let name = view.name ?? "(unnamed)"
        var html =
            "<section class=\"device\(view.isStale ? " stale" : "")\" data-address=\"\(escaped(view.address.description))\">\n"
        html +=
            "<h2>\(escaped(name))</h2>\n<p class=\"identity\"><span class=\"address\">\(escaped(view.address.description))</span>"
        if let profile = view.latest?.measurement.profile {
            html += " · <span class=\"profile\">\(escaped(profile.rawValue))</span>"
        }
        html += "</p>\n" + values(view) + "<p class=\"state\">\(state(view))\(reception(sensor))</p>\n"
        html += lastDownload(memory)
        html += plot(device, name: name) + "\n</section>\n"
        return html
    }

    private func values(_ view: DeviceView) -> String {
        guard let reading = view.latest else { return "<p class=\"values\">no reading yet</p>\n" }
        var html = "<p class=\"values\" data-seq=\"\(reading.seq)\">"
        if let celsius = reading.celsius {
            html += "<span class=\"temperature\" data-celsius=\"\(celsius)\">\(fixed(celsius, digits: 1)) °C</span>"
        }
        // Every quantity the device reports, as /metrics has them.
        for quantity in Quantity.allCases where quantity != .temperature {
            guard let value = reading.measurement.quantities[quantity] else { continue }
            html += " <span class=\"\(quantity.key)\" data-value=\"\(value)\">\(quantity.key) "
            html += "\(Self.shown(value, of: quantity))</span>"
        }
        // A device with several probes: each probe's newest temperature.
        for probe in view.currentReadings {
            guard let number = probe.measurement.probe, let celsius = probe.celsius else { continue }
            html += " <span class=\"probe\" data-probe=\"\(number)\" data-celsius=\"\(celsius)\">probe \(number) "
            html += "\(fixed(celsius, digits: 1)) °C</span>"
        }
        html += " <time class=\"age\" datetime=\"\(reading.time.rfc3339)\">\(age(of: reading.time))</time></p>\n"
        return html
    }

    /// A quantity's value with its unit, to the precision people read it at.
    private static func shown(_ value: Double, of quantity: Quantity) -> String {
        switch quantity {
        case .temperature, .dewPoint: "\(fixed(value, digits: 1)) \(quantity.symbol)"
        case .co2: "\(decimal(value, digits: 0)) \(quantity.symbol)"
        case .humidity, .battery: "\(decimal(value, digits: 0))\(quantity.symbol)"
        case .pressure: "\(decimal(value, digits: 1)) \(quantity.symbol)"
        case .voltage: "\(decimal(value, digits: 2)) \(quantity.symbol)"
        }
    }

    private func state(_ view: DeviceView) -> String {
        var parts: [String] = []
        if view.peripheral?.connected == true {
            parts.append("connected")
        } else if let rssi = view.peripheral?.rssi {
            parts.append("seen, \(rssi) dBm")
        } else {
            parts.append("not connected")
        }
        if view.isStale, view.latest != nil { parts.append("no recent reading") }
        return escaped(parts.joined(separator: " · "))
    }

    /// An advertising sensor's share missed over the last hour (` · 30 % missed in 1 h`),
    /// when something was counted; nothing for a device that is not one.
    private func reception(_ sensor: AdvertisementStatus.Sensor?) -> String {
        guard let sensor, let ratio = sensor.ratioLastHour, let basis = sensor.countedBy else { return "" }
        let missed = Int(((1 - ratio) * 100).rounded())
        let what = basis == "counter" ? "measurements" : "advertisements"
        return " · <span class=\"reception\" data-ratio=\"\(ratio)\" title=\"\(what) missed over the last hour, "
            + "by the sensor's \(escaped(basis))\">\(missed) % missed in 1 h</span>"
    }

    /// A memory-capable sensor's last download from its own memory (`memory: 12 records
    /// stored 3 h ago`), once there was one; nothing for another device.
    private func lastDownload(_ memory: SensorMemoryStatus?) -> String {
        guard let memory, let ended = memory.lastDownload else { return "" }
        let result = memory.lastResult.map { $0 == "finished" ? "" : ", \($0)" } ?? ""
        let records = memory.stored == 1 ? "1 record" : "\(memory.stored) records"
        return "<p class=\"memory\" data-stored=\"\(memory.stored)\">memory: \(records) stored "
            + "<time datetime=\"\(ended.rfc3339)\">\(age(of: ended))</time>\(escaped(result))</p>\n"
    }

    private func plot(_ device: Device, name: String) -> String {
        guard let points = device.points else { return "<p class=\"nohistory\">blectld keeps no history</p>" }
        let label = "Temperature of \(name) over the last \(decimal(hours, digits: 1)) hours"
        return PlotSVG(
            points: points, end: snapshot.time.millisecondsSince1970, window: Int64(window.components.seconds) * 1000,
            label: label
        ).render()
    }

    /// How long ago `time` was, in the largest unit that fits.
    private func age(of time: Timestamp) -> String {
        let seconds = max(0, (snapshot.time.millisecondsSince1970 - time.millisecondsSince1970) / 1000)
        switch seconds {
        case ..<2: return "just now"
        case ..<120: return "\(seconds) s ago"
        case ..<7200: return "\(seconds / 60) min ago"
        case ..<172_800: return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86400) d ago"
        }
    }

    private func clock(_ time: Timestamp) -> String {
        let text = time.rfc3339
        let start = text.index(text.startIndex, offsetBy: 11)
        return String(text[start..<text.index(start, offsetBy: 8)])
    }
}
