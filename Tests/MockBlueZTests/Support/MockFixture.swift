import DBusCore
import MockBlueZ
import TestSupport
import Testing

/// Interface names the tests use.
enum Iface {
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let service = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let descriptor = "org.bluez.GattDescriptor1"
    static let properties = "org.freedesktop.DBus.Properties"
    static let manager = "org.freedesktop.DBus.ObjectManager"
}

/// Addresses and UUIDs of the standard scenario.
enum Standard {
    static let hci0: ObjectPath = "/org/bluez/hci0"
    /// The °F thermometer with the code's UUID spelling.
    static let piF = "DC:A6:32:00:00:01"
    /// The °C thermometer with the printed spelling.
    static let piC = "DC:A6:32:00:00:02"
    static let strap = "F0:5E:CD:00:00:01"
    static let beacon = "C8:47:8C:00:00:02"
    static let piFPath: ObjectPath = "/org/bluez/hci0/dev_DC_A6_32_00_00_01"
    static let piCPath: ObjectPath = "/org/bluez/hci0/dev_DC_A6_32_00_00_02"
    static let strapPath: ObjectPath = "/org/bluez/hci0/dev_F0_5E_CD_00_00_01"
    static let beaconPath: ObjectPath = "/org/bluez/hci0/dev_C8_47_8C_00_00_02"
    static let codeService = "00000001-710e-4a5b-8d75-3e5b444bc3cf"
    static let printedService = "00000001-710e-4a5b-8d75-3e5b444b3c3f"

    /// The °F thermometer's objects at their first handles (as in the trace).
    static func temperature(_ device: ObjectPath = piFPath) -> ObjectPath {
        device.appending("service0015")!.appending("char0016")!
    }
    static func unit(_ device: ObjectPath = piFPath) -> ObjectPath {
        device.appending("service0015")!.appending("char001a")!
    }

    /// The standard scenario with test timings (and a fast notification period).
    static func scenario(notifyInterval: Duration = .milliseconds(50)) -> MockScenario {
        var scenario = MockScenario.standard()
        scenario.timings = .fast
        scenario.notifyInterval = notifyInterval
        return scenario
    }
}

/// A private bus with the mock on it, and a central's client connection that recorded
/// org.bluez's signals from the start (match rules first, as a central does).
struct MockFixture {
    let bus: PrivateBus
    let mock: MockBluetoothd
    let client: DBusConnection
    let signals: SignalRecorder

    /// Runs `body` with a fresh bus, mock and client; everything is stopped afterwards.
    static func with(
        _ scenario: MockScenario = Standard.scenario(), _ body: (MockFixture) async throws -> Void
    ) async throws {
        try await withPrivateBus { bus in
            let client = try await DBusConnection.connect(to: .address(bus.address), label: "central")
            let signals = try await SignalRecorder.start(on: client)
            let mock = try await MockBluetoothd.start(address: bus.address, scenario: scenario)
            let fixture = MockFixture(bus: bus, mock: mock, client: client, signals: signals)
            do {
                try await body(fixture)
            } catch {
                await mock.stop()
                await client.close()
                throw error
            }
            await mock.stop()
            await client.close()
        }
    }

    /// A second client connection (closed by the caller).
    func newClient(_ label: String = "other") async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(bus.address), label: label)
    }

    // MARK: Calls

    /// Calls `member` on bluetoothd's name, waiting `timeout` (``Duration/scaled``) for the reply.
    @discardableResult
    func call(
        _ path: ObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        on connection: DBusConnection? = nil, timeout: Duration = .seconds(5)
    ) async throws -> DBusMessage {
        try await (connection ?? client).call(
            destination: "org.bluez", path: path, interface: interface, member: member, arguments: arguments,
            timeout: timeout.scaled)
    }

    func get(_ path: ObjectPath, _ interface: String, _ name: String) async throws -> DBusValue {
        try await call(path, Iface.properties, "Get", [.string(interface), .string(name)]).decodeSingle(DBusValue.self)
    }

    /// `GetAll`, in the order the properties came.
    func getAll(_ path: ObjectPath, _ interface: String) async throws -> [(String, DBusValue)] {
        let reply = try await call(path, Iface.properties, "GetAll", [.string(interface)])
        guard let entries = reply.arguments.first?.dictionaryEntries else { return [] }
        return entries.compactMap { entry in
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { return nil }
            return (key, value)
        }
    }

    func managedObjects() async throws -> [ObjectPath: [String: [String: DBusValue]]] {
        try await call(.root, Iface.manager, "GetManagedObjects").decodeSingle(
            [ObjectPath: [String: [String: DBusValue]]].self)
    }

    func read(_ path: ObjectPath, interface: String = Iface.characteristic, offset: UInt16? = nil) async throws
        -> [UInt8]
    {
        let options: DBusValue = .propertyMap(offset.map { [("offset", .uint16($0))] } ?? [])
        return try await call(path, interface, "ReadValue", [options]).decodeSingle([UInt8].self)
    }

    // MARK: The central flow's steps

    /// StartDiscovery (with `Transport=le`) until `path` (and `others`) show up, then StopDiscovery.
    func discover(_ path: ObjectPath, alsoWaitingFor others: [ObjectPath] = [], filter: Bool = true) async throws {
        let mark = signals.count
        if filter {
            try await call(
                Standard.hci0, Iface.adapter, "SetDiscoveryFilter", [.propertyMap([("Transport", .string("le"))])])
        }
        try await call(Standard.hci0, Iface.adapter, "StartDiscovery")
        for path in [path] + others {
            try await signals.wait(after: mark, "InterfacesAdded of \(path)") {
                $0.member == "InterfacesAdded" && $0.object == path
            }
        }
        let stop = signals.count
        try await call(Standard.hci0, Iface.adapter, "StopDiscovery")
        try await signals.waitChange(after: stop, Standard.hci0, Iface.adapter, "Discovering")
        try await barrier()
    }

    /// Connect and wait for ServicesResolved=true (and the GATT objects that follow it).
    func connect(_ path: ObjectPath) async throws {
        let mark = signals.count
        try await call(path, Iface.device, "Connect")
        try await signals.wait(after: mark, "ServicesResolved=true on \(path)") {
            $0.path == path && $0.changedValue("ServicesResolved") == .boolean(true)
        }
        try await barrier()
    }

    /// Returns once every signal bluetoothd sent so far has been recorded: a reply comes
    /// after everything sent before it on the same connection.
    func barrier() async throws {
        _ = try await call(Standard.hci0, Iface.properties, "Get", [.string(Iface.adapter), .string("Address")])
    }

    /// Discover and connect the °F thermometer.
    func connectThermometer(_ path: ObjectPath = Standard.piFPath) async throws {
        try await discover(path)
        try await connect(path)
    }
}

/// Expects `body` to fail with the D-Bus error `name` (and `message`, if given).
func expectError(
    _ name: String, message: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(name), got success", sourceLocation: sourceLocation)
    } catch let error as DBusError {
        #expect(error.name == name, sourceLocation: sourceLocation)
        if let message { #expect(error.message == message, sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected \(name), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The text of a byte value.
func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The bytes of a `Value` property change.
func bytes(_ value: DBusValue?) -> [UInt8]? {
    guard case .array(element: "y", let items)? = value else { return nil }
    return items.compactMap { if case .byte(let byte) = $0 { byte } else { nil } }
}
