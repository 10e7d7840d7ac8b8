public import SensorModel
public import BlueZClient
public import SensorModel
public import ConcurrencySupport
import ThermometerProfiles

/// A BLE central over BlueZ, shaped like CoreBluetooth's `CBCentralManager`
/// but with async calls and event streams instead of delegates.
///
/// The manager shares the D-Bus connection's executor, so BlueZ's signals reach
/// it without hops; its observers run there too, after its state is updated.
public actor CentralManager {
    /// The BlueZ client underneath.
    nonisolated let client: BlueZService
    /// The BlueZ client's executor: the central runs on the D-Bus connection's event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { client.unownedExecutor }
    /// The executor (one event loop thread) the central, its BlueZ client and the D-Bus
    /// connection run on; the monitor's reports are made on it. State that follows the
    /// central can run on it too, and then takes every report without a thread hop.
    public nonisolated var executor: EventLoop { client.executor }

    let options: CentralOptions
    /// The central's state.
    public private(set) var state: AdapterState = .unknown
    /// Why the central is not powered on, in words a person can act on; nil when it is.
    public private(set) var stateReason: String?
    /// The adapter GATT connections go through (the first powered adapter in use), when one is.
    private(set) var adapterPath: BlueZPath?
    /// The interface name of the adapter GATT connections go through (`hci0`), when one is.
    public var adapterName: String? { adapterPath?.lastElement }

    private var observers: [UInt64: @Sendable (CentralEvent) -> Void] = [:]
    private var nextObserver: UInt64 = 0
    private let waiters: ConditionWaiters<BlueZPath>
    private var poweringOn: Set<BlueZPath> = []

    // Scanning: what we asked for, and our BlueZ session on each adapter in use.
    var scanFilter: ScanFilter?
    /// Our discovery on each adapter in use (the scan watchdog's measure is per adapter).
    var discovery = AdapterDiscovery()
    /// Listed `hciN` names, resolved to the addresses they had when first seen.
    var resolvedNames: [String: BluetoothAddress] = [:]
    // Notification sessions this client holds (they die with the GATT object or bluetoothd).
    var notifySessions: Set<BlueZPath> = []
    // Bumped on every `Connected=false`, so waits can tell a drop from a stale value.
    var disconnects: [BlueZPath: Int] = [:]
    /// The kernel's management socket, when advertisements may come through it (`advert_source`).
    var management: ManagementSocket?
    /// Whether advertisements are reported from the management socket, not from BlueZ's
    /// signals: while it is open and discovery scans actively (``reportManagementAdvertisements(_:)``).
    var managementReports = false
    /// The adapters in use by controller index (`hciN`'s N), for the management socket's events.
    var managementAdapters: [UInt16: BlueZPath] = [:]
    /// Events of the management socket that could not be decoded.
    var managementErrors = 0
    /// Which adapter owns each device; nil (and no work per advertisement) while one
    /// adapter is in use.
    var ownership: AdapterOwnership?
    /// The adapters in use at the last ``recomputeState()``, the powered ones among them, and
    /// those left out for the address of another: a change is ``CentralEvent/adaptersChanged``.
    private(set) var adaptersInUse: (all: [BlueZPath], powered: Set<BlueZPath>, duplicates: [BlueZPath]) = ([], [], [])

    /// Creates a central over a BlueZ client; call ``start()`` next.
    init(client: BlueZService, options: CentralOptions = CentralOptions()) {
        self.client = client
        self.options = options
        waiters = ConditionWaiters(loop: client.executor)
    }

    /// Starts following BlueZ (whose first snapshot the client took) and computes the
    /// first state.
    func start() async {
        await client.addObserver { [weak self] event in
            self?.assumeIsolated(passing: event) { $0.handle($1) }
        }
        resolveAdapterNames()
        recomputeState()
    }

    // MARK: Observers

    /// Calls `observer` on the connection's executor for every event.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (CentralEvent) -> Void) -> UInt64 {
        nextObserver += 1
        observers[nextObserver] = observer
        return nextObserver
    }

    /// Removes an observer.
    public func removeObserver(_ token: UInt64) { observers[token] = nil }

    /// Events as a bounded stream (the newest `bufferSize` kept when the consumer lags).
    public func events(bufferSize: Int = 1024) -> AsyncStream<CentralEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CentralEvent.self, bufferingPolicy: .bufferingNewest(bufferSize))
        let token = addObserver { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(token) } }
        return stream
    }

    func emit(_ event: CentralEvent) {
        for observer in observers.values { observer(event) }
    }

    // MARK: Waiting

    /// Waits until `condition` returns a value, checked now and after every
    /// event; nil when `timeout` passes first or the task is cancelled.
    ///
    /// Conditions are not checked after `Value` updates (notifications and read
    /// echoes): follow ``CentralEvent/valueUpdated(_:_:)`` for those.
    ///
    /// - Parameter device: when given, the condition depends only on that device's
    ///   objects (its `Device1` and GATT objects) and on global state (adapters,
    ///   bluetoothd, ``state``), and is checked only after changes of those.
    public func wait<T: Sendable>(
        timeout: Duration?, device: BlueZPath? = nil,
        until condition: @escaping @Sendable (isolated CentralManager) -> T?
    ) async -> T? {
        await waiters.wait(timeout: timeout, scope: device) { condition(self) }
    }

    // MARK: State

    func recomputeState() {
        resolveAdapterNames()
        let (selected, duplicates) = adapterSelection()
        let inUse = (
            all: selected.map(\.path), powered: Set(selected.filter(\.powered).map(\.path)),
            duplicates: duplicates.map(\.path)
        )
        defer {
            if inUse.all != adaptersInUse.all || inUse.powered != adaptersInUse.powered
                || inUse.duplicates != adaptersInUse.duplicates
            {
                adaptersInUse = inUse
                emit(.adaptersChanged)
            }
        }
        followAdapters(selected.map(\.path), present: mirror { $0.adapters().count })
        followOwnership(selected)
        let adapter = selected.first(where: { $0.powered && $0.supportsCentral }) ?? selected.first
        adapterPath = adapter?.path
        let newState: AdapterState
        if mirror({ $0.accessDenied }) != nil {
            newState = .unauthorized
        } else if !mirror({ $0.isServiceAvailable }) {
            newState = state == .unknown || state == .unsupported ? .unsupported : .resetting
        } else if let adapter {
            newState = adapter.powered ? .poweredOn : .poweredOff
        } else {
            newState = .unsupported
        }
        if options.powerOnAdapter, mirror({ $0.isServiceAvailable }) {
            for off in selected where !off.powered && off.supportsCentral { powerOn(off.path) }
        }
        let reason = stateReason(newState)
        guard newState != state || reason != stateReason else { return }
        state = newState
        stateReason = reason
        emit(.stateChanged(newState))
    }

    /// Why `state` is not powered on, in words a person can act on; nil when it is.
    private func stateReason(_ state: AdapterState) -> String? {
        switch state {
        case .poweredOn, .unknown:
            return nil
        case .unauthorized:
            return "BlueZ refused access (D-Bus AccessDenied): run as root or as a member of the 'bluetooth' group"
        case .resetting:
            return "bluetoothd is not running (org.bluez left the bus); waiting for it to come back"
        case .poweredOff:
            return "adapter \(adapterName ?? "?") is powered off"
        case .unsupported:
            guard mirror({ $0.isServiceAvailable }) else {
                return "bluetoothd is not running (org.bluez is not on the bus)"
            }
            if options.adapters != nil {
                let missing = missingAdapters
                return missing.isEmpty
                    ? "bluetoothd has no adapter that can act as a central"
                    : "bluetoothd has none of the adapters configured (\(missing.joined(separator: ", ")))"
            }
            return switch options.adapter {
            case .automatic: "bluetoothd has no adapter that can act as a central"
            case .name(let name): "bluetoothd has no adapter \(name) that can act as a central"
            case .address(let address): "bluetoothd has no adapter \(address) that can act as a central"
            }
        }
    }

    private func powerOn(_ path: BlueZPath) {
        guard poweringOn.insert(path).inserted else { return }
        Task {
            try? await client.setPowered(path, true)
            poweringOn.remove(path)
        }
    }

    // MARK: BlueZ events

    private func handle(_ event: BlueZEvent) {
        handleState(event)
        noteSound(event)
        waiters.evaluate(Self.trigger(of: event))
    }

    /// Restarts the silence clock on what only a working radio brings: an advertisement, a
    /// new device, a link coming up, a characteristic value. A link going down or a device
    /// removed can be bluetoothd's own doing (our `Disconnect`, its timeouts) and does not count.
    private func noteSound(_ event: BlueZEvent) {
        let path: BlueZPath
        switch event {
        case .deviceAdvertised(let device, _), .characteristicValue(let device, _), .deviceConnected(let device, true),
            .added(let device, .device):
            path = device
        default: return
        }
        guard let adapter = discovery.heard(path) else { return }
        emit(.heardAgain(adapter))
    }

    private func handleState(_ event: BlueZEvent) {
        switch event {
        case .serviceAppeared, .serviceVanished:
            notifySessions = []
            for adapter in discovery.activePaths { setDiscovery(adapter, false) }
            recomputeState()
            if case .serviceAppeared = event { resumeScanIfWanted() }
        case .added(let path, let kind):
            switch kind {
            case .adapter:
                recomputeState()
                resumeScanIfWanted()
            case .device:
                if ownership != nil { noteHearing(path, device(path)?.rssi) }
                reportDiscovery(path)
                if !managementReports { reportFirstAdvertisement(path) }
            case .service, .characteristic, .descriptor: servicesChanged(path)
            }
        case .removed(let path, let kind):
            removed(path, kind)
        case .adapterPowered(let path, let powered):
            if !powered { setDiscovery(path, false) }
            recomputeState()
            if powered { resumeScanIfWanted() }
        case .deviceConnected(let path, false):
            guard let address = path.deviceAddress else { return }
            disconnects[path, default: 0] += 1
            if ownership != nil { noteLinkEnded(path) }
            emit(.disconnected(address, path))
        case .deviceAdvertised(let path, let update):
            if ownership != nil { noteHearing(path, update.rssi) }
            if scanFilter != nil { reportDiscovery(path) }
            if !managementReports { reportAdvertisement(path, update) }
        case .characteristicValue(let path, let bytes):
            // Every value, notification or read echo, in the order BlueZ sent it.
            emit(.valueUpdated(path, bytes))
        case .characteristicNotifying(let path, false):
            notifySessions.remove(path)
        case .adapterDiscovering, .deviceConnected, .deviceServicesResolved, .characteristicNotifying:
            return
        }
    }

    private func removed(_ path: BlueZPath, _ kind: BlueZObjectKind) {
        switch kind {
        case .adapter:
            recomputeState()
        case .device:
            guard let address = path.deviceAddress else { return }
            disconnects[path, default: 0] += 1
            if ownership != nil { noteDeviceRemoved(path) }
            emit(.peripheralRemoved(address, path))
        case .characteristic:
            notifySessions.remove(path)
            servicesChanged(path)
        case .service, .descriptor:
            servicesChanged(path)
        }
    }

    /// GATT objects under a device came or went.
    private func servicesChanged(_ path: BlueZPath) {
        guard let device = path.device, let address = device.deviceAddress else { return }
        emit(.servicesChanged(address, device))
    }

    /// The waiters an event can concern: `Value` updates concern none, changes below a
    /// device that device's, anything else all.
    private static func trigger(of event: BlueZEvent) -> WaitTrigger<BlueZPath> {
        switch event {
        case .characteristicValue: .none
        case .serviceAppeared, .serviceVanished: .everything
        default: event.path?.device.map { .scope($0) } ?? .everything
        }
    }
}
