import DBusCore
import MockBlueZ
import TestSupport
import Testing

/// Every fault knob, with the exact signals real BlueZ 5.66 shows (see the notes' "Faults").
@Suite("Faults, shaped as real BlueZ shows them")
struct FaultTests {
    static let temperature = Standard.temperature()

    /// Connects the °F thermometer and subscribes to its temperature.
    static func subscribed(_ f: MockFixture) async throws {
        try await f.connectThermometer()
        let mark = f.signals.count
        try await f.call(temperature, Iface.characteristic, "StartNotify")
        try await f.signals.waitChange(after: mark, temperature, Iface.characteristic, "Value")
    }

    static func powerOffSequence(_ signals: [Recorded]) -> [String] {
        signals.filter { $0.member == "PropertiesChanged" && $0.changedValue("Value") == nil }.map(\.description)
    }

    @Test(
        "power off: ServicesResolved/Connected=false, Notifying=false, Powered=false, Discovering=false; NotReady meanwhile"
    )
    func powerOff() async throws {
        try await MockFixture.with { f in
            try await Self.subscribed(f)
            let mark = f.signals.count
            try await f.mock.inject(.powerOff(adapter: "hci0"))
            try await f.signals.waitChange(after: mark, Standard.hci0, Iface.adapter, "Discovering")
            #expect(
                Self.powerOffSequence(f.signals.since(mark)) == [
                    "PC \(Standard.piFPath) \(Iface.device) [ServicesResolved=false, Connected=false]",
                    "PC \(Self.temperature) \(Iface.characteristic) [Notifying=false]",
                    "PC \(Standard.hci0) \(Iface.adapter) [Powered=false]",
                    "PC \(Standard.hci0) \(Iface.adapter) [Discovering=false]",
                ])
            await expectError("org.bluez.Error.NotReady", message: "Resource Not Ready") {
                try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            }
            await expectError("org.bluez.Error.NotReady") {
                try await f.call(Standard.piFPath, Iface.device, "Connect")
            }
            let objects = try await f.managedObjects()  // Device1 and GATT objects are kept
            #expect(objects[Standard.piFPath] != nil && objects[Self.temperature] != nil)
            let on = f.signals.count
            try await f.mock.inject(.powerOn(adapter: "hci0"))
            try await f.signals.waitChange(after: on, Standard.hci0, Iface.adapter, "Powered")
            try await f.connect(Standard.piFPath)
        }
    }

    @Test("Powered is settable: off through Properties.Set shows the same signals, and on again works")
    func setPowered() async throws {
        try await MockFixture.with { f in
            try await Self.subscribed(f)
            let mark = f.signals.count
            try await f.call(
                Standard.hci0, Iface.properties, "Set",
                [.string(Iface.adapter), .string("Powered"), .variant(.boolean(false))])
            try await f.signals.waitChange(after: mark, Standard.hci0, Iface.adapter, "Discovering")
            #expect(Self.powerOffSequence(f.signals.since(mark)).count == 4)
            #expect(try await f.get(Standard.hci0, Iface.adapter, "Powered") == .boolean(false))
            try await f.call(
                Standard.hci0, Iface.properties, "Set",
                [.string(Iface.adapter), .string("Powered"), .variant(.boolean(true))])
            #expect(try await f.get(Standard.hci0, Iface.adapter, "Powered") == .boolean(true))
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
        }
    }

    @Test("the adapter is removed (GATT objects, devices, then the adapter) and comes back powered by AutoEnable")
    func removeAndAddAdapter() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let mark = f.signals.count
            try await f.mock.inject(.removeAdapter("hci0"))
            let (end, _) = try await f.signals.wait(after: mark) {
                $0.member == "InterfacesRemoved" && $0.object == Standard.hci0
            }
            let removed = f.signals.since(mark).prefix(end - mark + 1).filter { $0.member == "InterfacesRemoved" }
                .compactMap(\.object)
            let device = Standard.piFPath.rawValue
            // Children first: GATT objects, then their device, the adapter last.
            #expect(removed.last == Standard.hci0)
            #expect(
                try #require(removed.firstIndex(of: Self.temperature)) < #require(
                    removed.firstIndex(of: Standard.piFPath)))
            #expect(
                removed.filter { $0.rawValue.hasPrefix(device + "/service0015") }.map {
                    String($0.rawValue.dropFirst(device.count))
                } == [
                    "/service0015/char0016/desc0018", "/service0015/char0016/desc0019", "/service0015/char0016",
                    "/service0015/char001a/desc001c", "/service0015/char001a", "/service0015",
                ])
            #expect(try await f.managedObjects().keys.allSatisfy { !$0.isDescendant(of: Standard.hci0) })
            let back = f.signals.count
            try await f.mock.inject(.addAdapter("hci0"))
            let (_, added) = try await f.signals.wait(after: back) {
                $0.member == "InterfacesAdded" && $0.object == Standard.hci0
            }
            #expect(
                added.addedInterfaces.first { $0.0 == Iface.adapter }?.1.first { $0.0 == "Powered" }?.1
                    == .boolean(false))
            let (_, powered) = try await f.signals.waitChange(after: back, Standard.hci0, Iface.adapter, "Powered")
            #expect(powered.changedValue("Powered") == .boolean(true))
        }
    }

    @Test("remote disconnect: one signal with ServicesResolved=false and Connected=false; notify resumes on reconnect")
    func remoteDisconnect() async throws {
        try await MockFixture.with { f in
            try await Self.subscribed(f)
            let mark = f.signals.count
            try await f.mock.inject(.remoteDisconnect(address: Standard.piF, adapter: nil))
            let (_, lost) = try await f.signals.waitChange(after: mark, Standard.piFPath, Iface.device, "Connected")
            #expect(lost.changedNames == ["ServicesResolved", "Connected"])
            #expect(
                lost.changedValue("Connected") == .boolean(false)
                    && lost.changedValue("ServicesResolved") == .boolean(false))
            #expect(!f.signals.since(mark).contains { $0.changedValue("Notifying") != nil })
            #expect(try await f.get(Self.temperature, Iface.characteristic, "Notifying") == .boolean(true))
            let again = f.signals.count
            try await f.connect(Standard.piFPath)
            // bluetoothd registers the old notify session again: values come without a new StartNotify.
            try await f.signals.waitChange(after: again, Self.temperature, Iface.characteristic, "Value")
        }
    }

    @Test("GATT app restart: objects removed, then back at new handle paths with Notifying=false; Device1 unchanged")
    func gattRestart() async throws {
        try await MockFixture.with { f in
            try await Self.subscribed(f)
            let device = Standard.piFPath.rawValue
            let mark = f.signals.count
            try await f.mock.inject(.gattRestart(address: Standard.piF))
            let (end, _) = try await f.signals.wait(after: mark) {
                $0.member == "InterfacesAdded" && $0.object?.rawValue == device + "/service001d/char0022/desc0024"
            }
            let events = f.signals.since(mark).prefix(end - mark + 1).filter { $0.changedValue("Value") == nil }.map {
                signal -> String in
                switch signal.member {
                case "InterfacesRemoved": "IR " + signal.object!.rawValue.dropFirst(device.count + 1)
                case "InterfacesAdded": "IA " + signal.object!.rawValue.dropFirst(device.count + 1)
                default: "PC " + signal.changedNames.joined(separator: ",")
                }
            }
            #expect(
                events == [
                    "IR service0015/char0016/desc0018", "IR service0015/char0016/desc0019", "IR service0015/char0016",
                    "IR service0015/char001a/desc001c", "IR service0015/char001a", "IR service0015", "PC UUIDs",
                    "PC UUIDs", "IA service001d", "IA service001d/char001e", "IA service001d/char001e/desc0020",
                    "IA service001d/char001e/desc0021", "IA service001d/char0022", "IA service001d/char0022/desc0024",
                ])
            let newTemperature = ObjectPath(device + "/service001d/char001e")!
            let (_, added) = try #require(
                f.signals.since(mark).enumerated().first { $0.1.object == newTemperature }.map { ($0.0, $0.1) })
            #expect(
                added.addedInterfaces.first { $0.0 == Iface.characteristic }?.1.first { $0.0 == "Notifying" }?.1
                    == .boolean(false))
            #expect(try await f.get(Standard.piFPath, Iface.device, "ServicesResolved") == .boolean(true))
            #expect(try await f.managedObjects()[Self.temperature] == nil)
            let notify = f.signals.count
            try await f.call(newTemperature, Iface.characteristic, "StartNotify")
            try await f.signals.waitChange(after: notify, newTemperature, Iface.characteristic, "Value")
        }
    }

    @Test("GATT app restart while disconnected: the next connection brings the new handles")
    func gattRestartWhileDisconnected() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            var mark = f.signals.count
            try await f.call(Standard.piFPath, Iface.device, "Disconnect")
            try await f.signals.waitChange(after: mark, Standard.piFPath, Iface.device, "Connected")
            let before = try #require(await f.mock.devices().first { $0.address == Standard.piF })
            try await f.mock.inject(.gattRestart(address: Standard.piF))
            // The app removed and registered again at new handles, which the mock shows.
            #expect(
                await eventually(within: .seconds(5)) {
                    let now = await f.mock.devices().first { $0.address == Standard.piF }
                    return now?.gattApplicationUp == true && now?.gattHandleBase != before.gattHandleBase
                })
            #expect(try await f.managedObjects()[Self.temperature] != nil)  // nothing seen while disconnected
            mark = f.signals.count
            try await f.connect(Standard.piFPath)
            let signals = f.signals.since(mark)
            let gone = try #require(
                signals.firstIndex { $0.member == "InterfacesRemoved" && $0.object == Self.temperature })
            let resolved = try #require(signals.firstIndex { $0.changedValue("ServicesResolved") == .boolean(true) })
            let added = try #require(
                signals.firstIndex { $0.object?.rawValue.hasSuffix("service001d/char001e") == true })
            #expect(gone < resolved && resolved < added)
        }
    }

    @Test("Connect fails N times with le-connection-abort-by-local: Connected=true, the error, Connected=false")
    func failConnectAbort() async throws {
        try await MockFixture.with { f in
            try await f.discover(Standard.piFPath)
            try await f.mock.inject(.failConnect(times: 2, error: .abortedByLocal, address: Standard.piF))
            for _ in 0..<2 {
                let mark = f.signals.count
                await expectError("org.bluez.Error.Failed", message: "le-connection-abort-by-local") {
                    try await f.call(Standard.piFPath, Iface.device, "Connect")
                }
                // Connected=true before the error reply; Connected=false follows it.
                #expect(
                    f.signals.since(mark).first?.description
                        == "PC \(Standard.piFPath) \(Iface.device) [Connected=true]")
                let (_, down) = try await f.signals.waitChange(
                    after: mark + 1, Standard.piFPath, Iface.device, "Connected")
                #expect(down.changedValue("Connected") == .boolean(false))
            }
            try await f.connect(Standard.piFPath)
        }
    }

    @Test("Connect fails with InProgress at once, without a signal")
    func failConnectInProgress() async throws {
        try await MockFixture.with { f in
            try await f.discover(Standard.piFPath)
            try await f.mock.inject(.failConnect(times: 1, error: .inProgress, address: nil))
            let mark = f.signals.count
            await expectError("org.bluez.Error.InProgress", message: "In Progress") {
                try await f.call(Standard.piFPath, Iface.device, "Connect")
            }
            #expect(
                !f.signals.since(mark).contains { $0.path == Standard.piFPath && $0.changedValue("Connected") != nil })
            try await f.connect(Standard.piFPath)
        }
    }

    @Test("announce-connect: Connected=true comes before the Connect reply")
    func announcedConnect() async throws {
        var scenario = MockScenario.standard()
        scenario.announcesConnect = true
        try await MockFixture.with(scenario) { f in
            try await f.discover(Standard.piFPath)
            let mark = f.signals.count
            try await f.call(Standard.piFPath, Iface.device, "Connect")
            #expect(f.signals.since(mark).first?.changedValue("Connected") == .boolean(true))
        }
    }

    @Test("connect race with announce-connect: no Connected=true; Get shows true; ServicesResolved comes")
    func connectRace() async throws {
        var scenario = MockScenario.standard()
        scenario.announcesConnect = true
        try await MockFixture.with(scenario) { f in
            try await f.discover(Standard.piFPath)
            try await f.mock.inject(.connectRace(times: 1, address: Standard.piF))
            let mark = f.signals.count
            try await f.call(Standard.piFPath, Iface.device, "Connect")
            #expect(try await f.get(Standard.piFPath, Iface.device, "Connected") == .boolean(true))
            try await f.signals.waitChange(after: mark, Standard.piFPath, Iface.device, "ServicesResolved")
            #expect(!f.signals.since(mark).contains { $0.changedValue("Connected") != nil })
        }
    }

    @Test("ServicesResolved never arrives; Disconnect still works")
    func servicesNeverResolve() async throws {
        try await MockFixture.with { f in
            try await f.discover(Standard.piFPath, alsoWaitingFor: [Standard.piCPath])
            try await f.mock.inject(.servicesNeverResolve(times: 1, address: nil))
            let mark = f.signals.count
            try await f.call(Standard.piFPath, Iface.device, "Connect")
            // The other Pi, connected after it, resolves on a timer of the same length started
            // later: once it has, the first would have too.
            try await f.call(Standard.piCPath, Iface.device, "Connect")
            let unresolved = try await nothingHappened(
                before: "the other Pi's ServicesResolved",
                reached: {
                    try await f.signals.waitChange(after: mark, Standard.piCPath, Iface.device, "ServicesResolved")
                    return true
                }
            ) { f.signals.since(mark).contains { $0.path == Standard.piFPath } }
            #expect(unresolved, "\(f.signals.since(mark))")
            #expect(try await f.get(Standard.piFPath, Iface.device, "Connected") == .boolean(true))
            try await f.call(Standard.piFPath, Iface.device, "Disconnect")
            try await f.signals.waitChange(after: mark, Standard.piFPath, Iface.device, "Connected")
        }
    }

    @Test("slow replies delay the named methods only")
    func slowReplies() async throws {
        // A delay far above any reply time on a loaded machine (scaled for sanitizers), so
        // "not delayed" can be told from "delayed" by the clock (1 s was not: an undelayed
        // reply took 1.04-1.27 s at a load of 15-20).
        let delay = Duration.seconds(3).scaled
        try await MockFixture.with { f in
            try await f.connectThermometer()
            try await f.mock.inject(.slowReplies(delay: delay, times: nil, methods: ["ReadValue"]))
            let clock = ContinuousClock()
            var start = clock.now
            _ = try await f.read(Self.temperature)
            #expect(clock.now - start >= delay)
            start = clock.now
            _ = try await f.getAll(Standard.piFPath, Iface.device)
            #expect(clock.now - start < delay)
            await f.mock.clearFaults()
            start = clock.now
            _ = try await f.read(Self.temperature)
            #expect(clock.now - start < delay)
        }
    }

    @Test("Connect: at once on a connected device, Failed while another attempt runs, aborted on a non-connectable one")
    func connectCorners() async throws {
        // A slow link-up, so the second Connect surely overlaps the first on a busy machine.
        var scenario = Standard.scenario()
        scenario.timings.connect = .milliseconds(800)
        try await MockFixture.with(scenario) { f in
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            for path in [Standard.piFPath, Standard.beaconPath] {
                try await f.signals.wait { $0.member == "InterfacesAdded" && $0.object == path }
            }
            async let first: DBusMessage = f.call(Standard.piFPath, Iface.device, "Connect")
            try await Task.sleep(for: .milliseconds(5))
            await expectError("org.bluez.Error.Failed", message: "Operation already in progress") {
                try await f.call(Standard.piFPath, Iface.device, "Connect")
            }
            _ = try await first
            let mark = f.signals.count
            try await f.call(Standard.piFPath, Iface.device, "Connect")  // already connected: at once
            #expect(
                !f.signals.since(mark).contains { $0.path == Standard.piFPath && $0.changedValue("Connected") != nil })
            await expectError("org.bluez.Error.Failed", message: "le-connection-abort-by-local") {
                try await f.call(Standard.beaconPath, Iface.device, "Connect")
            }
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
        }
    }

    @Test("Connect on a removed device's path is org.freedesktop.DBus.Error.UnknownObject")
    func connectRemoved() async throws {
        try await MockFixture.with { f in
            let error = await #expect(throws: DBusError.self) {
                try await f.call("/org/bluez/hci0/dev_00_11_22_33_44_55", Iface.device, "Connect")
            }
            #expect(error?.name == DBusError.Name.unknownObject)
        }
    }
}
