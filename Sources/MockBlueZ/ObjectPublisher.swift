import DBusCore

/// Exports bluetoothd's objects and announces their property changes the way bluetoothd's
/// gdbus does: what changes in one main-loop iteration goes out as one
/// `PropertiesChanged`, and a property that comes into existence takes its place in
/// bluetoothd's table (``PropertyTables/order``), not the end.
///
/// Used on the bluetoothd's executor (the object server shares it), which stops calling it
/// once bluetoothd stops.
struct ObjectPublisher {
    let server: DBusObjectServer
    let log: MockLogger

    /// Runs `body` on the object server right now, on this executor (no suspension).
    func objects<T: Sendable>(_ body: (isolated DBusObjectServer) throws -> T) rethrows -> T {
        try server.assumeIsolated(body)
    }

    func export(_ path: ObjectPath, _ interfaces: [ExportedInterface]) {
        do { try objects { try $0.export(path, interfaces) } } catch { log("export \(path): \(error)") }
    }

    func unexport(_ path: ObjectPath, interfaces: [String]? = nil) {
        do { try objects { try $0.unexport(path, interfaces: interfaces) } } catch { log("unexport \(path): \(error)") }
    }

    /// Changes properties and sends one `PropertiesChanged` (bluetoothd coalesces what changes
    /// in one main-loop iteration into one signal).
    func change(
        _ path: ObjectPath, _ interface: String, _ changed: [(String, DBusValue)], invalidated: [String] = []
    ) {
        guard !(changed.isEmpty && invalidated.isEmpty) else { return }
        do {
            try objects { server in
                guard let order = PropertyTables.order[interface],
                    insertsOutOfOrder(server, path, interface, changed, order)
                else {
                    try server.setProperties(path, interface, changed, invalidated: invalidated)
                    return
                }
                // A property that comes into existence (Modalias, RSSI again) belongs at its
                // place in bluetoothd's table, not at the end: lift the ones after it out and
                // put them back behind it, silently, then announce only the change.
                let tail = order.drop { name in !changed.contains { $0.0 == name } }.compactMap { name in
                    changed.first { $0.0 == name } ?? server.property(path, interface, name).map { (name, $0) }
                }
                try server.setProperties(path, interface, [], invalidated: tail.map(\.0), emit: false)
                try server.setProperties(path, interface, tail, invalidated: invalidated, emit: false)
                try server.emit(
                    path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                    [.string(interface), .propertyMap(changed), .strings(invalidated)])
            }
        } catch {
            log("PropertiesChanged \(path): \(error)")
        }
    }

    /// Whether `changed` adds a property that the table puts before existing ones which may
    /// be moved (the object server appends new properties; writable ones can't be re-added).
    private func insertsOutOfOrder(
        _ server: isolated DBusObjectServer, _ path: ObjectPath, _ interface: String,
        _ changed: [(String, DBusValue)], _ order: [String]
    ) -> Bool {
        guard
            let first = order.firstIndex(where: { name in
                changed.contains { $0.0 == name } && server.property(path, interface, name) == nil
            })
        else { return false }
        let later = order[(first + 1)...].filter { server.property(path, interface, $0) != nil }
        return !later.isEmpty && later.allSatisfy { !(PropertyTables.writable[interface] ?? []).contains($0) }
    }

    /// Changes properties without a signal (what `Get` shows differs from what was announced).
    func changeSilently(_ path: ObjectPath, _ interface: String, _ changed: [(String, DBusValue)]) {
        try? objects { try $0.setProperties(path, interface, changed, emit: false) }
    }
}
