public import BlectlProtocol
public import Central
public import ReadingHub
public import SensorModel
import ConcurrencySupport
public import UnixSupport

/// Connects the BLE side to the hub: thermometer events become hub events, in
/// order, and the hub's scan and read requests go to the monitor.
public final class CentralBridge: CentralControl {
    private let hub: Hub
    let monitor: ThermometerMonitor
    /// The advertising sensors' monitor, when some advertisement format is read.
    private let advertisements: AdvertisingSensorMonitor?

    /// Creates the monitor over `central` and starts forwarding its events to `hub`.
    ///
    /// Events are applied on the hub's event loop in the order the monitor reported
    /// them; when the hub shares the central's executor (as in blectld) that is the
    /// thread the monitor reports on, so a reading reaches the hub without a hop.
    ///
    /// - Parameter advertisements: what the advertisement monitor reads; nil for none (the
    ///   thermometer configuration should then not keep discovery on).
    public init(
        hub: Hub, central: CentralManager, configuration: ThermometerConfiguration,
        advertisements: AdvertisementConfiguration? = nil, log: Log
    ) {
        self.hub = hub
        let report = Self.reporter(to: hub)
        let monitor = ThermometerMonitor(central: central, configuration: configuration, log: log, report: report)
        self.monitor = monitor
        self.advertisements = advertisements.map {
            // Both monitors run on the central's executor: the switch is synchronous.
            AdvertisingSensorMonitor(
                central: central, configuration: $0, log: log,
                discovery: { on in monitor.assumeIsolated { $0.keepScanning(on) } }, report: report)
        }
    }

    /// Applies a source's events to `hub`, in the order the source reported them.
    public static func reporter(to hub: Hub) -> @Sendable (SensorEvent) -> Void {
        { [hub] event in
            // On the hub's loop already (blectld): apply now. Every event comes this one
            // way, so the order holds either way.
            if hub.executor.isCurrent {
                hub.assumeIsolated(passing: event) { $0.apply($1) }
            } else {
                hub.executor.execute { hub.assumeIsolated { $0.apply(event) } }
            }
        }
    }

    /// The Bluetooth sources, in the order the daemon starts and stops them: the
    /// advertisement monitor (when some format is read), then the GATT thermometers.
    public var sources: [any SensorSource] {
        let advertising: [any SensorSource] = advertisements.map { [$0] } ?? []
        return advertising + [monitor]
    }

    /// Opens the advertisements' source (`advert_source`) before the sources start; throws
    /// when `advert_source = mgmt` and the management socket cannot be opened.
    public func openAdvertisementSource() async throws(CentralError) {
        try await advertisements?.openSource()
    }

    /// Scans for `duration` (a `scan` request), on top of the monitor's own windows.
    public func scan(for duration: Duration) async throws {
        await monitor.scan(for: duration)
    }

    /// Scans for `duration`, and returns each adapter's RSSI of each device heard at its end.
    public func scanHearings(for duration: Duration) async throws -> [BluetoothAddress: [AdapterHearing]] {
        let hearings = await monitor.scanHearings(for: duration)
        return Dictionary(
            uniqueKeysWithValues: hearings.map { address, heard in
                (address, heard.map { AdapterHearing(adapter: $0.adapter, rssi: $0.rssi) })
            })
    }

    /// Adds the advertisement sensors' part of `status` (when some format is read) and the
    /// scan watchdog's (when the watchdog is on).
    public func contributeStatus(to hub: Hub) async {
        if let advertisements {
            await hub.addStatusContributor { status in
                status.setSection(AdvertisementStatus(await advertisements.statistics))
            }
        }
        let monitor = monitor
        await hub.addStatusContributor { status in
            if let ladder = await monitor.scanWatchdogStatus { status.setSection(Self.status(of: ladder)) }
            await Self.addAdapters(to: &status, monitor)
        }
    }

    /// The adapters in use, with their watchdogs' steps, and those configured but missing.
    private static func addAdapters(to status: inout StatusResult, _ monitor: ThermometerMonitor) async {
        let central = monitor.central
        let reports = await central.adapterReports()
        let missing = await central.missingAdapters
        let ladders = await monitor.scanWatchdogStatuses
        let links = await monitor.linksByAdapter
        let adapters = reports.map { report in
            AdapterStatus(
                name: report.name, address: report.address, alias: report.alias, powered: report.powered,
                discovering: report.discovering, devicesHeard: report.devicesHeard,
                devicesOwned: report.devicesOwned, connected: report.connected,
                links: links[report.name, default: 0], linkLimit: monitor.linkLimit, primary: report.isPrimary,
                recoverySteps: ladders.first { $0.key.lastElement == report.name }.map {
                    $0.value.steps.values.reduce(0, +)
                })
        }
        status.setSection(adapters)
        status.setSection(missing.isEmpty ? nil : MissingAdapters(missing))
    }

    static func status(of ladder: RecoveryLadderStatus) -> ScanWatchdogStatus {
        let (seconds, attoseconds) = ladder.period.components
        return ScanWatchdogStatus(
            periodSeconds: Double(seconds) + Double(attoseconds) / 1e18, adapterReset: ladder.adapterReset,
            silent: ladder.silent, discoveryRestarts: ladder.steps[.restartDiscovery] ?? 0,
            powerCycles: ladder.steps[.powerCycle] ?? 0, controllerResets: ladder.steps[.resetController] ?? 0,
            controllerResetFailures: ladder.resetFailures, recoveries: ladder.recoveries,
            lastStep: ladder.lastStep?.rawValue, lastRecoveredBy: ladder.lastRecoveredBy?.rawValue)
    }

    /// Reads the thermometer at `address` now (a `read` request).
    public func readNow(address: BluetoothAddress) async throws {
        do {
            try await monitor.readNow(address)
        } catch {
            throw ErrorInfo(.unavailable, "\(error)")
        }
    }
}

extension AdvertisementStatus {
    /// The monitor's counts as `status` shows them.
    init(_ statistics: AdvertisementStatistics, now: Timestamp = .now()) {
        self.init(
            scanMode: statistics.scanMode.rawValue, advertisements: statistics.advertisements,
            readings: statistics.readings,
            duplicates: statistics.duplicates, lostPackets: statistics.lostPackets, errors: statistics.errors,
            forgotten: statistics.forgotten,
            sensors: statistics.sensors.map { sensor in
                var entry = Sensor(
                    address: sensor.address, profile: sensor.profile?.rawValue, readings: sensor.readings,
                    lostPackets: sensor.lostPackets, staleAfter: Self.seconds(sensor.staleAfter), lost: sensor.lost)
                let silent = sensor.silentFor.components
                entry.lastHeard = Timestamp(
                    millisecondsSince1970: now.millisecondsSince1970 - silent.seconds * 1000 - silent.attoseconds
                        / 1_000_000_000_000_000)
                entry.interval = sensor.interval.map(Self.seconds)
                entry.adapters =
                    sensor.heardBy.isEmpty
                    ? nil
                    : sensor.heardBy.map {
                        AdapterHearing(
                            adapter: $0.adapter, rssi: $0.rssi, lastHeard: Self.timestamp(now, minus: $0.silentFor))
                    }
                entry.setReception(
                    countedBy: sensor.countedBy?.rawValue, received: sensor.received, missed: sensor.missed,
                    receivedLastHour: sensor.receivedLastHour, missedLastHour: sensor.missedLastHour)
                return entry
            })
    }

    private static func timestamp(_ now: Timestamp, minus duration: Duration) -> Timestamp {
        let (seconds, attoseconds) = duration.components
        return Timestamp(
            millisecondsSince1970: now.millisecondsSince1970 - seconds * 1000 - attoseconds / 1_000_000_000_000_000)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
