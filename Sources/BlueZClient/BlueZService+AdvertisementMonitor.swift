import DBusCore
import ConcurrencySupport

/// What BlueZ tells an advertisement monitor (`org.bluez.AdvertisementMonitor1`'s methods).
public enum AdvertisementMonitorEvent: Sendable, Equatable {
    /// The monitor is active: matching advertisements now reach the device objects.
    case activated
    /// The monitor was deactivated (it could not be activated, or it was unregistered).
    case released
    /// A device matched the monitor's patterns.
    case deviceFound(BlueZPath)
    /// A device that matched is gone.
    case deviceLost(BlueZPath)
}

/// The monitors registered with an adapter's `AdvertisementMonitorManager1`: one application,
/// its patterns spread over as many monitors as BlueZ 5.66 can take (``BlueZService/maxPatternsPerMonitor``).
public struct AdvertisementMonitorRegistration: Sendable, Equatable {
    /// The adapter it is registered with.
    public let adapter: BlueZPath
    /// The root of the application (served with `ObjectManager`).
    let root: ObjectPath
    /// The monitor objects below the root, `sensors0`, `sensors1`…
    let monitors: [ObjectPath]
}

extension BlueZ.Interface {
    /// `org.bluez.AdvertisementMonitorManager1` (experimental in 5.66: `bluetoothd --experimental`).
    static let advertisementMonitorManager = "org.bluez.AdvertisementMonitorManager1"
    /// `org.bluez.AdvertisementMonitor1`, served by the client.
    static let advertisementMonitor = "org.bluez.AdvertisementMonitor1"
}

/// Passive scanning: an application of `or_patterns` monitors, registered with
/// `RegisterMonitor` (BlueZ 5.66 doc/advertisement-monitor-api.txt).
///
/// BlueZ then scans passively by itself (no `StartDiscovery`) and updates the device objects
/// of matching advertisers as discovery does: their data still arrives as `Device1`
/// `PropertiesChanged`. The monitors' own calls (`Activate`, `DeviceFound`…) are reported to
/// the caller as those of one monitor, and accepted only from the bluetoothd they were
/// registered with.
extension BlueZService {
    /// The most patterns one monitor may hold. bluetoothd 5.66 puts a monitor's patterns in
    /// one management command whose length it keeps in a `uint8_t` (src/adv_monitor.c,
    /// `merged_pattern_send_add_pattern`: 1 byte + 34 per pattern). With an 8th pattern the
    /// length wraps: bluetoothd allocates less than it then writes and aborts ("malloc():
    /// invalid size (unsorted)", seen in the real-BlueZ e2e rig, scenario 9, with the 12
    /// patterns of the standard formats in one monitor).
    public static let maxPatternsPerMonitor = 7

    /// Whether `adapter` offers advertisement monitors of type `or_patterns`.
    public func offersAdvertisementMonitors(_ adapter: BlueZPath) -> Bool {
        guard let manager = tree.properties(adapter.objectPath, BlueZ.Interface.advertisementMonitorManager) else {
            return false
        }
        guard let types = manager["SupportedMonitorTypes"] else { return true }
        return (try? types.unwrappingVariants.decode([String].self))?.contains("or_patterns") ?? false
    }

    /// Serves monitors matching any of `patterns` (at most ``maxPatternsPerMonitor`` each)
    /// and registers them with `adapter`, as one application.
    ///
    /// BlueZ reads the monitors (`GetManagedObjects` on the application root) before it
    /// answers. `events` is called on the connection's executor for the calls BlueZ makes on
    /// them, as if they were one monitor: `activated` once every monitor is active,
    /// `released` at the first monitor released (some patterns are no longer heard), each
    /// once; `deviceFound` and `deviceLost` as they come.
    public func registerAdvertisementMonitor(
        on adapter: BlueZPath, patterns: [AdvertisementPattern],
        events: @escaping @Sendable (AdvertisementMonitorEvent) -> Void
    ) async throws(BlueZError) -> AdvertisementMonitorRegistration {
        let owner: String?
        do {
            owner = try await connection.nameOwner(BlueZ.service)
        } catch {
            throw BlueZError(any: error)
        }
        guard let owner else { throw .serviceUnavailable("org.bluez has no owner") }
        let root = Self.monitorRoot.appending(adapter.lastElement)!
        let groups = Self.monitorGroups(patterns)
        let registration = AdvertisementMonitorRegistration(
            adapter: adapter, root: root, monitors: groups.indices.map { root.appending("sensors\($0)")! })
        let server = await servingObjects()
        let set = MonitorSet(count: groups.count, events: events)
        let interfaces = groups.enumerated().map { index, group in
            Self.monitorInterface(group, index: index, of: set, bluetoothd: owner, executor: executor)
        }
        try serve(interfaces, for: registration, on: server)
        do {
            _ = try await call(
                adapter.objectPath, BlueZ.Interface.advertisementMonitorManager, "RegisterMonitor",
                [.objectPath(root)])
        } catch {
            forgetAdvertisementMonitor(registration)
            throw error
        }
        return registration
    }

    /// Unregisters a monitor (BlueZ calls `Release` on it) and stops serving it; a
    /// bluetoothd that is gone or no longer knows it counts as done.
    public func unregisterAdvertisementMonitor(_ registration: AdvertisementMonitorRegistration) async {
        _ = try? await call(
            registration.adapter.objectPath, BlueZ.Interface.advertisementMonitorManager, "UnregisterMonitor",
            [.objectPath(registration.root)], timeout: .seconds(3), cleanUp: true)
        forgetAdvertisementMonitor(registration)
    }

    /// Stops serving a monitor without telling BlueZ (the bluetoothd that knew it is gone).
    public func forgetAdvertisementMonitor(_ registration: AdvertisementMonitorRegistration) {
        guard let objectServer else { return }
        objectServer.assumeIsolated { server in
            for monitor in registration.monitors { try? server.unexport(monitor) }
        }
    }

    /// `patterns` in groups of at most ``maxPatternsPerMonitor``, in order (one group for none).
    static func monitorGroups(_ patterns: [AdvertisementPattern]) -> [[AdvertisementPattern]] {
        guard !patterns.isEmpty else { return [[]] }
        return stride(from: 0, to: patterns.count, by: maxPatternsPerMonitor).map { start in
            Array(patterns[start..<min(start + maxPatternsPerMonitor, patterns.count)])
        }
    }

    /// The application roots: one per adapter.
    static let monitorRoot: ObjectPath = "/org/blectl/advertisement_monitor"

    /// Serves the monitors below an object manager at the application root (the server shares
    /// this executor: done before BlueZ can ask).
    private func serve(
        _ interfaces: [ExportedInterface], for registration: AdvertisementMonitorRegistration,
        on server: DBusObjectServer
    ) throws(BlueZError) {
        do {
            try server.assumeIsolated { server in
                server.addObjectManager(at: registration.root)
                for (monitor, interface) in zip(registration.monitors, interfaces) {
                    try server.export(monitor, [interface])
                }
            }
        } catch {
            forgetAdvertisementMonitor(registration)
            throw BlueZError(any: error)
        }
    }

    private func servingObjects() async -> DBusObjectServer {
        if let objectServer { return objectServer }
        // Monitors registered on several adapters at once: one server, or the second would
        // replace the first as the connection's handler and its objects would be unknown.
        if let making = objectServerMaking { return await making.value }
        let connection = connection
        let making = Task { await DBusObjectServer(connection: connection) }
        objectServerMaking = making
        let server = await making.value
        objectServer = server
        objectServerMaking = nil
        return server
    }

    private static func monitorInterface(
        _ patterns: [AdvertisementPattern], index: Int, of set: MonitorSet, bluetoothd: String, executor: EventLoop
    ) -> ExportedInterface {
        /// A method BlueZ calls; from anyone else it is refused and reported to nobody.
        func method(
            _ name: String, in signature: Signature,
            _ event: @escaping @Sendable (MethodCall) throws -> AdvertisementMonitorEvent
        ) -> ExportedMethod {
            ExportedMethod(name, in: signature) { call in
                guard call.sender == bluetoothd else {
                    throw DBusError(
                        name: DBusError.Name.accessDenied, message: "\(name) is for bluetoothd (\(bluetoothd)) only")
                }
                let called = try event(call)
                guard let reported = set.report(called, from: index) else { return [] }
                // Handlers run off the loop: events are the connection's, as promised.
                executor.execute { set.events(reported) }
                return []
            }
        }
        @Sendable func device(_ call: MethodCall) throws -> BlueZPath {
            BlueZPath(try call.argument(0, as: ObjectPath.self))
        }
        return ExportedInterface(
            name: BlueZ.Interface.advertisementMonitor,
            methods: [
                method("Release", in: .empty) { _ in .released },
                method("Activate", in: .empty) { _ in .activated },
                method("DeviceFound", in: "o") { .deviceFound(try device($0)) },
                method("DeviceLost", in: "o") { .deviceLost(try device($0)) },
            ],
            properties: [
                ExportedProperty("Type", .string("or_patterns")),
                ExportedProperty("Patterns", .array(element: "(yyay)", patterns.map(\.dbusValue))),
            ])
    }
}

/// The monitors of one registration, reported as one: `activated` once all of them are,
/// `released` at the first one released.
final class MonitorSet: Sendable {
    let count: Int
    let events: @Sendable (AdvertisementMonitorEvent) -> Void
    /// The monitors activated, and whether `released` was reported.
    private let state = Locked((activated: Set<Int>(), released: false))

    init(count: Int, events: @escaping @Sendable (AdvertisementMonitorEvent) -> Void) {
        self.count = count
        self.events = events
    }

    /// What to report of monitor `index`'s call: nil while some monitor is not yet active,
    /// and for activations and releases after the set's own.
    func report(_ event: AdvertisementMonitorEvent, from index: Int) -> AdvertisementMonitorEvent? {
        state.withLock { state in
            switch event {
            case .activated:
                guard !state.activated.contains(index) else { return nil }
                state.activated.insert(index)
                return state.activated.count == count ? .activated : nil
            case .released:
                guard !state.released else { return nil }
                state.released = true
                return .released
            case .deviceFound, .deviceLost:
                return event
            }
        }
    }
}
