import DBusCore
import UnixSupport

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

/// A monitor registered with an adapter's `AdvertisementMonitorManager1`.
public struct AdvertisementMonitorRegistration: Sendable, Equatable {
    /// The adapter it is registered with.
    public let adapter: BlueZPath
    /// The root of the application (served with `ObjectManager`).
    let root: ObjectPath
    /// The monitor object below the root.
    let monitor: ObjectPath
}

extension BlueZ.Interface {
    /// `org.bluez.AdvertisementMonitorManager1` (experimental in 5.66: `bluetoothd --experimental`).
    static let advertisementMonitorManager = "org.bluez.AdvertisementMonitorManager1"
    /// `org.bluez.AdvertisementMonitor1`, served by the client.
    static let advertisementMonitor = "org.bluez.AdvertisementMonitor1"
}

/// Passive scanning: an application of one `or_patterns` monitor, registered with
/// `RegisterMonitor` (BlueZ 5.66 doc/advertisement-monitor-api.txt).
///
/// BlueZ then scans passively by itself (no `StartDiscovery`) and updates the device objects
/// of matching advertisers as discovery does: their data still arrives as `Device1`
/// `PropertiesChanged`. The monitor's own calls (`Activate`, `DeviceFound`…) are reported to
/// the caller, and accepted only from the bluetoothd it was registered with.
extension BlueZService {
    /// Whether `adapter` offers advertisement monitors of type `or_patterns`.
    public func offersAdvertisementMonitors(_ adapter: BlueZPath) -> Bool {
        guard let manager = tree.properties(adapter.objectPath, BlueZ.Interface.advertisementMonitorManager) else {
            return false
        }
        guard let types = manager["SupportedMonitorTypes"] else { return true }
        return (try? types.unwrappingVariants.decode([String].self))?.contains("or_patterns") ?? false
    }

    /// Serves a monitor matching any of `patterns` and registers it with `adapter`.
    ///
    /// BlueZ reads the monitor (`GetManagedObjects` on the application root) before it
    /// answers. `events` is called on the connection's executor for each call BlueZ makes on
    /// the monitor.
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
        let registration = AdvertisementMonitorRegistration(
            adapter: adapter, root: root, monitor: root.appending("sensors")!)
        let server = await servingObjects()
        let interface = Self.monitorInterface(patterns, bluetoothd: owner, executor: executor, events: events)
        try serve(interface, for: registration, on: server)
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
        try? objectServer.assumeIsolated { try $0.unexport(registration.monitor) }
    }

    /// The application roots: one per adapter.
    static let monitorRoot: ObjectPath = "/org/blectl/advertisement_monitor"

    /// Serves the monitor below an object manager at the application root (the server shares
    /// this executor: done before BlueZ can ask).
    private func serve(
        _ interface: ExportedInterface, for registration: AdvertisementMonitorRegistration, on server: DBusObjectServer
    ) throws(BlueZError) {
        do {
            try server.assumeIsolated { server in
                server.addObjectManager(at: registration.root)
                try server.export(registration.monitor, [interface])
            }
        } catch {
            throw BlueZError(any: error)
        }
    }

    private func servingObjects() async -> DBusObjectServer {
        if let objectServer { return objectServer }
        let server = await DBusObjectServer(connection: connection)
        objectServer = server
        return server
    }

    private static func monitorInterface(
        _ patterns: [AdvertisementPattern], bluetoothd: String, executor: EventLoop,
        events: @escaping @Sendable (AdvertisementMonitorEvent) -> Void
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
                let event = try event(call)
                // Handlers run off the loop: events are the connection's, as promised.
                executor.execute { events(event) }
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
