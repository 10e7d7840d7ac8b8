import DBusCore
import Foundation
import MockBlueZ
import TestSupport
import Testing

/// Adapters identified by their address: re-added under a new index, two with one address
/// (bad input), one that refuses `StartDiscovery`, and blectl-mock's options for them.
@Suite("Adapter identity")
struct AdapterIdentityTests {
    /// The `Address` of the adapter `InterfacesAdded` announced.
    static func address(of signal: Recorded) -> DBusValue? {
        signal.addedInterfaces.first { $0.0 == Iface.adapter }?.1.first { $0.0 == "Address" }?.1
    }

    @Test("hci1 re-added as hci2 keeps its address, its stored devices and its range; a present address is refused")
    func renumbered() async throws {
        var scenario = Radios.scenario()
        try scenario.setSignal(.fixed(-80), adapter: "hci1", peripheral: Standard.piC)
        try await MockFixture.with(scenario) { f in
            try await f.startScan(Radios.hci1)
            try await f.waitForRSSI(Radios.device(Radios.hci1, Standard.piF), count: 1)
            try await f.connect(Radios.device(Radios.hci1, Standard.piF))  // bluetoothd stores it
            try await f.injectThroughControl("remove-adapter", [("adapter", .string("hci1"))])
            let mark = f.signals.count
            try await f.injectThroughControl(
                "add-adapter", [("adapter", .string("hci2")), ("address", .string(Radios.hci1Address))])
            let (_, added) = try await f.signals.wait(after: mark) {
                $0.member == "InterfacesAdded" && $0.object == Radios.hci2
            }
            #expect(Self.address(of: added) == .string(Radios.hci1Address))
            let stored = Radios.device(Radios.hci2, Standard.piF)
            try await f.signals.wait(after: mark) { $0.member == "InterfacesAdded" && $0.object == stored }
            try await f.signals.waitChange(after: mark, Radios.hci2, Iface.adapter, "Powered")
            #expect(try await f.get(stored, Iface.device, "Connected") == .boolean(false))
            try await f.startScan(Radios.hci2)
            let heard = try await f.waitForRSSI(Radios.device(Radios.hci2, Standard.piC), count: 3, after: mark)
            #expect(heard.allSatisfy { (-86 ... -74).contains($0) }, "the range follows the address: \(heard)")
            for address in [Radios.hci0Address, Radios.hci1Address.lowercased()] {
                await expectError("org.blectl.Mock.Error.AdapterExists") {
                    try await f.injectThroughControl(
                        "add-adapter", [("adapter", .string("hci3")), ("address", .string(address))])
                }
            }
            await expectError(DBusError.Name.invalidArgs) {
                try await f.injectThroughControl(
                    "add-adapter", [("adapter", .string("hci3")), ("address", .string("00:1A:7D"))])
            }
        }
    }

    @Test("two adapters with one address: refused at start, made on purpose with allowsDuplicateAdapterAddresses")
    func duplicateAddress() async throws {
        var scenario = Radios.scenario()
        scenario.adapters[1].address = Radios.hci0Address
        _ = try await withPrivateBus { bus in
            await #expect(throws: MockError.self) {
                let mock = try await MockBluetoothd.start(address: bus.address, scenario: scenario)
                await mock.stop()
            }
        }
        scenario.allowsDuplicateAdapterAddresses = true
        try await MockFixture.with(scenario) { f in
            #expect(try await f.get(Radios.hci1, Iface.adapter, "Address") == .string(Radios.hci0Address))
            try await f.mock.inject(.addAdapter("hci2", address: Radios.hci0Address))
            #expect(try await f.get(Radios.hci2, Iface.adapter, "Address") == .string(Radios.hci0Address))
        }
    }

    @Test("an adapter refuses StartDiscovery (InProgress) until the faults are cleared; the others scan")
    func refusesDiscovery() async throws {
        try await MockFixture.with(Radios.scenario()) { f in
            try await f.injectThroughControl(
                "start-discovery-busy", [("adapter", .string("hci1")), ("count", .uint32(0))])
            for _ in 0..<3 {
                await expectError("org.bluez.Error.InProgress", message: "Operation already in progress") {
                    try await f.call(Radios.hci1, Iface.adapter, "StartDiscovery")
                }
            }
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            try await f.signals.waitChange(Standard.hci0, Iface.adapter, "Discovering")
            #expect(try await f.get(Radios.hci1, Iface.adapter, "Discovering") == .boolean(false))
            try await ControlInterfaceTests.control(f.client, "ClearFaults")
            try await f.call(Radios.hci1, Iface.adapter, "StartDiscovery")
            try await f.signals.waitChange(Radios.hci1, Iface.adapter, "Discovering")
        }
    }

    @Test("blectl-mock --adapter-rssi and --duplicate-adapter-address")
    func program() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ControlInterfaceTests.binary))
        try await withPrivateBus { bus in
            let process = try ChildProcess.start(
                ControlInterfaceTests.binary,
                [
                    "--address", bus.address, "--fast", "--others", "0", "--advertisers", "0", "--adapters", "3",
                    "--adapter-rssi", "hci1=-80dBm", "--adapter-rssi", "hci1/\(Standard.piF.lowercased())=none",
                    "--duplicate-adapter-address",
                ],
                logFile: bus.directory.appendingPathComponent("blectl-mock.log"), captureStdout: true)
            do {
                _ = try await process.firstStdoutLine(timeout: .seconds(10))
                let client = try await DBusConnection.connect(to: .address(bus.address), label: "central")
                try await Self.checkProgram(client)
                await client.close()
            } catch {
                await process.stop()
                throw error
            }
            await process.stop()
        }
    }

    /// What `program()`'s options made: hci2 has hci0's address; hci1 hears the °C
    /// thermometer at -80 dBm and never the °F one.
    static func checkProgram(_ client: DBusConnection) async throws {
        let signals = try await SignalRecorder.start(on: client)
        @discardableResult
        func call(_ path: ObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue] = [])
            async throws -> DBusMessage
        {
            try await client.call(
                destination: "org.bluez", path: path, interface: interface, member: member, arguments: arguments,
                timeout: .seconds(5))
        }
        let address = try await call(
            Radios.hci2, Iface.properties, "Get", [.string(Iface.adapter), .string("Address")])
        #expect(try address.decodeSingle(DBusValue.self) == .string(Radios.hci0Address))
        try await call(Radios.hci1, Iface.adapter, "SetDiscoveryFilter", [.propertyMap([("Transport", .string("le"))])])
        try await call(Radios.hci1, Iface.adapter, "StartDiscovery")
        let piC = Radios.device(Radios.hci1, Standard.piC)
        try await waitUntil("5 reports of \(piC)") { signals.rssiValues(piC).count >= 5 }
        #expect(signals.rssiValues(piC).allSatisfy { (-86 ... -74).contains($0) })
        // The °F thermometer advertises as often: it had as many chances to be heard.
        #expect(signals.rssiValues(Radios.device(Radios.hci1, Standard.piF)).isEmpty)
    }

    @Test("blectl-mock refuses bad adapter options (exit 64) with a clear message")
    func programUsage() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: ControlInterfaceTests.binary))
        let cases: [([String], String)] = [
            (["--adapters", "2", "--adapter-rssi", "hci1=loud"], "--adapter-rssi takes -80 (dBm), -15dB"),
            (["--adapters", "2", "--adapter-rssi", "hci5=-80"], "--adapter-rssi hci5=-80: no adapter hci5"),
            (["--adapters", "2", "--adapter-rssi", "hci1/00:00:00:00:00:09=none"], "no peripheral 00:00:00:00:00:09"),
            (["--rssi-flap", Standard.piF], "--rssi-flap needs --adapters 2"),
            (["--duplicate-adapter-address"], "--duplicate-adapter-address needs --adapters 2"),
        ]
        let directory = FileManager.default.temporaryDirectory
        for (index, (arguments, message)) in cases.enumerated() {
            let bad = try ChildProcess.start(
                ControlInterfaceTests.binary, arguments,
                logFile: directory.appendingPathComponent("blectl-mock-adapters-\(index).log"))
            #expect(await bad.waitForExit(timeout: .seconds(5)) == 64, "\(arguments)")
            #expect(bad.log().contains(message), "\(arguments): \(bad.log())")
        }
    }
}
