import BlectlProtocol

extension StatusCommand {
    /// One row per adapter in use and per configured adapter missing, when there is more
    /// than one adapter or one is missing (a single adapter is the `Adapter:` row alone).
    static func adapterRows(_ adapters: [AdapterStatus], missing: [String], _ terminal: Terminal) -> [[String]] {
        guard adapters.count > 1 || !missing.isEmpty else { return [] }
        let lines = adapters.map { adapterLine($0, terminal) } + missing.map { "\($0) configured, not present" }
        return lines.enumerated().map { index, line in [index == 0 ? "Adapters:" : "", line] }
    }

    /// `hci1 00:1A:7D:DA:71:11 (BlueZ 5.66): powered, discovering, 8 devices heard, 5 owned, 1 of 5
    /// links, 1 connected` (the links blectld holds of `max_connections`, from daemons that tell).
    static func adapterLine(_ adapter: AdapterStatus, _ terminal: Terminal) -> String {
        var line = adapter.name
        if let address = adapter.address { line += " \(address)" }
        if let alias = adapter.alias { line += " (\(alias))" }
        let power = terminal.paint(adapter.powered ? "powered" : "off", adapter.powered ? .green : .yellow)
        line += ": \(power), \(adapter.discovering ? "discovering" : "not discovering")"
        line += ", \(adapter.devicesHeard) device\(adapter.devicesHeard == 1 ? "" : "s") heard"
        line += ", \(adapter.devicesOwned) owned"
        if let links = adapter.links, let limit = adapter.linkLimit { line += ", \(links) of \(limit) links" }
        line += ", \(adapter.connected) connected"
        if adapter.primary { line += ", primary" }
        if let steps = adapter.recoverySteps, steps > 0 { line += ", \(steps) recovery step\(steps == 1 ? "" : "s")" }
        return line
    }
}
