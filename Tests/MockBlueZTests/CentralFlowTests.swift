import DBusCore
import MockBlueZ
import TestSupport
import Testing

/// The seed's central flow, with raw D-Bus calls, against the mock.
@Suite("The central flow against the mock")
struct CentralFlowTests {
    @Test("match rules, snapshot, scan by name, connect, resolve, find by UUID, read, notify, disconnect")
    func wholeFlow() async throws {
        try await MockFixture.with { f in
            // 1. Snapshot after the match rules: bluetoothd's managers and a powered adapter, no devices.
            let snapshot = try await f.managedObjects()
            #expect(snapshot["/org/bluez"]?["org.bluez.AgentManager1"] != nil)
            #expect(snapshot[Standard.hci0]?[Iface.adapter]?["Powered"] == .boolean(true))
            #expect(!snapshot.values.contains { $0[Iface.device] != nil })

            // 2. Scan with Transport=le and find the first device named "Thermometer".
            let mark = f.signals.count
            try await f.call(
                Standard.hci0, Iface.adapter, "SetDiscoveryFilter", [.propertyMap([("Transport", .string("le"))])])
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            let (_, found) = try await f.signals.wait(after: mark, "a Thermometer") { signal in
                signal.member == "InterfacesAdded"
                    && signal.addedInterfaces.contains {
                        $0.0 == Iface.device && $0.1.contains { $0 == ("Name", .string("Thermometer")) }
                    }
            }
            let device = try #require(found.object)
            #expect(device == Standard.piFPath)
            let properties = try #require(found.addedInterfaces.first { $0.0 == Iface.device }?.1)
            #expect(properties.contains { $0.0 == "RSSI" })
            #expect(properties.first { $0.0 == "Adapter" }?.1 == .objectPath(Standard.hci0))
            #expect(properties.first { $0.0 == "UUIDs" }?.1 == .strings([]))  // cputemp advertises none

            // 3. Stop scanning: RSSI and TxPower are invalidated, then Discovering=false.
            let stop = f.signals.count
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
            let invalidation = try await f.signals.wait(after: stop, "RSSI invalidation") {
                $0.path == device && $0.invalidated.contains("RSSI")
            }
            #expect(invalidation.signal.invalidated == ["RSSI", "TxPower"])
            let discovering = try await f.signals.waitChange(after: stop, Standard.hci0, Iface.adapter, "Discovering")
            #expect(discovering.index > invalidation.index)

            // 4. Connect: no Connected=true signal (BlueZ's connect race, as in the recorded
            //    traces), `Get` says true (what comes after the reply is checked on the bus
            //    itself, in TraceConformanceTests).
            let connect = f.signals.count
            try await f.call(device, Iface.device, "Connect")
            #expect(!f.signals.since(connect).contains { $0.changedValue("Connected") != nil })
            #expect(try await f.get(device, Iface.device, "Connected") == .boolean(true))
            let resolved = try await f.signals.waitChange(after: connect, device, Iface.device, "ServicesResolved")
            #expect(resolved.signal.changedNames == ["UUIDs", "ServicesResolved", "Name", "Alias"])
            #expect(resolved.signal.changedValue("Name") == .string("BlueZ 5.66"))

            // 5. Find the service and characteristics by UUID, not by path.
            let objects = try await f.managedObjects()
            let service = try #require(
                objects.first {
                    $0.key.isDescendant(of: device) && $0.value[Iface.service]?["UUID"] == .string(Standard.codeService)
                }?.key)
            func characteristic(_ number: Int) throws -> ObjectPath {
                let uuid = "0000000\(number)-710e-4a5b-8d75-3e5b444bc3cf"
                return try #require(
                    objects.first {
                        $0.value[Iface.characteristic]?["Service"] == .objectPath(service)
                            && $0.value[Iface.characteristic]?["UUID"] == .string(uuid)
                    }?.key)
            }
            let temperature = try characteristic(2)
            let unit = try characteristic(3)
            #expect(objects[temperature]?[Iface.characteristic]?["Flags"] == .strings(["read", "notify"]))

            // 6. Read: the value as cputemp formats it, also announced as a Value change.
            let read = f.signals.count
            let value = text(try await f.read(temperature))
            #expect(value.wholeMatch(of: /\d{2,3}\.\d F/) != nil, "\(value)")
            #expect(
                f.signals.since(read).contains {
                    $0.path == temperature && bytes($0.changedValue("Value")).map(text) == value
                })
            #expect(text(try await f.read(unit)) == "F")

            // 7. Subscribe: Notifying=true, then values (one at once, then one per interval).
            let notify = f.signals.count
            try await f.call(temperature, Iface.characteristic, "StartNotify")
            #expect(f.signals.since(notify).first?.changedValue("Notifying") == .boolean(true))
            for _ in 0..<3 {
                let mark = f.signals.count
                let (_, notification) = try await f.signals.waitChange(
                    after: mark, temperature, Iface.characteristic, "Value")
                #expect(bytes(notification.changedValue("Value")).map(text)?.hasSuffix(" F") == true)
            }
            let unsubscribe = f.signals.count
            try await f.call(temperature, Iface.characteristic, "StopNotify")
            // A notification may still go out between the mark and StopNotify; Notifying
            // must have changed by the time the reply is back.
            let notifying = f.signals.since(unsubscribe).first { $0.changedValue("Notifying") != nil }
            #expect(notifying?.changedValue("Notifying") == .boolean(false))

            // 8. Disconnect: ServicesResolved=false before the reply, Connected=false after.
            let disconnect = f.signals.count
            try await f.call(device, Iface.device, "Disconnect")
            #expect(f.signals.since(disconnect).first?.changedNames == ["ServicesResolved"])
            try await f.signals.waitChange(after: disconnect, device, Iface.device, "Connected")
            #expect(try await f.get(device, Iface.device, "Connected") == .boolean(false))
        }
    }

    @Test("the °C thermometer uses the printed UUID spelling and sends Celsius")
    func celsiusThermometer() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer(Standard.piCPath)
            let objects = try await f.managedObjects()
            #expect(
                objects[Standard.piCPath.appending("service0015")!]?[Iface.service]?["UUID"]
                    == .string(Standard.printedService))
            let value = text(try await f.read(Standard.temperature(Standard.piCPath)))
            let celsius = try #require(Double(value.dropLast(2)))
            #expect(value.hasSuffix(" C") && (40...65).contains(celsius), "\(value)")
        }
    }

    @Test("the mock serves nothing of its control interface in org.bluez's tree")
    func controlIsSeparate() async throws {
        try await MockFixture.with { f in
            let objects = try await f.managedObjects()
            #expect(!objects.keys.contains { $0.rawValue.hasPrefix("/org/blectl") })
            let owner = try await f.client.nameOwner("org.blectl.Mock")
            #expect(owner != nil)
            #expect(owner != (try await f.client.nameOwner("org.bluez")))
        }
    }
}
