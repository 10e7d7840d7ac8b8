public import SensorModel
public import BlueZClient
public import DBusCore
public import UnixSupport
import ThermometerProfiles

/// A BLE central over BlueZ, shaped like CoreBluetooth's `CBCentralManager`
/// but with async calls and event streams instead of delegates.
///
/// The manager shares the D-Bus connection's executor, so BlueZ's signals reach
/// it without hops; its observers run there too, after its state is updated.
public actor CentralManager {
    /// The BlueZ client underneath.
    public nonisolated let client: BlueZService
    /// The BlueZ client's executor: the central runs on the D-Bus connection's event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { client.unownedExecutor }
    /// The executor (one event loop thread) the central, its BlueZ client and the D-Bus
    /// connection run on; the monitor's reports are made on it. State that follows the
    /// central can run on it too, and then takes every report without a thread hop.
    public nonisolated var executor: EventLoop { client.connection.executor }

    let options: CentralOptions
    /// The central's state.
    public private(set) var state: AdapterState = .unknown
    /// The adapter in use, when one is.
    public private(set) var adapterPath: ObjectPath?

    private var observers: [UInt64: @Sendable (CentralEvent) -> Void] = [:]
    private var nextObserver: UInt64 = 0
    private var waiters = Waiters()
    private var poweringOn = false

    // Scanning: what we asked for, and whether our BlueZ session is on.
    var scanFilter: ScanFilter?
    var discoveryActive = false
    // Notification sessions this client holds (they die with the GATT object or bluetoothd).
    var notifySessions: Set<ObjectPath> = []
    // Reads in flight: their `Value` echo is not reported as a notification.
    var readsInFlight: [ObjectPath: Int] = [:]
    // Bumped on every `Connected=false`, so waits can tell a drop from a stale value.
    var disconnects: [ObjectPath: Int] = [:]

    /// Creates a central over a BlueZ client; call ``start()`` next.
    public init(client: BlueZService, options: CentralOptions = CentralOptions()) {
        self.client = client
        self.options = options
    }

    /// Starts following BlueZ and computes the first state.
    public func start() async throws {
        await client.addObserver { [weak self] event in
            self?.assumeIsolated(passing: event) { $0.handle($1) }
        }
        try await client.start()
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
        timeout: Duration?, device: ObjectPath? = nil,
        until condition: @escaping @Sendable (isolated CentralManager) -> T?
    ) async -> T? {
        let box = WaitID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                let check: () -> Bool = { [unowned self] in
                    guard let value = condition(self) else { return false }
                    continuation.resume(returning: value)
                    return true
                }
                guard
                    let id = waiters.add(device: device, check: check, expire: { continuation.resume(returning: nil) })
                else {
                    return
                }
                box.set(id)
                if Task.isCancelled { return waiters.expire(id) }
                if let timeout {
                    // A loop timer, not a sleeping task: it goes away with the waiter.
                    let timer = executor.schedule(after: timeout) { [weak self] in
                        self?.assumeIsolated { $0.expireWaiter(id) }
                    }
                    waiters.setDeadline(id, timer)
                }
            }
        } onCancel: {
            Task { [weak self] in if let id = box.get() { await self?.expireWaiter(id) } }
        }
    }

    private func expireWaiter(_ id: UInt64) { waiters.expire(id) }

    // MARK: State

    func recomputeState() {
        let adapter = selectAdapter()
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
        if newState == .poweredOff, options.powerOnAdapter, let path = adapter?.path { powerOn(path) }
        guard newState != state else { return }
        state = newState
        emit(.stateChanged(newState))
    }

    private func selectAdapter() -> Adapter? {
        let adapters = mirror { $0.adapters() }.filter(\.supportsCentral)
        switch options.adapter {
        case .automatic: return adapters.first(where: \.powered) ?? adapters.first
        case .name(let name): return adapters.first { $0.interfaceName == name }
        case .address(let address): return adapters.first { $0.address == address }
        }
    }

    private func powerOn(_ path: ObjectPath) {
        guard !poweringOn else { return }
        poweringOn = true
        Task {
            try? await client.setPowered(path, true)
            poweringOn = false
        }
    }

    // MARK: BlueZ events

    private func handle(_ event: BlueZEvent) {
        handleState(event)
        waiters.evaluate(trigger(of: event))
    }

    private func handleState(_ event: BlueZEvent) {
        switch event {
        case .serviceAppeared, .serviceVanished:
            notifySessions = []
            discoveryActive = false
            recomputeState()
            if case .serviceAppeared = event { resumeScanIfWanted() }
        case .interfacesAdded(let path, let interfaces):
            handleAdded(path, interfaces)
        case .interfacesRemoved(let path, let interfaces):
            handleRemoved(path, interfaces)
        case .propertiesChanged(let path, let interface, let changed, _):
            handleChanged(path, interface, changed)
        }
    }

    /// The waiters an event can concern: `Value` updates concern none, changes below a
    /// device that device's, anything else all.
    private func trigger(of event: BlueZEvent) -> WaitTrigger {
        let path: ObjectPath
        switch event {
        case .serviceAppeared, .serviceVanished:
            return .everything
        case .interfacesAdded(let object, _), .interfacesRemoved(let object, _):
            path = object
        case .propertiesChanged(let object, let interface, let changed, let invalidated):
            if Self.isValueOnly(interface, changed, invalidated) { return .none }
            path = object
        }
        return Self.devicePath(containing: path).map { .device($0) } ?? .everything
    }

    private static func isValueOnly(_ interface: String, _ changed: [String: DBusValue], _ invalidated: [String])
        -> Bool
    {
        guard interface == BlueZ.Interface.gattCharacteristic || interface == BlueZ.Interface.gattDescriptor else {
            return false
        }
        return invalidated.isEmpty && changed.count == 1 && changed["Value"] != nil
    }

    private func handleAdded(_ path: ObjectPath, _ interfaces: [String]) {
        if interfaces.contains(BlueZ.Interface.adapter) { recomputeState() }
        if interfaces.contains(BlueZ.Interface.device) { reportDiscovery(path) }
        if let device = gattDevice(path, interfaces), let address = address(of: device) {
            emit(.servicesChanged(address, device))
        }
    }

    private func handleRemoved(_ path: ObjectPath, _ interfaces: [String]) {
        if interfaces.contains(BlueZ.Interface.adapter) { recomputeState() }
        if interfaces.contains(BlueZ.Interface.gattCharacteristic) { notifySessions.remove(path) }
        if interfaces.contains(BlueZ.Interface.device),
            let address = BluetoothAddress(devicePathElement: path.lastElement)
        {
            disconnects[path, default: 0] += 1
            emit(.peripheralRemoved(address, path))
        }
        if let device = gattDevice(path, interfaces), let address = address(of: device) {
            emit(.servicesChanged(address, device))
        }
    }

    private func handleChanged(_ path: ObjectPath, _ interface: String, _ changed: [String: DBusValue]) {
        switch interface {
        case BlueZ.Interface.adapter:
            if changed["Powered"] != nil { recomputeState() }
            if changed["Powered"] == .boolean(false), path == adapterPath { discoveryActive = false }
        case BlueZ.Interface.device:
            if changed["Connected"] == .boolean(false), let address = address(of: path) {
                disconnects[path, default: 0] += 1
                emit(.disconnected(address, path))
            }
            if scanFilter != nil, !Set(changed.keys).isDisjoint(with: Self.advertisementProperties) {
                reportDiscovery(path)
            }
        case BlueZ.Interface.gattCharacteristic:
            if changed["Notifying"] == .boolean(false) { notifySessions.remove(path) }
            if case .array(_, let items)? = changed["Value"], readsInFlight[path] == nil {
                emit(.valueUpdated(path, items.compactMap { if case .byte(let b) = $0 { b } else { nil } }))
            }
        default:
            return
        }
    }

    static let advertisementProperties: Set<String> = ["RSSI", "Name", "UUIDs", "ManufacturerData", "ServiceData"]

    /// The device a GATT object belongs to (the `dev_…` element of its path).
    private func gattDevice(_ path: ObjectPath, _ interfaces: [String]) -> ObjectPath? {
        guard interfaces.contains(where: { $0.hasPrefix("org.bluez.Gatt") }) else { return nil }
        return Self.devicePath(containing: path)
    }

    /// The device object at or above `path` (the `dev_…` element of its path), if any.
    static func devicePath(containing path: ObjectPath) -> ObjectPath? {
        var current: ObjectPath? = path
        while let candidate = current {
            if candidate.lastElement.hasPrefix("dev_") { return candidate }
            current = candidate.parent
        }
        return nil
    }

    func address(of device: ObjectPath) -> BluetoothAddress? {
        BluetoothAddress(devicePathElement: device.lastElement)
    }
}

/// Hands a waiter's id from the actor to its cancellation handler.
private final class WaitID: Sendable {
    private let value = Locked<UInt64?>(nil)

    func set(_ id: UInt64) { value.withLock { $0 = id } }
    func get() -> UInt64? { value.withLock { $0 } }
}
