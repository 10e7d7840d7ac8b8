@testable import BlueZClient
@testable import Central
import DBusCore
import MockBlueZ
import SensorModel
import TestSupport
import Testing

/// Another program on the bus pretending to be bluetoothd (the class of bug GLib fixed as
/// CVE-2024-34397): its signals, sent straight to the central or broadcast, must change
/// nothing.
@Suite("Forged BlueZ signals")
struct ForgedSignalTests {
    @Test("forged values, power changes and device changes from a non-owner change nothing")
    func forgeriesAreIgnored() async throws {
        try await MockFixture.with(scenario: MockFixture.scenario(thermometers: 1, others: 0)) { fixture in
            let pi = MockFixture.fahrenheitPi
            let (monitor, log) = await startMonitor(fixture)
            _ = try await log.first(reading(from: pi))
            let central = fixture.central
            let characteristic = try await temperatureCharacteristic(central, pi)
            let device = try #require(await central.knownDevicePath(BluetoothAddress(pi)!))
            let adapter = try #require(device.parentAdapter)
            let target = central.client.connection.uniqueName
            let attacker = try await DBusConnection.connect(to: .address(fixture.bus.address), label: "attacker")
            let mark = log.count
            for destination in [target, nil] {
                try await attacker.send(
                    .signal(
                        path: characteristic, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                        arguments: [
                            .string("org.bluez.GattCharacteristic1"),
                            .propertyMap([("Value", .bytes(Array("151.9 F".utf8)))]), .array(element: "s", []),
                        ], destination: destination))
                try await attacker.send(
                    .signal(
                        path: adapter, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                        arguments: [
                            .string("org.bluez.Adapter1"), .propertyMap([("Powered", .boolean(false))]),
                            .array(element: "s", []),
                        ], destination: destination))
                try await attacker.send(
                    .signal(
                        path: .root, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved",
                        arguments: [
                            .objectPath(device.objectPath), .array(element: "s", [.string("org.bluez.Device1")]),
                        ],
                        destination: destination))
                let fake = try #require(adapter.appending("dev_11_22_33_44_55_66"))
                try await attacker.send(
                    .signal(
                        path: .root, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
                        arguments: [
                            .objectPath(fake),
                            .dictionary(
                                key: "s", value: "a{sv}",
                                [
                                    DBusDictionaryEntry(
                                        .string("org.bluez.Device1"),
                                        .propertyMap([
                                            ("Address", .string("11:22:33:44:55:66")), ("Name", .string("Thermometer")),
                                            ("RSSI", .int16(-40)), ("Connected", .boolean(false)),
                                        ]))
                                ]),
                        ], destination: destination))
            }
            // The directed forgeries reach the central's connection: wait until all four are refused.
            // (Polled: a refusal is no event that would wake a condition wait, and under load the
            // refusals can come after the wait's first check.)
            let deadline = ContinuousClock.now + Duration.seconds(20).scaled
            while await central.rejectedSignals < 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await central.rejectedSignals >= 4)
            // Two more genuine readings pass through: anything forged would be reported by now.
            _ = try await log.first(after: log.count, reading(from: pi))
            _ = try await log.first(after: log.count, reading(from: pi))
            let after = log.all.dropFirst(mark)
            #expect(!after.contains { reading(from: pi)($0)?.raw == "151.9 F" }, "a forged value was reported")
            #expect(!after.contains { if case .disconnected = $0 { true } else { false } })
            #expect(!after.contains { if case .peripheralLost = $0 { true } else { false } })
            #expect(
                !after.contains { if case .adapterState(_, let state, _) = $0 { state != .poweredOn } else { false } })
            #expect(await central.state == .poweredOn)
            #expect(await central.knownDevices().map { $0.address?.description } == [pi])
            await monitor.shutdown()
            await attacker.close()
        }
    }

    private func temperatureCharacteristic(_ central: CentralManager, _ address: String) async throws -> ObjectPath {
        let path = try #require(await central.knownDevicePath(BluetoothAddress(address)!))
        let peripheral = Peripheral(address: BluetoothAddress(address)!, path: path, name: nil)
        let service = try #require(
            await central.currentServices(PiCPUTemperatureProfile.defaultServiceUUIDs, of: peripheral).first)
        let characteristic = try #require(
            await central.currentCharacteristics(
                PiCPUTemperatureProfile.defaultTemperatureCharacteristicUUIDs, of: service
            ).first)
        return characteristic.path.objectPath
    }
}

extension BlueZPath {
    /// The adapter above a device path.
    fileprivate var parentAdapter: ObjectPath? { objectPath.parent }
}
