import DBusCore
import Foundation
import MockBlueZ
import TestSupport
import Testing

/// The mock against the recording of a real BlueZ 5.66 session (`shared/docs/traces`, a
/// python central on hci1), normalised into `Tests/Fixtures/traces` by `Tests/E2E/traces.py`:
/// the same interfaces, property names, types and order, and the same order of signals and
/// replies. Every table and the expected sequence are read from that file; the differences
/// the mock keeps on purpose are listed once, in ``knownDifferences`` (and in
/// docs/mock-adapter.md).
@Suite("Conformance with the real BlueZ 5.66 trace")
struct TraceConformanceTests {
    // MARK: The recorded session

    /// The central's adapter and the Thermometer as the session names them.
    static let adapterPath = RecordedTrace.paths[RecordedTrace.session]!.adapter
    static let devicePath = RecordedTrace.paths[RecordedTrace.session]!.device

    /// Both recordings: the session, and the e2e suite (blectld on hci0, thermometer A on hci1).
    static let recordings = [RecordedTrace.session, RecordedTrace.e2e]

    /// A recording, loaded once per test, with the paths it gives the adapter and the Thermometer.
    struct Session {
        let trace: RecordedTrace
        let adapterPath: String
        let devicePath: String

        init(_ name: String = RecordedTrace.session) async throws {
            trace = try await RecordedTrace.load(name)
            (adapterPath, devicePath) = try #require(RecordedTrace.paths[name], "no paths for \(name)")
        }

        /// `interface`'s properties of `suffix` (under the device) when bluetoothd added it.
        func added(_ suffix: String, _ interface: String) throws -> [(String, RecordedTrace.Value)] {
            let path = suffix.isEmpty ? devicePath : devicePath + "/" + suffix
            let interfaces = try #require(trace.interfaces(of: path, in: "InterfacesAdded"), "\(path) in the trace")
            return try #require(interfaces.first { $0.0 == interface }?.1, "\(interface) of \(path)")
        }

        /// The adapter's interfaces in the first `GetManagedObjects` that shows it powered
        /// (bluetoothd exports `LEAdvertisingManager1` a moment after the adapter itself).
        func adapter() throws -> [(String, [(String, RecordedTrace.Value)])] {
            try #require(
                trace.interfaces(of: adapterPath, in: "GetManagedObjects") {
                    $0[Iface.adapter]?.first { $0.0 == "Powered" }?.1.bool == true
                })
        }

        /// `Device1` of the Thermometer in a `GetManagedObjects` while it was connected, without
        /// `RSSI` (there while a scan runs: blectld in the e2e suite keeps one running for
        /// advertising sensors; the test's flow stops it).
        func connectedDevice() throws -> [(String, RecordedTrace.Value)] {
            let interfaces = try #require(
                trace.interfaces(of: devicePath, in: "GetManagedObjects") {
                    $0[Iface.device]?.first { $0.0 == "Connected" }?.1.bool == true
                })
            return try #require(interfaces.first { $0.0 == Iface.device }?.1).filter { $0.0 != "RSSI" }
        }

        /// The GATT objects under the Thermometer, relative, in `InterfacesAdded` order: the
        /// first run of them (later connects and app restarts add them again).
        var gattObjects: [String] {
            var objects: [String] = []
            for message in trace.messages where message.from == "bluez" {
                guard message.member == "InterfacesAdded", let path = message.args.first?.text,
                    path.hasPrefix(devicePath + "/")
                else {
                    if objects.isEmpty { continue } else { break }
                }
                objects.append(String(path.dropFirst(devicePath.count + 1)))
            }
            return objects
        }
    }

    /// Live properties against the recorded ones: the same names in the same order, each of
    /// the recorded type.
    static func expectShape(
        _ live: [(String, DBusValue)], _ recorded: [(String, RecordedTrace.Value)], _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(live.map(\.0) == recorded.map(\.0), "\(what): names", sourceLocation: sourceLocation)
        for ((name, value), (_, expected)) in zip(live, recorded) where !expected.matches(value.signature.rawValue) {
            Issue.record(
                "\(what): \(name) is \(value.signature), the trace has \(expected.signature)",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: Tests

    @Test(
        "a discovered Thermometer's InterfacesAdded: the trace's properties and types, in order",
        arguments: recordings)
    func discoveredDevice(recording: String) async throws {
        let recorded = try await Session(recording).added("", Iface.device)
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
            Self.expectShape(device.filter { $0.0 != "TxPower" }, recorded, "Device1 when discovered")
            #expect(device.first { $0.0 == "TxPower" }?.1.signature == "n")
            #expect(device.first { $0.0 == "Name" }?.1 == .string("Thermometer"))
            #expect(device.first { $0.0 == "Alias" }?.1 == .string("Thermometer"))
            #expect(device.first { $0.0 == "AddressType" }?.1 == .string("public"))
            #expect(device.first { $0.0 == "ServicesResolved" }?.1 == .boolean(false))
        }
    }

    @Test("a nameless device has no Name and the address with dashes as Alias (as bluetoothd names one)")
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

    @Test(
        "the adapter and the connected device's GATT objects: the trace's tables and handle paths",
        arguments: recordings)
    func managedObjects(recording: String) async throws {
        let session = try await Session(recording)
        let recordedAdapter = try session.adapter()
        let recordedDevice = try session.connectedDevice()
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let objects = try await f.managedObjects()
            let adapter = try #require(objects[Standard.hci0])
            #expect(Set(adapter.keys) == Set(recordedAdapter.map(\.0)))
            Self.expectShape(
                try await f.getAll(Standard.hci0, Iface.adapter),
                try #require(recordedAdapter.first { $0.0 == Iface.adapter }?.1), "Adapter1")

            let device = Standard.piFPath
            let list = try await f.getAll(device, Iface.device)
            // RSSI/TxPower were invalidated when scanning stopped.
            Self.expectShape(list, recordedDevice, "Device1 when connected")
            #expect(
                list.first { $0.0 == "UUIDs" }?.1
                    == .strings([
                        Standard.codeService, "00001800-0000-1000-8000-00805f9b34fb",
                        "00001801-0000-1000-8000-00805f9b34fb", "0000180a-0000-1000-8000-00805f9b34fb",
                    ]))

            let gatt = objects.keys.filter { $0.isDescendant(of: device, includingSelf: false) }
                .map { String($0.rawValue.dropFirst(device.rawValue.count + 1)) }.sorted()
            #expect(gatt == session.gattObjects.sorted())

            // A service, the temperature (read, notify), the unit (read, write), Service
            // Changed (indicate only: no NotifyAcquired), a descriptor.
            for (suffix, interface) in [
                ("service0015", Iface.service), ("service0015/char0016", Iface.characteristic),
                ("service0015/char001a", Iface.characteristic), ("service0008/char0009", Iface.characteristic),
                ("service0015/char0016/desc0019", Iface.descriptor),
            ] {
                let path = ObjectPath(device.rawValue + "/" + suffix)!
                Self.expectShape(try await f.getAll(path, interface), try session.added(suffix, interface), suffix)
            }
            // Values the trace shows: the temperature's flags and MTU, the GATT service's
            // Server Supported Features (char0010) and Database Hash (char000e, 16 bytes).
            let temperature = try #require(objects[Standard.temperature()]?[Iface.characteristic])
            let recorded = Dictionary(
                try session.added("service0015/char0016", Iface.characteristic), uniquingKeysWith: { a, _ in a })
            #expect(temperature["Flags"] == .strings(recorded["Flags"]?.items.compactMap(\.text) ?? []))
            #expect(temperature["MTU"] == (recorded["MTU"]?.raw as? Int).map { .uint16(UInt16($0)) })
            for (suffix, sameBytes) in [("service0008/char0010", true), ("service0008/char000e", false)] {
                let recorded = try #require(
                    try session.added(suffix, Iface.characteristic).first { $0.0 == "Value" }?.1.text)
                let live = try #require(
                    bytes(objects[ObjectPath(device.rawValue + "/" + suffix)!]?[Iface.characteristic]?["Value"]))
                let hex = live.map { String(format: "%02x", $0) }.joined()
                #expect(sameBytes ? hex == recorded : hex.count == recorded.count, "\(suffix): \(hex)")
            }
        }
    }

    /// How often real BlueZ announced `Connected=true` before its `Connect` reply, in the
    /// e2e suite's connects: the mock's default follows the majority.
    @Test("Connect announces Connected=true when real BlueZ mostly did, in the e2e trace (it did not)")
    func connectRace() async throws {
        let trace = try await RecordedTrace.load(RecordedTrace.e2e)
        let announced = Self.connectsAnnounced(trace)
        #expect(announced.count >= 5, "connects in the e2e trace")
        let real = announced.filter { $0 }.count * 2 > announced.count
        try await MockFixture.with { f in
            try await f.discover(Standard.piFPath)
            let mark = f.signals.count
            try await f.call(Standard.piFPath, Iface.device, "Connect")
            let mock = f.signals.since(mark).contains { $0.changedValue("Connected") == .boolean(true) }
            #expect(mock == real, "real BlueZ announced \(announced.filter { $0 }.count) of \(announced.count)")
        }
    }

    /// For each successful `Connect` of the central: whether a `Connected=true` signal on the
    /// device came before the reply.
    static func connectsAnnounced(_ trace: RecordedTrace) -> [Bool] {
        let messages = trace.messages
        var result: [Bool] = []
        for (index, call) in messages.enumerated() where call.from == "central" && call.member == "Connect" {
            guard let reply = messages[(index + 1)...].firstIndex(where: { $0.replyTo == index }),
                messages[reply].kind == "return"
            else { continue }
            result.append(
                messages[(index + 1)..<reply].contains { message in
                    message.path == call.path
                        && message.propertiesChanged?.changed.contains { $0.0 == "Connected" && $0.1.bool == true }
                            == true
                })
        }
        return result
    }

    /// The trace's flow, token by token, as the bus passed it on (bluetoothd's signals and its
    /// replies to the central), from `SetDiscoveryFilter` to `Connected=false`.
    @Test("the same flow produces the trace's sequence of signals and replies")
    func sequence() async throws {
        let expected = Self.applyKnownDifferences(try await Self.expectedTokens(Session().trace))
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
                while tokens.count < expected.count, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    tokens = try await Self.tokens(monitor.all, f)
                }
                await monitor.stop()
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
        _ = try await f.managedObjects()
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

    /// The calls of ``runTraceFlow(_:)``: replies to other calls (the trace's central also
    /// introspected and polled `Get`) are not part of the flow.
    static let flowCalls: Set = [
        "SetDiscoveryFilter", "StartDiscovery", "StopDiscovery", "Connect", "GetManagedObjects", "ReadValue",
        "StartNotify", "WriteValue", "StopNotify", "Disconnect",
    ]

    /// The trace's sequence from the central's `SetDiscoveryFilter` to `Connected=false`.
    static func expectedTokens(_ trace: RecordedTrace) throws -> [String] {
        let messages = trace.messages
        let start = try #require(messages.firstIndex { $0.from == "central" && $0.member == "SetDiscoveryFilter" })
        var tokens: [String] = []
        for message in messages[start...] where message.from == "bluez" {
            switch message.kind {
            case "return", "error":
                guard message.to == "central", let call = message.replyTo, flowCalls.contains(messages[call].member)
                else { continue }
                tokens.append(Token.reply(messages[call].member, error: message.error))
            case "signal":
                if let change = message.propertiesChanged {
                    let names = change.changed.map(\.0)
                    guard
                        let token = Token.propertiesChanged(
                            relative(message.path), change.interface, names, change.invalidated)
                    else { continue }
                    tokens.append(token)
                    if token == "PC dev Device1 [Connected]" { return tokens }
                } else if message.member == "InterfacesAdded", let object = message.args.first?.text {
                    tokens.append(Token.interfacesAdded(relative(object), message.args[1].entries.map(\.0)))
                } else if message.member == "InterfacesRemoved", let object = message.args.first?.text {
                    tokens.append(Token.interfacesRemoved(relative(object)))
                }
            default:
                continue
            }
        }
        return tokens
    }

    /// What the mock does differently on purpose, as edits of the trace's sequence (each also
    /// in docs/mock-adapter.md, "Known differences").
    static let knownDifferences: [(what: String, apply: @Sendable ([String]) -> [String])] = [
        (
            "the Pi advertises its TX power (cputemp's IncludeTxPower), the trace's emulated radio did not: "
                + "stopping the scan invalidates TxPower too",
            { $0.map { $0 == "PC dev Device1 [] -[RSSI]" ? "PC dev Device1 [] -[RSSI, TxPower]" : $0 } }
        )
    ]

    static func applyKnownDifferences(_ tokens: [String]) -> [String] {
        knownDifferences.reduce(tokens) { tokens, difference in difference.apply(tokens) }
    }

    /// A path as the tokens name it: the adapter, the device and what is under it.
    static func relative(_ path: String, adapter: String = adapterPath, device: String = devicePath) -> String {
        if path == adapter { return "adapter" }
        if path == device { return "dev" }
        if path.hasPrefix(device + "/") { return "dev" + path.dropFirst(device.count) }
        return path
    }

    /// One step of a flow as both sides write it: bluetoothd's signals and its replies.
    enum Token {
        static func short(_ interface: String) -> String { String(interface.split(separator: ".").last ?? "") }

        /// Nil for an update of `RSSI` alone: how many the scan brings depends on its length.
        static func propertiesChanged(_ path: String, _ interface: String, _ names: [String], _ invalidated: [String])
            -> String?
        {
            if names == ["RSSI"], invalidated.isEmpty { return nil }
            let gone = invalidated.isEmpty ? "" : " -[\(invalidated.joined(separator: ", "))]"
            return "PC \(path) \(short(interface)) [\(names.joined(separator: ", "))]\(gone)"
        }

        static func interfacesAdded(_ path: String, _ interfaces: [String]) -> String {
            "IA \(path) [\(interfaces.filter { !$0.hasPrefix("org.freedesktop") }.map(short).joined(separator: ", "))]"
        }

        static func interfacesRemoved(_ path: String) -> String { "IR \(path)" }

        static func reply(_ member: String, error: String?) -> String {
            error.map { "error \(member) \($0)" } ?? "reply \(member)"
        }
    }

    /// Turns the monitor's view into tokens: bluetoothd's signals (content from the recorder)
    /// and its replies to the client's calls, in bus order.
    static func tokens(_ events: [MonitorEvent], _ f: MockFixture) async throws -> [String] {
        let bluetoothd = try #require(await f.mock.bluetoothdUniqueName)
        let client = f.client.uniqueName
        var calls: [UInt32: String] = [:]
        for event in events where event.kind == "method call" && event.sender == client {
            if let serial = event.serial, let member = event.member { calls[serial] = member }
        }
        let recorded = Dictionary(
            f.signals.all.filter { $0.sender == bluetoothd }.map { ($0.serial, $0) }, uniquingKeysWith: { a, _ in a })
        func relative(_ path: ObjectPath?) -> String {
            Self.relative(path?.rawValue ?? "", adapter: Standard.hci0.rawValue, device: Standard.piFPath.rawValue)
        }
        var tokens: [String] = []
        for event in events where event.sender == bluetoothd {
            switch event.kind {
            case "method return", "error":
                guard event.destination == client, let serial = event.replySerial, let member = calls[serial] else {
                    continue
                }
                tokens.append(Token.reply(member, error: event.kind == "error" ? event.errorName ?? "" : nil))
            case "signal":
                guard let serial = event.serial, let signal = recorded[serial] else { continue }
                switch signal.member {
                case "PropertiesChanged":
                    if let token = Token.propertiesChanged(
                        relative(signal.path), signal.changedInterface ?? "", signal.changedNames, signal.invalidated)
                    {
                        tokens.append(token)
                    }
                case "InterfacesAdded":
                    tokens.append(Token.interfacesAdded(relative(signal.object), signal.addedInterfaces.map(\.0)))
                case "InterfacesRemoved":
                    tokens.append(Token.interfacesRemoved(relative(signal.object)))
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
