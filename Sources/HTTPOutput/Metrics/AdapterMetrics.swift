import BlectlProtocol
import SensorModel

/// The per-adapter families of `/metrics` (several adapters, issue 36; docs/http.md): one
/// series per adapter in use, labelled `adapter` (its address, its identity: kept when a USB
/// reset renumbers it) and `interface` (its `hciN` now). A configured adapter that is not
/// present is `blectl_adapter_up{…} 0` with an empty `interface`. The unlabelled families
/// (`blectl_adapter_powered`, `blectl_scan_watchdog_*`) stay as they were.
extension MetricsPage {
    static func writeAdapters(_ status: StatusResult, to out: inout PrometheusText) {
        let labels = { (adapter: AdapterStatus) -> KeyValuePairs<String, String> in
            ["adapter": adapter.address?.description ?? adapter.name, "interface": adapter.name]
        }
        let adapters = status.section([AdapterStatus].self) ?? []
        let missing = status.section(MissingAdapters.self)?.adapters ?? []
        let families: [PrometheusText.Family<AdapterStatus>] = [
            (
                "blectl_adapter_up", .gauge, "1 when the adapter is present and powered on, else 0.",
                { $0.powered ? 1 : 0 }
            ),
            (
                "blectl_adapter_discovering", .gauge,
                "1 while blectld holds a discovery session on the adapter, else 0.", { $0.discovering ? 1 : 0 }
            ),
            (
                "blectl_adapter_devices_heard", .gauge, "Devices the adapter hears in the current discovery.",
                { Double($0.devicesHeard) }
            ),
            ("blectl_adapter_connected", .gauge, "Devices connected through the adapter.", { Double($0.connected) }),
            (
                "blectl_adapter_devices_owned", .gauge,
                "Devices the adapter owns (hears best of the adapters in use; with one, those it hears).",
                { Double($0.devicesOwned) }
            ),
            (
                "blectl_adapter_links", .gauge,
                "Links blectld holds or is opening through the adapter (counted against max_connections).",
                { $0.links.map(Double.init) }
            ),
            (
                "blectl_adapter_link_limit", .gauge, "Links the adapter may hold (max_connections, per adapter).",
                { $0.linkLimit.map(Double.init) }
            ),
            (
                "blectl_adapter_recovery_steps_total", .counter,
                "Steps the adapter's scan watchdog took since blectld started (with scan_watchdog on).",
                { $0.recoverySteps.map(Double.init) }
            ),
        ]
        // A missing adapter's `up` sample ends the first family, before the next one starts.
        out.families([families[0]], of: adapters, labels: labels)
        for adapter in missing { out.sample(families[0].name, ["adapter": adapter, "interface": ""], 0) }
        out.families(Array(families.dropFirst()), of: adapters, labels: labels)
    }
}
