import BlectlProtocol
import Central
import ReadingHub
import SensorModel
import Dispatch
import Glibc
import ConcurrencySupport
public import UnixSupport

/// blectld's life: start everything, serve until SIGTERM, shut down cleanly.
public struct DaemonRunner: Sendable {
    let configuration: DaemonConfiguration
    let log: Log
    /// The command line the configuration came from (SIGHUP reads it again).
    let arguments: [String]
    private let notifier = SystemdNotifier()
    private let signals: AsyncStream<UnixSignal>

    /// Creates a runner for a configuration loaded from `arguments`, and from now on
    /// watches SIGTERM, SIGINT and SIGHUP: create it before starting anything that can
    /// fail or take time (the mock stack), so a SIGTERM meanwhile is not lost. One per process.
    public init(configuration: DaemonConfiguration, log: Log, arguments: [String]) {
        self.configuration = configuration
        self.log = log
        self.arguments = arguments
        signals = SignalWatcher.stream([.terminate, .interrupt, .hangup])
    }

    /// Runs the daemon; returns its exit status.
    ///
    /// - Parameters:
    ///   - mockBus: the private bus of the mock stack (`--mock`); nil for the system bus.
    ///   - stateDirectory: where the history database lives.
    public func run(mockBus: String? = nil, stateDirectory: String) async -> Int32 {
        ProcessSignals.ignoreBrokenPipe()
        let bus: BlueZBus = mockBus.map { .address($0) } ?? .system
        let central: CentralManager
        do {
            central = try await CentralManager.connect(
                to: bus, options: centralOptions, diagnostics: { [log] in log.warning("BlueZ: \($0)") })
        } catch {
            log.error("cannot connect to the \(mockBus == nil ? "system" : "mock") D-Bus bus: \(error)")
            return ExitCode.failure
        }
        let service: DaemonService
        do {
            service = try DaemonService(
                configuration: configuration, stateDirectory: stateDirectory, log: log, executor: central.executor,
                inheritedListener: listenFDs().first)
        } catch {
            log.error("\(error)")
            await central.close()
            return ExitCode.configuration
        }
        let bridge = CentralBridge(
            hub: service.hub, central: central, configuration: thermometerConfiguration,
            advertisements: advertisementConfiguration, log: log)
        let sources = [makeHostCPU(central.executor, service.hub)].compactMap { $0 } + bridge.sources
        await service.hub.attach(bridge)
        await bridge.contributeStatus(to: service.hub)
        // Before the socket serves: a request meanwhile is told why.
        await service.hub.sensorMemoryUnavailable(because: sensorMemoryOff ?? "blectld is starting")
        do {
            try await service.start()
        } catch {
            log.error("\(error)")
            await central.close()
            return error.isConfiguration ? ExitCode.configuration : ExitCode.failure
        }
        do {
            try await bridge.openAdvertisementSource()
        } catch {
            log.error("advert_source = mgmt: \(error)")
            await service.stop()
            await central.close()
            return ExitCode.failure
        }
        let stops = await stopCauses(signals, central)
        await reportState(central)
        for source in sources {
            log.debug("starting the \(source.sourceName) source")
            await source.start()
        }
        let memory = makeSensorMemory(service.hub, bridge)
        await memory?.start()
        await announceReady(service.hub, central)
        let cause = await serve(until: stops, bus: mockBus == nil ? "system" : "mock adapter's")
        log.notice("stopping")
        try? notifier.stopping()
        await memory?.stop()
        for source in sources {
            log.debug("stopping the \(source.sourceName) source")
            await source.shutdown()
        }
        await service.stop()
        await central.close()
        return cause == .busLost ? ExitCode.failure : ExitCode.success
    }

    /// Why the daemon stops: a signal, or the D-Bus connection gone (nothing works
    /// without it, so blectld exits with an error and systemd starts it again).
    private enum StopCause: Equatable, Sendable {
        case signal(UnixSignal)
        case busLost
    }

    private func stopCauses(_ signals: AsyncStream<UnixSignal>, _ central: CentralManager) async -> AsyncStream<
        StopCause
    > {
        let (causes, continuation) = AsyncStream.makeStream(of: StopCause.self)
        Task {
            for await signal in signals { continuation.yield(.signal(signal)) }
        }
        await central.onBusLost { continuation.yield(.busLost) }
        return causes
    }

    private func serve(until causes: AsyncStream<StopCause>, bus: String) async -> StopCause {
        for await cause in causes {
            switch cause {
            case .signal(.hangup):
                reload()
            case .signal(let signal):
                log.notice("received \(signal)")
                return cause
            case .busLost:
                log.error("lost the connection to the \(bus) D-Bus bus (dbus-daemon stopped?); exiting")
                return cause
            }
        }
        return .busLost
    }

    /// SIGHUP: re-reads the configuration file; the log level takes effect at
    /// once, other changes on restart (they shape connections already made).
    ///
    /// systemd hears `RELOADING=1` before and `READY=1` after (sd_notify(3)), so
    /// `systemctl reload` waits for it and a `Type=notify-reload` unit works too; a reload
    /// that fails keeps the running configuration, so it is ready again either way.
    private func reload() {
        try? notifier.reloading()
        defer { try? notifier.ready() }
        do {
            guard
                case .run(let fresh) = try DaemonConfiguration.load(
                    arguments: arguments, environment: ProcessEnvironment.current)
            else { return }
            log.setLevel(fresh.logLevel)
            var rest = fresh
            rest.logLevel = configuration.logLevel
            let note = rest == configuration ? "" : "; other changes apply on restart"
            log.notice("reloaded \(configuration.configPath): log level \(fresh.logLevel)\(note)")
        } catch {
            log.error("reload: \(error); keeping the running configuration")
        }
    }

    private func reportState(_ central: CentralManager) async {
        let state = await central.state
        if state == .unauthorized {
            log.error(
                "BlueZ refused access (D-Bus AccessDenied): run blectld as root or as a member of the "
                    + "'bluetooth' group (the systemd unit does this)")
        }
    }

    private func announceReady(_ hub: Hub, _ central: CentralManager) async {
        let notifier = notifier
        let status = await hub.status()
        try? notifier.ready(status: Self.statusLine(status))
        log.notice("ready: socket \(configuration.socket.path)")
        // STATUS= follows the adapter and the links, not every reading.
        await hub.addListener { event in
            guard [.adapterState, .connected, .disconnected].contains(event.type) else { return }
            Task { try? notifier.status(Self.statusLine(await hub.status())) }
        }
        if let interval = SystemdNotifier.watchdogInterval() { startWatchdog(interval, central) }
    }

    /// Pings systemd's watchdog from the D-Bus executor, so a wedged event loop stops the pings.
    private func startWatchdog(_ interval: Duration, _ central: CentralManager) {
        let notifier = notifier
        Task {
            while !Task.isCancelled {
                try? await central.executor.sleep(for: interval / 2)
                await central.ping()
                try? notifier.watchdog()
            }
        }
    }

    static func statusLine(_ status: StatusResult) -> String {
        "adapter \(status.adapter ?? "-") \(status.state.rawValue), \(status.connected.count) connected"
    }

    private var centralOptions: CentralOptions {
        // The mock's controllers are reset through the mock: never the machine's own.
        CentralOptions(
            adapter: configuration.adapterSelection.single, adapters: configuration.adapterSelection.set,
            powerOnAdapter: configuration.powerOnAdapter,
            controllerReset: configuration.mock ? .mockAdapter : .hci)
    }

    private var thermometerConfiguration: ThermometerConfiguration {
        var thermometers = configuration.thermometers
        let extra = configuration.serviceUUIDs.compactMap(BluetoothUUID.init)
        thermometers.profiles = thermometers.profiles.addingPiCPUTemperatureUUIDs(services: extra)
        thermometers.maxDevices = configuration.hub.peripherals
        thermometers.keepsScanning = configuration.advertisements.isEnabled
        return thermometers
    }

    /// The host CPU device, when `host_cpu = yes` and the machine has a thermal zone.
    private func makeHostCPU(_ executor: EventLoop, _ hub: Hub) -> (any SensorSource)? {
        let settings = configuration.advertisements
        guard settings.hostCPU else { return nil }
        return HostCPUSource.make(
            zone: settings.hostCPUZone, interval: settings.hostCPUInterval, executor: executor, log: log,
            report: CentralBridge.reporter(to: hub))
    }

    /// The sensors' memory downloads, when `sensor_memory = auto` and the history is kept
    /// (gaps are found, and duplicates dropped, against it).
    private func makeSensorMemory(_ hub: Hub, _ bridge: CentralBridge) -> SensorMemoryService? {
        guard sensorMemoryOff == nil else { return nil }
        let synchronized = gatewayClockSynchronized
        return SensorMemoryService(
            hub: hub, monitor: bridge.monitor, settings: configuration.sensorMemory, log: log,
            clockSynchronized: synchronized)
    }

    /// Whether the gateway's clock may be pushed to sensors: what `adjtimex` says, unless
    /// blectld runs on the mock and `BLECTL_MOCK_CLOCK_SYNCHRONIZED` says (tests on a host
    /// whose own clock is not synchronised, or is).
    private var gatewayClockSynchronized: @Sendable () -> Bool {
        if configuration.mock, let text = ProcessEnvironment.current[Self.mockClockVariable] {
            let answer = text == "yes"
            return { answer }
        }
        return { SystemClock.isSynchronized() }
    }

    /// With `--mock`: `yes` or `no`, the gateway's clock taken as synchronised or not.
    static let mockClockVariable = "BLECTL_MOCK_CLOCK_SYNCHRONIZED"

    /// Why no sensor memory is read, naming the setting; nil when it is.
    private var sensorMemoryOff: String? {
        if !configuration.sensorMemory.isEnabledForAny { return "sensor memory is off (sensor_memory = off)" }
        if !configuration.history { return "sensor memory needs the history, which is off (history = no)" }
        return nil
    }

    /// What the advertisement monitor reads; nil when `advert_profiles = none`.
    private var advertisementConfiguration: AdvertisementConfiguration? {
        let settings = configuration.advertisements
        guard settings.isEnabled else { return nil }
        var registry = AdvertisementRegistry.standard
        if let ids = settings.profiles {
            registry = AdvertisementRegistry(profiles: registry.profiles.filter { ids.contains($0.id) })
        }
        var advertisements = AdvertisementConfiguration(
            registry: registry, keys: configuration.advertisementKeys,
            devices: settings.devices.map { .only($0) } ?? .all,
            minInterval: settings.minInterval, staleAfter: settings.staleAfter, maxDevices: settings.maxDevices)
        advertisements.scanMode = settings.scanMode
        advertisements.source = settings.source
        return advertisements
    }
}
