import DBusCore
import MockBlueZ
import TestSupport
import Testing

/// bluetoothd stopping, crashing and coming back, as a central sees it.
@Suite("bluetoothd stops, crashes, comes back")
struct BluetoothdLifecycleTests {
    @Test(
        "clean stop: Connected=false, InterfacesRemoved for everything, then the name goes; a restart brings fresh objects"
    )
    func cleanStopAndRestart() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let old = try #require(await f.mock.bluetoothdUniqueName)
            let mark = f.signals.count
            try await f.mock.inject(.stopBluetoothd(restartAfter: nil))
            let (lostIndex, lost) = try await f.signals.wait(after: mark) { $0.member == "NameOwnerChanged" }
            #expect(lost.arguments == [.string("org.bluez"), .string(old), .string("")])
            let before = f.signals.since(mark).prefix(lostIndex - mark)
            #expect(
                before.first?.description
                    == "PC \(Standard.piFPath) \(Iface.device) [ServicesResolved=false, Connected=false]")
            let removed = before.filter { $0.member == "InterfacesRemoved" }.compactMap(\.object)
            // Children first: GATT objects, their device, the adapter, /org/bluez last.
            #expect(removed.suffix(2) == [Standard.hci0, "/org/bluez"])
            #expect(
                try #require(removed.firstIndex(of: Standard.temperature())) < #require(
                    removed.firstIndex(of: Standard.piFPath)))
            #expect(try await f.client.nameOwner("org.bluez") == nil)

            let restart = f.signals.count
            try await f.mock.inject(.startBluetoothd)
            let new = try #require(await f.mock.bluetoothdUniqueName)
            #expect(new != old)
            let (_, acquired) = try await f.signals.wait(after: restart) { $0.member == "NameOwnerChanged" }
            #expect(acquired.arguments == [.string("org.bluez"), .string(""), .string(new)])
            // The device it had stored comes back, disconnected; the adapter is powered by AutoEnable.
            let (_, device) = try await f.signals.wait(after: restart) {
                $0.member == "InterfacesAdded" && $0.object == Standard.piFPath
            }
            #expect(
                device.addedInterfaces.first { $0.0 == Iface.device }?.1.first { $0.0 == "Connected" }?.1
                    == .boolean(false))
            try await f.signals.waitChange(after: restart, Standard.hci0, Iface.adapter, "Powered")
            // Fresh: no sessions survive.
            await expectError("org.bluez.Error.Failed", message: "No discovery started") {
                try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
            }
            try await f.connect(Standard.piFPath)
            #expect(try await f.managedObjects()[Standard.temperature()] != nil)
        }
    }

    @Test("crash: only NameOwnerChanged (old → \"\"), nothing else; it comes back by itself after restart_ms")
    func crashAndComeBack() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let mark = f.signals.count
            let old = try #require(await f.mock.bluetoothdUniqueName)
            try await f.mock.inject(.crashBluetoothd(restartAfter: .milliseconds(300)))
            let (lostIndex, lost) = try await f.signals.wait(after: mark) { $0.member == "NameOwnerChanged" }
            #expect(lost.arguments == [.string("org.bluez"), .string(old), .string("")])
            #expect(lostIndex == mark)  // no Connected=false, no InterfacesRemoved before it
            let (_, back) = try await f.signals.wait(after: lostIndex + 1) { $0.member == "NameOwnerChanged" }
            #expect(back.arguments.count == 3 && back.arguments[0] == .string("org.bluez"))
            let newOwner: String? = if case .string(let name) = back.arguments.last { name } else { nil }
            let owner = try #require(newOwner, "\(back.arguments)")
            #expect(!owner.isEmpty && owner != old)
            try await f.signals.waitChange(after: lostIndex + 1, Standard.hci0, Iface.adapter, "Powered")
            #expect(try await f.get(Standard.piFPath, Iface.device, "Connected") == .boolean(false))
        }
    }

    @Test("a client's watch on the name sees the crash (the only sign of it)")
    func nameWatch() async throws {
        try await MockFixture.with { f in
            let changes = Guarded<[NameOwnerChange]>([])
            _ = try await f.client.watchNameOwner("org.bluez") { change in changes.withLock { $0.append(change) } }
            try await f.mock.inject(.crashBluetoothd(restartAfter: nil))
            let clock = ContinuousClock()
            let deadline = clock.now + Duration.seconds(5).scaled
            while changes.withLock({ $0.isEmpty }) && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(changes.withLock { $0.first?.newOwner } == .some(nil))
            #expect(await f.mock.isBluetoothdRunning == false)
            await #expect(throws: MockError.self) { try await f.mock.inject(.powerOff(adapter: "hci0")) }
        }
    }

    @Test("the mock reports its bus going away, but not its own stop, crash and restart")
    func busLost() async throws {
        try await MockFixture.with { f in
            let lost = Guarded(0)
            await f.mock.onBusLost { lost.withLock { $0 += 1 } }
            try await f.mock.inject(.crashBluetoothd(restartAfter: nil))
            try await f.mock.inject(.startBluetoothd)
            try await f.mock.inject(.stopBluetoothd(restartAfter: nil))
            try await f.mock.inject(.startBluetoothd)
            // The restarted bluetoothd answers, and the mock actor (where a drop is counted)
            // took a call after that.
            let notLost = try await nothingHappened(
                before: "a round trip through the restarted bluetoothd and the mock",
                reached: {
                    try await f.barrier()
                    return await f.mock.bluetoothdUniqueName != nil
                }
            ) { lost.withLock { $0 } != 0 }
            #expect(notLost)
            await f.bus.crash()
            // Both of the mock's connections (bluetoothd's and the control's) dropped and were
            // handled: only then does one call of the handler prove there was no second.
            #expect(await eventually(within: .seconds(5)) { await f.mock.droppedConnections == 2 })
            #expect(lost.withLock { $0 } == 1, "once, though both of the mock's connections dropped")
        }
    }

}
