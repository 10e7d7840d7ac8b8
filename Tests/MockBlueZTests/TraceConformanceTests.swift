import DBusCore
import Foundation
import MockBlueZ
import TestSupport
import Testing

/// The mock against the recording of a real BlueZ 5.66 session
/// (`shared/docs/traces/real-bluez-5.66-central-session.dbus-monitor.log.gz`): the same
/// interfaces, property names, types and order, and the same order of signals and replies.
/// The tables below were taken from that trace (line numbers refer to the unpacked log).
@Suite("Conformance with the real BlueZ 5.66 trace")
struct TraceConformanceTests {
    // MARK: Tables from the trace

    /// `Adapter1` in `GetManagedObjects` (lines 436-500).
    static let adapter: [(String, String)] = [
        ("Address", "s"), ("AddressType", "s"), ("Name", "s"), ("Alias", "s"), ("Class", "u"), ("Powered", "b"),
        ("Discoverable", "b"), ("DiscoverableTimeout", "u"), ("Pairable", "b"), ("PairableTimeout", "u"),
        ("Discovering", "b"), ("UUIDs", "as"), ("Modalias", "s"), ("Roles", "as"),
    ]
    /// The interfaces of an adapter object (lines 431-560), as a set.
    static let adapterInterfaces: Set<String> = [
        "org.freedesktop.DBus.Introspectable", "org.bluez.Adapter1", "org.freedesktop.DBus.Properties",
        "org.bluez.GattManager1", "org.bluez.Media1", "org.bluez.NetworkServer1", "org.bluez.LEAdvertisingManager1",
    ]
    /// `Device1` of a discovered Thermometer in `InterfacesAdded` (lines 5004-5072).
    static let discoveredDevice: [(String, String)] = [
        ("Address", "s"), ("AddressType", "s"), ("Name", "s"), ("Alias", "s"), ("Paired", "b"), ("Bonded", "b"),
        ("Trusted", "b"), ("Blocked", "b"), ("LegacyPairing", "b"), ("RSSI", "n"), ("Connected", "b"),
        ("UUIDs", "as"), ("Adapter", "o"), ("ServicesResolved", "b"),
    ]
    /// `Device1` of the connected Thermometer in `GetManagedObjects` (lines 6851-6895): RSSI gone, Modalias there.
    static let connectedDevice: [(String, String)] = [
        ("Address", "s"), ("AddressType", "s"), ("Name", "s"), ("Alias", "s"), ("Paired", "b"), ("Bonded", "b"),
        ("Trusted", "b"), ("Blocked", "b"), ("LegacyPairing", "b"), ("Connected", "b"), ("UUIDs", "as"),
        ("Modalias", "s"), ("Adapter", "o"), ("ServicesResolved", "b"),
    ]
    /// `GattService1` (lines 6004-6030).
    static let service: [(String, String)] = [("UUID", "s"), ("Device", "o"), ("Primary", "b"), ("Includes", "ao")]
    /// The temperature characteristic (lines 6361-6411): read + notify.
    static let notifyingCharacteristic: [(String, String)] = [
        ("UUID", "s"), ("Service", "o"), ("Value", "ay"), ("Notifying", "b"), ("Flags", "as"), ("NotifyAcquired", "b"),
        ("MTU", "q"),
    ]
    /// The unit characteristic (lines 6444-6475): read + write.
    static let plainCharacteristic: [(String, String)] = [
        ("UUID", "s"), ("Service", "o"), ("Value", "ay"), ("Flags", "as"), ("MTU", "q"),
    ]
    /// Service Changed (lines 6040-6085): indicate only, no NotifyAcquired.
    static let indicateCharacteristic: [(String, String)] = [
        ("UUID", "s"), ("Service", "o"), ("Value", "ay"), ("Notifying", "b"), ("Flags", "as"), ("MTU", "q"),
    ]
    /// `GattDescriptor1` (lines 6412-6443).
    static let descriptor: [(String, String)] = [("UUID", "s"), ("Characteristic", "o"), ("Value", "ay")]
    /// The GATT objects under the connected Thermometer, in InterfacesAdded order (lines 6004-6551).
    static let gattObjects = [
        "service0008", "service0008/char0009", "service0008/char0009/desc000b", "service0008/char000c",
        "service0008/char000e", "service0008/char0010", "service0012", "service0012/char0013", "service0015",
        "service0015/char0016", "service0015/char0016/desc0018", "service0015/char0016/desc0019",
        "service0015/char001a", "service0015/char001a/desc001c",
    ]

    static func shape(_ properties: [(String, DBusValue)]) -> [String] {
        properties.map { "\($0.0):\($0.1.signature)" }
    }

    static func shape(_ table: [(String, String)]) -> [String] { table.map { "\($0.0):\($0.1)" } }

    // MARK: Tests

    @Test("a discovered Thermometer's InterfacesAdded: the trace's properties and types, in order")
    func discoveredDevice() async throws {
        try await MockFixture.with { f in
            let mark = f.signals.count
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            let (_, added) = try await f.signals.wait(after: mark) {
                $0.member == "InterfacesAdded" && $0.object == Standard.piFPath
            }
            #expect(
                added.addedInterfaces.map(\.0) == [
                    "org.freedesktop.DBus.Introspectable", Iface.device, "org.freedesktop.DBus.Properties",
                ])
            let device = try #require(added.addedInterfaces.first { $0.0 == Iface.device }?.1)
            // The Pi advertises its TX power (IncludeTxPower); the trace's emulated radio did not
            // report one. Everything else is the trace's list.
            #expect(Self.shape(device.filter { $0.0 != "TxPower" }) == Self.shape(Self.discoveredDevice))
            #expect(device.first { $0.0 == "TxPower" }?.1.signature == "n")
            #expect(device.first { $0.0 == "Name" }?.1 == .string("Thermometer"))
            #expect(device.first { $0.0 == "Alias" }?.1 == .string("Thermometer"))
            #expect(device.first { $0.0 == "AddressType" }?.1 == .string("public"))
            #expect(device.first { $0.0 == "ServicesResolved" }?.1 == .boolean(false))
        }
    }

    @Test("a nameless device has no Name and the address with dashes as Alias (trace line 5516)")
    func namelessDevice() async throws {
        try await MockFixture.with { f in
            let mark = f.signals.count
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            let (_, added) = try await f.signals.wait(after: mark) {
                $0.member == "InterfacesAdded" && $0.object == Standard.beaconPath
            }
            let device = try #require(added.addedInterfaces.first { $0.0 == Iface.device }?.1)
            #expect(!device.contains { $0.0 == "Name" })
            #expect(device.first { $0.0 == "Alias" }?.1 == .string("C8-47-8C-00-00-02"))
            #expect(device.first { $0.0 == "ManufacturerData" }?.1.signature == "a{qv}")
        }
    }

    @Test("the adapter and the connected device's GATT objects: the trace's tables and handle paths")
    func managedObjects() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let objects = try await f.managedObjects()
            let adapter = try #require(objects[Standard.hci0])
            #expect(Set(adapter.keys) == Self.adapterInterfaces)
            #expect(Self.shape(try await f.getAll(Standard.hci0, Iface.adapter)) == Self.shape(Self.adapter))

            let device = Standard.piFPath
            let list = try await f.getAll(device, Iface.device)
            // RSSI/TxPower were invalidated when scanning stopped.
            #expect(Self.shape(list) == Self.shape(Self.connectedDevice))
            #expect(
                list.first { $0.0 == "UUIDs" }?.1
                    == .strings([
                        Standard.codeService, "00001800-0000-1000-8000-00805f9b34fb",
                        "00001801-0000-1000-8000-00805f9b34fb", "0000180a-0000-1000-8000-00805f9b34fb",
                    ]))

            let gatt = objects.keys.filter { $0.isDescendant(of: device, includingSelf: false) }
                .map { String($0.rawValue.dropFirst(device.rawValue.count + 1)) }.sorted()
            #expect(gatt == Self.gattObjects.sorted())

            for (suffix, interface, table) in [
                ("service0015", Iface.service, Self.service),
                ("service0015/char0016", Iface.characteristic, Self.notifyingCharacteristic),
                ("service0015/char001a", Iface.characteristic, Self.plainCharacteristic),
                ("service0008/char0009", Iface.characteristic, Self.indicateCharacteristic),
                ("service0015/char0016/desc0019", Iface.descriptor, Self.descriptor),
            ] {
                let path = ObjectPath(device.rawValue + "/" + suffix)!
                let list = try await f.getAll(path, interface)
                #expect(Self.shape(list) == Self.shape(table), "\(suffix)")
            }
            let temperature = try #require(objects[Standard.temperature()]?[Iface.characteristic])
            #expect(temperature["Flags"] == .strings(["read", "notify"]))
            #expect(temperature["MTU"] == .uint16(517))
            #expect(
                objects[ObjectPath(device.rawValue + "/service0008/char0010")!]?[Iface.characteristic]?["Value"]
                    == .bytes([0x01]))
            #expect(
                bytes(objects[ObjectPath(device.rawValue + "/service0008/char000e")!]?[Iface.characteristic]?["Value"])?
                    .count == 16)
        }
    }

    /// The trace's flow, token by token, as the bus passed it on (bluetoothd's signals and its
    /// replies to the central), from `SetDiscoveryFilter` to `Connected=false`.
    @Test("the same flow produces the trace's sequence of signals and replies")
    func sequence() async throws {
        // One Thermometer in range, as in the trace; notifications come from Burst only.
        var scenario = MockScenario.standard(thermometers: 1, others: 0)
        scenario.timings = .fast
        scenario.notifyInterval = .seconds(60)
        scenario.unitWritesTakeEffect = true  // the trace's peripheral switched to °C
        try await MockFixture.with(scenario) { f in
            let monitor = try await BusMonitor.start(address: f.bus.address, logDirectory: f.bus.directory)
            do {
                try await Self.runTraceFlow(f)
                // The monitor is a process of its own: wait (bounded) until it passed on the flow.
                var tokens = try await Self.tokens(monitor.all, f)
                let deadline = ContinuousClock.now + Duration.seconds(10).scaled
                while tokens.count < Self.expectedTokens.count, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    tokens = try await Self.tokens(monitor.all, f)
                }
                await monitor.stop()
                let expected = Self.expectedTokens
                #expect(tokens == expected, "\(Self.diff(tokens, expected))")
            } catch {
                await monitor.stop()
                throw error
            }
        }
    }

    /// What the central in the trace did (hci1, client :1.5), in the same order.
    static func runTraceFlow(_ f: MockFixture) async throws {
        let device = Standard.piFPath
        try await f.call(
            Standard.hci0, Iface.adapter, "SetDiscoveryFilter", [.propertyMap([("Transport", .string("le"))])])
        var mark = f.signals.count
        try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
        try await f.signals.wait(after: mark) { $0.member == "InterfacesAdded" && $0.object == device }
        // Stop as soon as the Thermometer is seen: the others have not advertised yet.
        mark = f.signals.count
        try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
        try await f.signals.waitChange(after: mark, Standard.hci0, Iface.adapter, "Discovering")
        mark = f.signals.count
        try await f.call(device, Iface.device, "Connect")
        try await f.signals.wait(after: mark) { $0.path == device && $0.changedNames == ["Modalias"] }
        _ = try await f.managedObjects()
        let temperature = Standard.temperature()
        _ = try await f.read(temperature)
        mark = f.signals.count
        try await f.call(temperature, Iface.characteristic, "StartNotify")
        try await f.signals.waitChange(after: mark, temperature, Iface.characteristic, "Value")
        _ = try await f.mock.burst(address: Standard.piF, count: 2)
        _ = try await f.read(ObjectPath(temperature.rawValue + "/desc0018")!, interface: Iface.descriptor)
        _ = try await f.read(ObjectPath(temperature.rawValue + "/desc0019")!, interface: Iface.descriptor)
        _ = try await f.read(ObjectPath(Standard.unit().rawValue + "/desc001c")!, interface: Iface.descriptor)
        try await f.call(
            Standard.unit(), Iface.characteristic, "WriteValue",
            [.bytes(Array("C".utf8)), .propertyMap([("type", .string("request"))])])
        #expect(text(try await f.read(Standard.unit())) == "C")
        #expect(text(try await f.read(temperature)).hasSuffix(" C"))
        try await f.call(temperature, Iface.characteristic, "StopNotify")
        mark = f.signals.count
        try await f.call(device, Iface.device, "Disconnect")
        try await f.signals.waitChange(after: mark, device, Iface.device, "Connected")
    }

    /// The sequence of the trace (lines 4973-8402, hci1's side), with the two differences the
    /// mock keeps on purpose marked.
    static let expectedTokens: [String] =
        [
            "reply SetDiscoveryFilter",
            "reply StartDiscovery",
            "PC hci0 Adapter1 [Discovering]",
            "IA dev [Device1]",
            "reply StopDiscovery",
            // Trace: -[RSSI] only; the Pi also advertises TxPower, which is invalidated too.
            "PC dev Device1 [] -[RSSI, TxPower]",
            "PC hci0 Adapter1 [Discovering]",
            // Trace: no Connected=true at all — BlueZ's connect race, a fault the mock injects on request.
            "PC dev Device1 [Connected]",
            "reply Connect",
            "PC dev Device1 [UUIDs, ServicesResolved, Name, Alias]",
        ]
        + gattObjects.map { path in
            "IA dev/\(path) [\(path.contains("desc") ? "GattDescriptor1" : path.contains("char") ? "GattCharacteristic1" : "GattService1")]"
        }
        + [
            "PC dev Device1 [Modalias]",
            "reply GetManagedObjects",
            "PC dev/service0015/char0016 GattCharacteristic1 [Value]", "reply ReadValue",
            "PC dev/service0015/char0016 GattCharacteristic1 [Notifying]", "reply StartNotify",
            "PC dev/service0015/char0016 GattCharacteristic1 [Value]",
            "PC dev/service0015/char0016 GattCharacteristic1 [Value]",
            "PC dev/service0015/char0016 GattCharacteristic1 [Value]",
            "PC dev/service0015/char0016/desc0018 GattDescriptor1 [Value]", "reply ReadValue",
            "PC dev/service0015/char0016/desc0019 GattDescriptor1 [Value]", "reply ReadValue",
            "PC dev/service0015/char001a/desc001c GattDescriptor1 [Value]", "reply ReadValue",
            "reply WriteValue",
            "PC dev/service0015/char001a GattCharacteristic1 [Value]", "reply ReadValue",
            "PC dev/service0015/char0016 GattCharacteristic1 [Value]", "reply ReadValue",
            "PC dev/service0015/char0016 GattCharacteristic1 [Notifying]", "reply StopNotify",
            "PC dev Device1 [ServicesResolved]", "reply Disconnect",
            "PC dev Device1 [Connected]",
        ]

    /// Turns the monitor's view into tokens: bluetoothd's signals (content from the recorder)
    /// and its replies to the client's calls, in bus order.
    static func tokens(_ events: [MonitorEvent], _ f: MockFixture) async throws -> [String] {
        let bluetoothd = try #require(await f.mock.bluetoothdUniqueName)
        let client = f.client.uniqueName
        let device = Standard.piFPath.rawValue
        var calls: [UInt32: String] = [:]
        for event in events where event.kind == "method call" && event.sender == client {
            if let serial = event.serial, let member = event.member { calls[serial] = member }
        }
        let recorded = Dictionary(
            f.signals.all.filter { $0.sender == bluetoothd }.map { ($0.serial, $0) }, uniquingKeysWith: { a, _ in a })
        func relative(_ path: String) -> String {
            path == device
                ? "dev"
                : path.hasPrefix(device + "/")
                    ? "dev" + path.dropFirst(device.count) : String(path.split(separator: "/").last ?? "")
        }
        func short(_ interface: String) -> String { String(interface.split(separator: ".").last ?? "") }
        var tokens: [String] = []
        for event in events where event.sender == bluetoothd {
            switch event.kind {
            case "method return", "error":
                guard event.destination == client, let serial = event.replySerial, let member = calls[serial] else {
                    continue
                }
                tokens.append(event.kind == "error" ? "error \(member) \(event.errorName ?? "")" : "reply \(member)")
            case "signal":
                guard let serial = event.serial, let signal = recorded[serial] else { continue }
                switch signal.member {
                case "PropertiesChanged":
                    // The mock's periodic RSSI updates while it scans depend on how long the
                    // scan lasted (a loaded machine lasts longer): not part of the flow.
                    if signal.changedNames == ["RSSI"], signal.invalidated.isEmpty { continue }
                    let gone = signal.invalidated.isEmpty ? "" : " -[\(signal.invalidated.joined(separator: ", "))]"
                    tokens.append(
                        "PC \(relative(signal.path.rawValue)) \(short(signal.changedInterface ?? "")) [\(signal.changedNames.joined(separator: ", "))]\(gone)"
                    )
                case "InterfacesAdded":
                    let interfaces = signal.addedInterfaces.map(\.0).filter { !$0.hasPrefix("org.freedesktop") }.map(
                        short)
                    tokens.append(
                        "IA \(relative(signal.object?.rawValue ?? "")) [\(interfaces.joined(separator: ", "))]")
                case "InterfacesRemoved":
                    tokens.append("IR \(relative(signal.object?.rawValue ?? ""))")
                default:
                    break
                }
            default:
                break
            }
        }
        return tokens
    }

    static func diff(_ got: [String], _ expected: [String]) -> String {
        let index =
            (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? min(got.count, expected.count)
        return
            "first difference at \(index): got \(got.dropFirst(index).prefix(4)) expected \(expected.dropFirst(index).prefix(4))"
    }
}
