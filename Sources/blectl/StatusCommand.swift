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
        let rows = [
            ["Daemon:", "\(status.daemon) \(status.version), up \(uptime)"],
            ["Adapter:", "\(status.adapter ?? "none") (\(state))" + (status.reason.map { ": \($0)" } ?? "")],
            ["Connected:", status.connected.count == 1 ? "1 thermometer" : "\(status.connected.count) thermometers"],
        ]
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
}
