import BlectlProtocol
import UnixSupport

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
        var rows = [
            ["Daemon:", "\(status.daemon) \(status.version), up \(uptime)"],
            ["Adapter:", "\(status.adapter ?? "none") (\(state))" + (status.reason.map { ": \($0)" } ?? "")],
            ["Connected:", status.connected.count == 1 ? "1 thermometer" : "\(status.connected.count) thermometers"],
        ]
        if let mqtt = status.mqtt { rows.append(["MQTT:", mqttLine(mqtt, terminal)]) }
        if let adverts = status.advertisements { rows.append(["Advertising:", advertisementLine(adverts)]) }
        for line in terminal.table(rows) { terminal.print(line) }
        guard !status.connected.isEmpty else { return .success }
        var table = [["", "NAME", "ADDRESS", "TEMPERATURE", "UPDATED"]]
        for peripheral in status.connected {
            let reading = peripheral.lastReading
            table.append([
                "", Format.name(peripheral.name), peripheral.address,
                reading?.celsius.map(terminal.temperature) ?? "–",
                reading.map { Format.age(seconds: Format.secondsSince($0.time)) } ?? "no reading yet",
            ])
        }
        for line in terminal.table(table, paint: { row, _, text in row == 0 ? terminal.paint(text, .bold) : text }) {
            terminal.print(line)
        }
        return .success
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
}
