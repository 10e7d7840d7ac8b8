import DBusCore
import MockBlueZ
import TestSupport
import Testing

@Suite("Discovery: sessions, filters, devices coming and going")
struct DiscoveryTests {
    @Test("one session per client: a second StartDiscovery is InProgress, StopDiscovery without one fails")
    func sessionPerClient() async throws {
        try await MockFixture.with { f in
            await expectError("org.bluez.Error.Failed", message: "No discovery started") {
                try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
            }
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            await expectError("org.bluez.Error.InProgress", message: "Operation already in progress") {
                try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            }
            try await f.signals.waitChange(Standard.hci0, Iface.adapter, "Discovering")
            #expect(try await f.get(Standard.hci0, Iface.adapter, "Discovering") == .boolean(true))
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
        }
    }

    @Test("StopDiscovery ends only the caller's session; a session ends with its client's connection")
    func sharedDiscovery() async throws {
        try await MockFixture.with { f in
            let other = try await f.newClient()
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery", on: other)
            try await f.signals.waitChange(Standard.hci0, Iface.adapter, "Discovering")
            let mark = f.signals.count
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
            let stillOn = try await nothingHappened(
                before: "a round trip after StopDiscovery",
                reached: {
                    try await f.barrier()
                    return true
                }
            ) { f.signals.since(mark).contains { $0.changedValue("Discovering") != nil } }
            #expect(stillOn, "\(f.signals.since(mark))")
            #expect(try await f.get(Standard.hci0, Iface.adapter, "Discovering") == .boolean(true))
            await other.close()  // its session dies with its connection
            let (_, stopped) = try await f.signals.waitChange(after: mark, Standard.hci0, Iface.adapter, "Discovering")
            #expect(stopped.changedValue("Discovering") == .boolean(false))
        }
    }

    @Test("devices appear while discovering: Name, RSSI, TxPower, ManufacturerData as advertised")
    func devicesAppear() async throws {
        try await MockFixture.with { f in
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            for path in [Standard.piFPath, Standard.piCPath, Standard.strapPath, Standard.beaconPath] {
                try await f.signals.wait { $0.member == "InterfacesAdded" && $0.object == path }
            }
            let objects = try await f.managedObjects()
            let strap = try #require(objects[Standard.strapPath]?[Iface.device])
            #expect(strap["Name"] == .string("HRM-Pro 1"))
            #expect(strap["AddressType"] == .string("random"))
            #expect(strap["UUIDs"] == .strings(["0000180d-0000-1000-8000-00805f9b34fb"]))
            #expect(strap["TxPower"] == nil)
            let pi = try #require(objects[Standard.piFPath]?[Iface.device])
            #expect(pi["TxPower"] == .int16(7))
            guard case .int16(let rssi)? = pi["RSSI"] else {
                Issue.record("no RSSI")
                return
            }
            #expect((-75 ... -40).contains(rssi))
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
        }
    }

    @Test("stopping: RSSI/TxPower invalidated, the non-connectable beacon removed at once, then Discovering=false")
    func stopInvalidates() async throws {
        try await MockFixture.with { f in
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            try await f.signals.wait { $0.member == "InterfacesAdded" && $0.object == Standard.beaconPath }
            let mark = f.signals.count
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
            let (done, _) = try await f.signals.waitChange(after: mark, Standard.hci0, Iface.adapter, "Discovering")
            let signals = f.signals.since(mark).prefix(done - mark + 1)
            let removal = try #require(
                signals.firstIndex { $0.member == "InterfacesRemoved" && $0.object == Standard.beaconPath })
            let beaconInvalidation = try #require(
                signals.firstIndex { $0.path == Standard.beaconPath && $0.invalidated == ["RSSI"] })
            #expect(beaconInvalidation < removal)
            #expect(signals.contains { $0.path == Standard.piFPath && $0.invalidated == ["RSSI", "TxPower"] })
            let objects = try await f.managedObjects()
            #expect(objects[Standard.beaconPath] == nil)
            #expect(objects[Standard.piFPath]?[Iface.device]?["RSSI"] == nil)
        }
    }

    @Test("unconnected devices vanish TemporaryTimeout after discovery stops")
    func temporaryTimeout() async throws {
        var scenario = Standard.scenario()
        scenario.timings.temporaryTimeout = .milliseconds(400)
        try await MockFixture.with(scenario) { f in
            // Counted from before discovery: on a loaded machine the 400 ms can pass before
            // `discover` has returned, and the removal would come before a later mark.
            let mark = f.signals.count
            try await f.discover(Standard.piFPath)
            try await f.signals.wait(after: mark) {
                $0.member == "InterfacesRemoved" && $0.object == Standard.piFPath
            }
            await expectError("org.freedesktop.DBus.Error.UnknownObject") {
                try await f.call(Standard.piFPath, Iface.device, "Connect")
            }
        }
    }

    @Test("SetDiscoveryFilter: UUIDs, Pattern and Transport decide which devices are reported")
    func filters() async throws {
        try await MockFixture.with { f in
            // Scans with `filter` until every `expected` device was reported, then a while
            // longer (for devices that must not be), and returns what was reported.
            func scan(_ filter: [(String, DBusValue)], expecting expected: Set<ObjectPath>) async throws -> Set<
                ObjectPath
            > {
                let client = try await f.newClient()
                let mark = f.signals.count
                let heardBefore = await f.mock.reportsHeard(adapter: "hci0")
                try await f.call(Standard.hci0, Iface.adapter, "SetDiscoveryFilter", [.propertyMap(filter)], on: client)
                try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery", on: client)
                for path in expected {
                    try await f.signals.wait(after: mark, "\(path) reported") { Self.reported($0) == path }
                }
                // Every peripheral heard in this scan, and a round trip after: a device the
                // filter let through has been reported by now.
                let peripherals = await f.mock.devices().count
                #expect(
                    await eventually(within: .seconds(5)) {
                        let heard = await f.mock.reportsHeard(adapter: "hci0")
                        return heard.count == peripherals
                            && heard.indices.allSatisfy { heard[$0] > heardBefore.dropFirst($0).first ?? 0 }
                    })
                try await f.barrier()
                await client.close()
                try await f.signals.wait(after: mark, "Discovering=false") {
                    $0.path == Standard.hci0 && $0.changedValue("Discovering") == .boolean(false)
                }
                try await Task.sleep(for: .milliseconds(50))
                let reported = Set(f.signals.since(mark).compactMap(Self.reported))
                for path in reported {
                    _ = try? await f.call(Standard.hci0, Iface.adapter, "RemoveDevice", [.objectPath(path)])
                }
                return reported
            }
            let byUUID = try await scan([("UUIDs", .strings(["180d"]))], expecting: [Standard.strapPath])
            #expect(byUUID == [Standard.strapPath])
            let byPattern = try await scan(
                [("Pattern", .string("DC:A6"))], expecting: [Standard.piFPath, Standard.piCPath])
            #expect(byPattern == [Standard.piFPath, Standard.piCPath])
            let classic = try await scan([("Transport", .string("bredr"))], expecting: [])
            #expect(classic.isEmpty)
            let strong = try await scan(
                [("Transport", .string("le")), ("RSSI", .int16(-59))], expecting: [Standard.piFPath])
            #expect(strong == [Standard.piFPath])
        }
    }

    @Test("with a filter, every advertisement is a PropertiesChanged of RSSI")
    func filteredRSSIUpdates() async throws {
        try await MockFixture.with { f in
            try await f.call(
                Standard.hci0, Iface.adapter, "SetDiscoveryFilter", [.propertyMap([("Transport", .string("le"))])])
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            try await f.signals.wait { $0.member == "InterfacesAdded" && $0.object == Standard.piFPath }
            for _ in 0..<3 {
                let mark = f.signals.count
                try await f.signals.waitChange(after: mark, Standard.piFPath, Iface.device, "RSSI")
            }
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
        }
    }

    @Test("bad filters are InvalidArguments; GetDiscoveryFilters lists bluetoothd's keys")
    func badFilters() async throws {
        try await MockFixture.with { f in
            for filter: [(String, DBusValue)] in [
                [("RSSI", .int16(-60)), ("Pathloss", .uint16(20))], [("Transport", .string("usb"))],
                [("Colour", .string("blue"))], [("RSSI", .int32(-60))], [("UUIDs", .strings(["not-a-uuid"]))],
            ] {
                await expectError("org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call") {
                    try await f.call(Standard.hci0, Iface.adapter, "SetDiscoveryFilter", [.propertyMap(filter)])
                }
            }
            let keys = try await f.call(Standard.hci0, Iface.adapter, "GetDiscoveryFilters").decodeSingle([String].self)
            #expect(keys == ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"])
        }
    }

    @Test("a client with only a filter that leaves makes bluetoothd announce Discovering=false again (trace end)")
    func filterOnlyClientLeaves() async throws {
        try await MockFixture.with { f in
            let other = try await f.newClient()
            try await f.call(
                Standard.hci0, Iface.adapter, "SetDiscoveryFilter", [.propertyMap([("Transport", .string("le"))])],
                on: other)
            let mark = f.signals.count
            await other.close()
            let (_, signal) = try await f.signals.waitChange(after: mark, Standard.hci0, Iface.adapter, "Discovering")
            #expect(signal.changedValue("Discovering") == .boolean(false))
        }
    }

    @Test("RemoveDevice removes the object; an unknown one DoesNotExist")
    func removeDevice() async throws {
        try await MockFixture.with { f in
            try await f.discover(Standard.piFPath)
            let mark = f.signals.count
            try await f.call(Standard.hci0, Iface.adapter, "RemoveDevice", [.objectPath(Standard.piFPath)])
            let (_, removed) = try await f.signals.wait(after: mark) {
                $0.member == "InterfacesRemoved" && $0.object == Standard.piFPath
            }
            #expect(
                Set(removed.removedInterfaces) == [
                    Iface.device, "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties",
                ])
            await expectError("org.bluez.Error.DoesNotExist", message: "Does Not Exist") {
                try await f.call(Standard.hci0, Iface.adapter, "RemoveDevice", [.objectPath(Standard.piFPath)])
            }
        }
    }

    @Test("two adapters see the same peripherals, each with its own device objects")
    func twoAdapters() async throws {
        var scenario = Standard.scenario()
        scenario.adapters = [MockAdapterSpec(index: 0), MockAdapterSpec(index: 1)]
        try await MockFixture.with(scenario) { f in
            let hci1: ObjectPath = "/org/bluez/hci1"
            #expect(try await f.get(hci1, Iface.adapter, "Powered") == .boolean(true))
            try await f.call(hci1, Iface.adapter, "StartDiscovery")
            let (_, added) = try await f.signals.wait {
                $0.member == "InterfacesAdded" && $0.object == ObjectPath("/org/bluez/hci1/dev_DC_A6_32_00_00_01")
            }
            #expect(
                added.addedInterfaces.first { $0.0 == Iface.device }?.1.first { $0.0 == "Adapter" }?.1
                    == .objectPath(hci1))
            #expect(try await f.get(Standard.hci0, Iface.adapter, "Discovering") == .boolean(false))
            try await f.call(hci1, Iface.adapter, "StopDiscovery")
        }
    }

    /// The device a signal reports as seen by a scan: added, or its RSSI updated.
    static func reported(_ signal: Recorded) -> ObjectPath? {
        if signal.member == "InterfacesAdded" { return signal.object }
        return signal.changedValue("RSSI") != nil ? signal.path : nil
    }

}
