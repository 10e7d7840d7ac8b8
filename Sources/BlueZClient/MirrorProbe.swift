public import DBusCore

/// BlueZ's messages fed through the mirror as ``BlueZService`` feeds them, without a bus.
///
/// For fuzzing (`Tests/Fuzz`): the snapshot, the signals and the typed views run the code
/// the daemon runs on what bluetoothd sends. Not for use by a client.
@_spi(Fuzzing) public struct MirrorProbe {
    private var tree = ObjectTree()
    /// Notes on unexpected data, as ``BlueZService`` would log them.
    public private(set) var problems: [String] = []

    /// An empty mirror.
    public init() {}

    /// Takes a `GetManagedObjects` reply as the snapshot; false when its body is not one.
    public mutating func loadSnapshot(_ reply: DBusMessage) -> Bool {
        guard let objects = try? reply.decodeSingle([ObjectPath: [String: [String: DBusValue]]].self) else {
            return false
        }
        tree = ObjectTree(snapshot: objects)
        return true
    }

    /// Applies one of BlueZ's signals; returns the events observers would hear.
    public mutating func apply(_ signal: DBusMessage) -> [BlueZEvent] {
        let change = tree.apply(signal)
        if case .malformed(let problem) = change { problems.append(problem) }
        var events: [BlueZEvent] = []
        change.events(problem: { problems.append($0) }, { events.append($0) })
        return events
    }

    /// How many typed views the mirror's objects make, building every one.
    public mutating func buildViews() -> Int {
        var count = 0
        for path in tree.paths(with: BlueZ.Interface.adapter) {
            count += view(path, BlueZ.Interface.adapter, Adapter.init)
        }
        for path in tree.paths(with: BlueZ.Interface.device) {
            count += view(path, BlueZ.Interface.device, Device.init)
        }
        for path in tree.paths(with: BlueZ.Interface.gattService) {
            count += view(path, BlueZ.Interface.gattService, GattService.init)
        }
        for path in tree.paths(with: BlueZ.Interface.gattCharacteristic) {
            count += view(path, BlueZ.Interface.gattCharacteristic, GattCharacteristic.init)
        }
        for path in tree.paths(with: BlueZ.Interface.gattDescriptor) {
            count += view(path, BlueZ.Interface.gattDescriptor, GattDescriptor.init)
        }
        return count
    }

    private mutating func view<T>(
        _ path: ObjectPath, _ interface: String, _ make: (ObjectPath, inout PropertyReader) -> T
    ) -> Int {
        tree.view(path, interface, problems: &problems, make) == nil ? 0 : 1
    }
}
