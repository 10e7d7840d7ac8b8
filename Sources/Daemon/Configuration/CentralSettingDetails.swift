import UnixSupport

/// The long documentation of the central's and the hub's settings (`names`, `reconnect_*`,
/// `max_connect*`, `scan_watchdog`, `adapter_reset`; `scan_timeout`, `max_devices`).
///
/// It belongs in those modules' tables, beside the rest of each declaration; it is attached
/// here, by key, until it moves there. A key of those tables without an entry here is left
/// undocumented, which the sample configuration's test refuses.
enum CentralSettingDetails {
    /// `settings`, each with its details and, where its factory cannot spell its value, how.
    static func documented(_ settings: [ConfigurationSetting]) -> [ConfigurationSetting] {
        settings.map { setting in
            guard let details = details[setting.key] else { return setting }
            return setting.documented(details, shown: shown[setting.key])
        }
    }

    /// How the values parsed by closures of their own are spelled.
    private static let shown: [String: @Sendable (DaemonConfiguration) -> String] = [
        "names": { $0.thermometers.names.joined(separator: ", ") },
        "scan_watchdog": { $0.thermometers.scanWatchdog.map(DurationText.spelling) ?? "off" },
    ]

    private static let details: [String: String] = [
        "names": "The advertised local names that mark a thermometer.",
        "gatt_thermometers": "Look for GATT thermometers (by *names* and *service_uuids*) and connect to them. _no_ "
            + "reads advertising sensors only: no discovery of its own for the search, no connections; with "
            + "passive scanning (*scan_mode*) discovery then stays off.",
        "reconnect_min": "The first reconnection delay after a thermometer is lost, 0.1 s to 1 h.",
        "reconnect_max": "The largest reconnection delay (delays double up to it), 0.1 s to 1 day, and not below "
            + "*reconnect_min*.",
        "reconnect_jitter": "The random spread of each delay, 0 to 1 (0.2 = ±20 %).",
        "max_connecting": "Connection attempts under way at once, 1 to 64 (controllers connect one device at a "
            + "time). Thermometers wait their turn; those that worked before go first.",
        "max_connections": "Links held at once, 1 to 1000: the slot count most controllers handle well. With "
            + "several adapters (*adapters*), the limit is for all of them together, and a thermometer connects "
            + "through the adapter that hears it best while that adapter holds fewer than _N_ links, else "
            + "through the next best. Thermometers that worked before keep their slots and go first; a "
            + "thermometer left out is logged and reported (a _disconnected_ event whose reason begins "
            + "\"left out\").",
        "scan_watchdog": "While discovery runs and devices are expected, hearing nothing at all from any device "
            + "this long starts the recovery ladder (README, \"Recovery ladder\"): discovery is restarted; if it "
            + "stays silent as long again, the adapter is switched off and on (_Adapter1.Powered_); then, with "
            + "*adapter_reset*, the controller is reset below bluetoothd. The ladder starts over with longer "
            + "waits (up to 32 times this) while the silence lasts. 1 s to 1 day; _0_, _off_ or _no_ turns it off.",
        "adapter_reset": "Let the recovery ladder's last step reset the controller with libbluetooth's HCI calls "
            + "(HCI down and up). This needs *CAP_NET_ADMIN*, which the unit grants only with the drop-in "
            + "_blectld-adapter-reset.conf_.",
        "scan_timeout": "How long a *blectl scan* lasts when it names no timeout, 1 s to 300 s.",
        "max_devices": "Devices tracked, thermometers or not (names, last sightings, the _peripherals_ table), 16 "
            + "to 100000; the one unseen longest is forgotten first (never a connected one, nor a thermometer "
            + "known to work). A crowded place may hold thousands.",
    ]
}
