import SensorModel
/// The integer keys of `devices` and `labels`, looked up once per text and cached: a row
/// stores two small integers where schema version 1 repeated its address, name and profile.
///
/// Confined to the writer's thread with its connection.
final class RowKeys {
    private struct Label: Hashable {
        var name: String?
        var profile: String?
    }

    private var devices: [BluetoothAddress: Int64] = [:]
    private var labels: [Label: Int64] = [:]
    private let findDevice: SQLiteStatement
    private let addDevice: SQLiteStatement
    private let findLabel: SQLiteStatement
    private let addLabel: SQLiteStatement

    init(_ connection: SQLiteConnection) throws(SQLiteError) {
        findDevice = try connection.prepare("SELECT id FROM devices WHERE address = ?1")
        addDevice = try connection.prepare("INSERT INTO devices (address) VALUES (?1) RETURNING id")
        // `IS` matches NULL names and profiles too, and can use labels_by_text.
        findLabel = try connection.prepare("SELECT id FROM labels WHERE name IS ?1 AND profile IS ?2")
        addLabel = try connection.prepare("INSERT INTO labels (name, profile) VALUES (?1, ?2) RETURNING id")
    }

    /// The key of the device with `address`, added when new. Call inside a transaction.
    func device(_ address: BluetoothAddress) throws(SQLiteError) -> Int64 {
        if let id = devices[address] { return id }
        findDevice.bind(1, address.description)
        addDevice.bind(1, address.description)
        let id = try key(from: findDevice, else: addDevice)
        devices[address] = id
        return id
    }

    /// The key of a name and profile, added when new. Call inside a transaction.
    func label(name: String?, profile: String?) throws(SQLiteError) -> Int64 {
        let label = Label(name: name, profile: profile)
        if let id = labels[label] { return id }
        for statement in [findLabel, addLabel] {
            statement.bind(1, name)
            statement.bind(2, profile)
        }
        let id = try key(from: findLabel, else: addLabel)
        labels[label] = id
        return id
    }

    /// Forgets every key: after a rolled-back transaction the rows it added are gone.
    func forget() {
        devices.removeAll()
        labels.removeAll()
    }

    /// The id `find` returns, or the one `add` creates; both are bound already.
    private func key(from find: SQLiteStatement, else add: SQLiteStatement) throws(SQLiteError) -> Int64 {
        defer {
            find.reset()
            add.reset()
        }
        if try find.step(), let id = find.integer(0) { return id }
        guard try add.step(), let id = add.integer(0) else {
            throw SQLiteError(operation: "add a device or label", code: 1, message: "no id returned")
        }
        return id
    }
}
