import BlectlProtocol
import SensorModel

/// The page's table of adapters (several adapters, issue 36): shown when more than one is in
/// use or a configured one is missing; a machine with one adapter keeps the summary line alone.
extension DashboardPage {
    func adapterTable() -> String {
        let adapters = snapshot.status.section([AdapterStatus].self) ?? []
        let missing = snapshot.status.section(MissingAdapters.self)?.adapters ?? []
        guard adapters.count > 1 || !missing.isEmpty else { return "" }
        var html = "<table class=\"adapters\">\n<caption>Adapters</caption>\n"
        html += "<thead><tr><th>interface</th><th>address</th><th>state</th><th>devices heard</th>"
        html += "<th>owned</th><th>links</th><th>connected</th></tr></thead>\n<tbody>\n"
        for adapter in adapters {
            let state = [
                adapter.powered ? "on" : "off", adapter.discovering ? "scanning" : nil,
                adapter.primary ? "primary" : nil,
                adapter.recoverySteps.flatMap { $0 > 0 ? "\($0) recovery step\($0 == 1 ? "" : "s")" : nil },
            ].compactMap { $0 }.joined(separator: ", ")
            html += "<tr class=\"\(adapter.powered ? "on" : "off")\" data-adapter=\"\(escaped(adapter.name))\">"
            html +=
                "<td>\(escaped(adapter.name))</td><td class=\"address\">\(escaped(adapter.address?.description ?? "–"))</td>"
            let links =
                adapter.links.map { links in adapter.linkLimit.map { "\(links) of \($0)" } ?? "\(links)" } ?? "–"
            html += "<td>\(escaped(state))</td><td>\(adapter.devicesHeard)</td><td>\(adapter.devicesOwned)</td>"
            html += "<td class=\"links\">\(links)</td><td>\(adapter.connected)</td></tr>\n"
        }
        for adapter in missing {
            html += "<tr class=\"missing\" data-adapter=\"\(escaped(adapter))\"><td>–</td>"
            html += "<td class=\"address\">\(escaped(adapter))</td><td>configured, not present</td>"
            html += "<td></td><td></td><td></td><td></td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }
}
