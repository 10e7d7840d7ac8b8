import BlectlProtocol

/// `blectl status`.
enum StatusCommand {
    static func run(_ context: Context) throws(CLIError) -> ExitStatus {
        let reply = try context.connect().request(.status, timeout: .seconds(10))
        let terminal = context.terminal
        if terminal.json {
            terminal.printRaw(reply.result)
            return .success
        }
        let status = try reply.decode(StatusResult.self)
        let state = terminal.paint(status.state.rawValue, status.state == .poweredOn ? .green : .yellow)
        let uptime = Format.age(seconds: Format.secondsSince(status.started)).replacing(" ago", with: "")
        let sections = sectionsPart(status, terminal)
        let rows =
            [
                ["Daemon:", "\(status.daemon) \(status.version), up \(uptime)"],
                ["Adapter:", "\(status.adapter ?? "none") (\(state))" + (status.reason.map { ": \($0)" } ?? "")],
                [
                    "Connected:",
                    status.connected.count == 1 ? "1 thermometer" : "\(status.connected.count) thermometers",
                ],
            ] + sections.rows
        for line in terminal.table(rows) { terminal.print(line) }
        for table in sections.tables {
            if let title = table.title { terminal.print(title) }
            for line in terminal.table(
                table.rows, paint: { row, _, text in row == 0 ? terminal.paint(text, .bold) : text })
            {
                terminal.print(line)
            }
        }
        guard !status.connected.isEmpty else { return .success }
        var table = [["", "NAME", "ADDRESS", "TEMPERATURE", "UPDATED"]]
        for peripheral in status.connected {
            let reading = peripheral.lastReading
            table.append([
                "", Format.name(peripheral.name), peripheral.address.description,
                reading?.celsius.map(terminal.temperature) ?? "–",
                reading.map { Format.age(seconds: Format.secondsSince($0.time)) } ?? "no reading yet",
            ])
        }
        for line in terminal.table(table, paint: { row, _, text in row == 0 ? terminal.paint(text, .bold) : text }) {
            terminal.print(line)
        }
        return .success
    }

    /// `DC:A6:32:00:00:01 temperature +1.5 °C`: one offset in force.
    static func calibrationLine(_ offset: CalibrationOffset) -> String {
        let unit = offset.quantity == "temperature" ? " °C" : offset.quantity == "humidity" ? " %RH" : ""
        return "\(offset.address) \(offset.quantity) \(offset.offset < 0 ? "" : "+")\(offset.offset)\(unit)"
    }

    /// `6 sensors heard (active scanning), 1204 readings, 3 lost packets, 1 reading error`.
    static func advertisementLine(_ adverts: AdvertisementStatus) -> String {
        func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }
        let heard = adverts.sensors.filter { !$0.lost }.count
        var line =
            count(heard, "sensor") + " heard (\(adverts.scanMode) scanning), " + count(adverts.readings, "reading")
        line += ", " + count(adverts.lostPackets, "lost packet")
        if adverts.errors > 0 { line += ", " + count(adverts.errors, "reading error") }
        return line
    }

    /// An advertising sensor's row: when it was last heard, its interval, what it sent that was
    /// received and missed (`by counter` or `by interval`), and the share received in the last hour.
    static func sensorRow(_ sensor: AdvertisementStatus.Sensor) -> [String] {
        let heard = sensor.lastHeard.map { Format.age(seconds: Format.secondsSince($0)) } ?? "–"
        let interval = sensor.interval.map { Format.seconds(($0 * 100).rounded() / 100) } ?? "–"
        guard let basis = sensor.countedBy, let received = sensor.received, let missed = sensor.missed else {
            return ["", sensor.address.description, sensor.profile ?? "–", heard, interval, "–", "–", "–"]
        }
        let ratio = sensor.ratioLastHour.map { "\(Int(($0 * 100).rounded())) % received" } ?? "–"
        return [
            "", sensor.address.description, sensor.profile ?? "–", heard, interval, Format.count(received),
            "\(Format.count(missed)) (by \(basis))", ratio,
        ]
    }

    /// `connected to mqtt://broker:1883 as kitchen, backlog 0` or `disconnected (why), backlog 12`.
    static func mqttLine(_ mqtt: MQTTStatus, _ terminal: Terminal) -> String {
        let state = terminal.paint(mqtt.state.rawValue, mqtt.state == .connected ? .green : .yellow)
        var line = "\(state) \(mqtt.state == .connected ? "to" : "from") \(mqtt.broker) as \(mqtt.gateway)"
        if let reason = mqtt.reason { line += " (\(reason))" }
        line += ", backlog \(mqtt.backlog)"
        if mqtt.dropped > 0 { line += ", \(mqtt.dropped) dropped" }
        if mqtt.state == .connected, let error = mqtt.lastError { line += "; last error: \(error)" }
        return line
    }

    /// `listening (90 s), 1 discovery restart, 0 power cycles, 0 controller resets; recovered 1
    /// time, last after restart_discovery`, or `silent (…)` while the adapter hears nothing.
    static func watchdogLine(_ watchdog: ScanWatchdogStatus, _ terminal: Terminal) -> String {
        let state = watchdog.silent ? terminal.paint("silent", .yellow) : terminal.paint("listening", .green)
        let counted = { (count: Int, one: String) in "\(count) \(one)\(count == 1 ? "" : "s")" }
        var line = "\(state) (\(Format.seconds(watchdog.periodSeconds))"
        line += watchdog.adapterReset ? ", adapter_reset on)" : ")"
        line += ", " + counted(watchdog.discoveryRestarts, "discovery restart") + ", "
        line +=
            counted(watchdog.powerCycles, "power cycle") + ", " + counted(watchdog.controllerResets, "controller reset")
        if watchdog.controllerResetFailures > 0 { line += " (\(watchdog.controllerResetFailures) failed)" }
        if watchdog.recoveries > 0 {
            line += "; recovered " + counted(watchdog.recoveries, "time")
            if let step = watchdog.lastRecoveredBy { line += ", last after \(step)" }
        }
        return line
    }

    /// The history store: where, its state (and why it is degraded), what it holds.
    static func historyRows(_ history: HistoryStatus, _ terminal: Terminal) -> [[String]] {
        let state =
            history.state == .ok
            ? terminal.paint("ok", .green) : terminal.paint("degraded: \(history.reason ?? "no reason given")", .yellow)
        var stored = "\(Format.count(history.rows)) \(history.rows == 1 ? "reading" : "readings")"
        if let oldest = history.oldest { stored += " since \(Format.localDateTime(oldest))" }
        stored += ", \(Format.bytes(history.bytes)) on disk"
        var rows = [["History:", "\(history.path) (\(state))"], ["", stored]]
        if history.pending > 0 || history.dropped > 0 {
            let dropped = history.dropped > 0 ? ", \(Format.count(Int(history.dropped))) dropped" : ""
            rows.append(["", "\(Format.count(history.pending)) waiting in memory\(dropped)"])
        }
        return rows
    }
}

extension Format {
    /// `1234567` as `1,234,567`.
    static func count(_ value: Int) -> String {
        let digits = Array(String(value.magnitude))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return value < 0 ? "-" + text : text
    }

    /// Bytes in the unit that suits them: `512 B`, `42.1 kB`, `16.2 MB`, `1.3 GB` (powers of 1000).
    static func bytes(_ value: Int64) -> String {
        guard value >= 1000 else { return "\(value) B" }
        var amount = Double(value) / 1000
        for unit in ["kB", "MB", "GB"] {
            if amount < 1000 || unit == "GB" { return "\((amount * 10).rounded() / 10) \(unit)" }
            amount /= 1000
        }
        return "\(value) B"
    }
}
