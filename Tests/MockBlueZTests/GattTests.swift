import DBusCore
import MockBlueZ
import TestSupport
import Testing

@Suite("GATT: reads, writes, notify sessions, values")
struct GattTests {
    @Test("ReadValue honours the offset option; a bad offset is InvalidArguments")
    func readOffset() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let unitDescription = ObjectPath(Standard.unit().rawValue + "/desc001c")!
            #expect(
                text(try await f.read(unitDescription, interface: Iface.descriptor)) == "Temperature Units (F or C)")
            #expect(
                text(try await f.read(unitDescription, interface: Iface.descriptor, offset: 12)) == "Units (F or C)")
            await expectError("org.bluez.Error.InvalidArguments", message: "Invalid offset") {
                _ = try await f.read(unitDescription, interface: Iface.descriptor, offset: 100)
            }
            await expectError("org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call") {
                try await f.call(
                    Standard.temperature(), Iface.characteristic, "ReadValue", [.propertyMap([("offset", .uint32(1))])])
            }
        }
    }

    @Test("reading a disconnected device's characteristic is Failed \"Not connected\"; its objects stay")
    func readDisconnected() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let mark = f.signals.count
            try await f.call(Standard.piFPath, Iface.device, "Disconnect")
            try await f.signals.waitChange(after: mark, Standard.piFPath, Iface.device, "Connected")
            await expectError("org.bluez.Error.Failed", message: "Not connected") {
                _ = try await f.read(Standard.temperature())
            }
            #expect(try await f.managedObjects()[Standard.temperature()] != nil)
        }
    }

    @Test("writes: the unit write is accepted and changes nothing (like cputemp); others are refused")
    func writes() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            try await f.call(
                Standard.unit(), Iface.characteristic, "WriteValue", [.bytes(Array("C".utf8)), .propertyMap([])])
            #expect(text(try await f.read(Standard.unit())) == "F")
            #expect(text(try await f.read(Standard.temperature())).hasSuffix(" F"))
            await expectError("org.bluez.Error.NotSupported", message: "Operation is not supported") {
                try await f.call(
                    Standard.temperature(), Iface.characteristic, "WriteValue", [.bytes([0x31]), .propertyMap([])])
            }
            await expectError("org.bluez.Error.NotPermitted", message: "Write not permitted") {
                try await f.call(
                    ObjectPath(Standard.temperature().rawValue + "/desc0019")!, Iface.descriptor, "WriteValue",
                    [.bytes([0x31]), .propertyMap([])])
            }
            await expectError("org.bluez.Error.NotPermitted", message: "Read not permitted") {
                _ = try await f.read(ObjectPath(Standard.piFPath.rawValue + "/service0008/char0009")!)
            }
        }
    }

    @Test("notify sessions: per client, idempotent, Notifying follows the last one; CCC reads 01 00 meanwhile")
    func notifySessions() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            let temperature = Standard.temperature()
            let ccc = ObjectPath(temperature.rawValue + "/desc0018")!
            #expect(try await f.read(ccc, interface: Iface.descriptor) == [0, 0])
            await expectError("org.bluez.Error.Failed", message: "No notify session started") {
                try await f.call(temperature, Iface.characteristic, "StopNotify")
            }
            try await f.call(temperature, Iface.characteristic, "StartNotify")
            // A second one from the same client is fine.
            try await f.call(temperature, Iface.characteristic, "StartNotify")
            #expect(try await f.read(ccc, interface: Iface.descriptor) == [1, 0])
            let other = try await f.newClient()
            try await f.call(temperature, Iface.characteristic, "StartNotify", on: other)
            let mark = f.signals.count
            try await f.call(temperature, Iface.characteristic, "StopNotify")
            // The reply came after anything StopNotify emitted; a notification after it shows
            // the other session still served.
            let replied = f.signals.count
            let stillOn = try await nothingHappened(
                before: "a notification after StopNotify's reply",
                reached: {
                    try await f.signals.waitChange(after: replied, temperature, Iface.characteristic, "Value")
                    return true
                }
            ) { f.signals.since(mark).contains { $0.changedValue("Notifying") != nil } }
            #expect(stillOn, "\(f.signals.since(mark))")
            await other.close()  // the last session ends with its client
            let (_, off) = try await f.signals.waitChange(after: mark, temperature, Iface.characteristic, "Notifying")
            #expect(off.changedValue("Notifying") == .boolean(false))
        }
    }

    @Test("the counter pattern steps 0.1 °C per notification, at the configured interval")
    func counterPattern() async throws {
        try await MockFixture.with(Standard.scenario(notifyInterval: .milliseconds(5))) { f in
            try await f.mock.setPattern(.counter)
            try await f.mock.setTemperature(50, address: Standard.piC)
            try await f.connectThermometer(Standard.piCPath)
            let temperature = Standard.temperature(Standard.piCPath)
            let mark = f.signals.count
            try await f.call(temperature, Iface.characteristic, "StartNotify")
            var values: [Double] = []
            var index = mark
            while values.count < 30 {
                let (at, signal) = try await f.signals.waitChange(
                    after: index, temperature, Iface.characteristic, "Value")
                index = at + 1
                values.append(
                    try #require(bytes(signal.changedValue("Value")).flatMap { Double(text($0).dropLast(2)) }))
            }
            for (a, b) in zip(values, values.dropFirst()) { #expect(abs(b - a - 0.1) < 0.001, "\(a) → \(b)") }
            try await f.call(temperature, Iface.characteristic, "StopNotify")
        }
    }

    @Test("Burst: K notifications as fast as the bus takes them, none lost, in order")
    func burst() async throws {
        try await MockFixture.with(Standard.scenario(notifyInterval: .seconds(60))) { f in
            try await f.mock.setPattern(.counter)
            try await f.mock.setTemperature(40, address: Standard.piC)
            try await f.connectThermometer(Standard.piCPath)
            let temperature = Standard.temperature(Standard.piCPath)
            await #expect(throws: MockError.self) { _ = try await f.mock.burst(address: Standard.piC, count: 1) }
            // Count on the connection's queue (a bounded stream could drop under a burst).
            let received = Guarded<[String]>([])
            _ = try await f.client.addSignalHandler(
                MatchRule(interface: Iface.properties, member: "PropertiesChanged", path: temperature)
            ) { message in
                guard let entries = message.arguments.dropFirst().first?.dictionaryEntries,
                    let value = entries.first(where: { $0.key == .string("Value") })?.value,
                    let data = bytes(value.unwrappingVariants)
                else { return }
                received.withLock { $0.append(text(data)) }
            }
            let mark = f.signals.count
            try await f.call(temperature, Iface.characteristic, "StartNotify")
            try await f.signals.waitChange(after: mark, temperature, Iface.characteristic, "Value")
            let clock = ContinuousClock()
            let start = clock.now
            let sent = try await f.mock.burst(address: Standard.piC, count: 2000)
            let burstTook = clock.now - start
            let receivedByThen = received.withLock { $0.count }
            #expect(sent == 2000)
            // The burst returns once the mock has sent the last value; up to a pace window of
            // them may still be on their way, so the wait for them starts here. (It once started
            // before the burst: under ThreadSanitizer with every suite running, the burst took
            // the whole deadline and the count was taken with the last value in flight, "2000
            // of 2001".) The barrier then lets anything sent after the 2001st show up.
            #expect(await eventually(within: .seconds(20)) { received.withLock { $0.count } >= 2001 })
            try await f.barrier()
            let values = received.withLock { $0 }.compactMap { Double($0.dropLast(2)) }
            #expect(values.count == 2001)
            for (a, b) in zip(values, values.dropFirst()) {
                let step = b - a
                #expect(abs(step - 0.1) < 0.001 || abs(step + 25) < 0.001, "\(a) → \(b)")  // wraps 65.0 → 40.0
            }
            print(
                "burst: 2000 notifications sent in \(burstTook) (\(receivedByThen) of 2001 received by then), "
                    + "all received in \(clock.now - start)")
        }
    }

    @Test("malformed values, each kind, on the next read")
    func malformedValues() async throws {
        try await MockFixture.with { f in
            try await f.connectThermometer()
            for kind in MockMalformedValue.allCases {
                try await f.mock.inject(.malformedValues(kind, times: 1, address: Standard.piF))
                #expect(try await f.read(Standard.temperature()) == kind.bytes, "\(kind)")
            }
            #expect(try await f.read(Standard.temperature()).count < 10)
            #expect(MockMalformedValue.oversized.bytes.count == 600)
            #expect(text(MockMalformedValue.nan.bytes) == "nan F")
        }
    }

    @Test("a notification period set at run time takes effect at once")
    func notifyInterval() async throws {
        try await MockFixture.with(Standard.scenario(notifyInterval: .seconds(60))) { f in
            try await f.connectThermometer()
            let temperature = Standard.temperature()
            var mark = f.signals.count
            try await f.call(temperature, Iface.characteristic, "StartNotify")
            // The one at StartNotify.
            try await f.signals.waitChange(after: mark, temperature, Iface.characteristic, "Value")
            mark = f.signals.count
            await f.mock.setNotifyInterval(.milliseconds(20))
            for _ in 0..<3 {
                let (at, _) = try await f.signals.waitChange(
                    after: mark, temperature, Iface.characteristic, "Value", timeout: .seconds(2))
                mark = at + 1
            }
        }
    }
}
