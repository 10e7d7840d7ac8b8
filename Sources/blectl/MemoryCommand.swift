import BlectlProtocol
import SensorModel

/// `blectl memory [ADDRESS] [--timeout SECONDS]`: the sensors whose memory blectld reads, or
/// one sensor's memory read now.
enum MemoryCommand {
    /// blectl waits this much longer than the daemon, which answers at its own timeout.
    static let replyMargin: Double = 15
    /// The daemon's default wait (docs/protocol.md), when --timeout is not given.
    static let defaultTimeout: Double = 60

    static func run(_ context: Context) throws(CLIError) -> ExitStatus {
        guard let text = context.arguments.positionals.first else { return try list(context) }
        guard let address = BluetoothAddress(text) else {
            throw .usage("memory takes a sensor's Bluetooth address (AA:BB:CC:DD:EE:FF), not '\(text)'")
        }
        return try download(address, context)
    }

    /// The `sensor_memory` section of `status`, as `blectl status` shows it.
    private static func list(_ context: Context) throws(CLIError) -> ExitStatus {
        guard context.arguments.value("timeout") == nil else {
            throw .usage("--timeout needs an ADDRESS: it bounds a download")
        }
        let status = try context.connect().request(.status, as: StatusResult.self, timeout: .seconds(10))
        let terminal = context.terminal
        guard let sensors = status.section([SensorMemoryStatus].self) else {
            if terminal.json {
                terminal.printJSON([SensorMemoryStatus]())
            } else {
                terminal.print("blectld reads no sensor memory (sensor_memory = off, or history = no).")
            }
            return .success
        }
        if terminal.json {
            terminal.printJSON(sensors)
        } else if sensors.isEmpty {
            terminal.print("No memory-capable sensor heard since blectld started.")
        } else {
            printTable(sensors, terminal)
        }
        return .success
    }

    /// Asks for a download now and prints the sensor's entry after it.
    private static func download(_ address: BluetoothAddress, _ context: Context) throws(CLIError) -> ExitStatus {
        let seconds = try context.timeout(maximum: ProtocolInfo.maxMemoryDownloadSeconds)
        let wait = (seconds ?? defaultTimeout) + replyMargin
        let reply = try context.connect().request(
            .memoryDownload(address: address, timeout: seconds), timeout: .seconds(wait))
        let terminal = context.terminal
        if terminal.json {
            terminal.printRaw(reply.result)
            return .success
        }
        let sensor = try reply.decode(SensorMemoryStatus.self)
        printTable([sensor], terminal)
        return .success
    }

    private static func printTable(_ sensors: [SensorMemoryStatus], _ terminal: Terminal) {
        let rows = SensorMemoryRows.table(sensors).map { Array($0.dropFirst()) }
        for line in terminal.table(rows, paint: { row, _, text in row == 0 ? terminal.paint(text, .bold) : text }) {
            terminal.print(line)
        }
    }
}
