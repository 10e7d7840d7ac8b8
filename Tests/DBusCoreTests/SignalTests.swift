import DBusCore
import TestSupport
import Testing

@Suite("Signals, ObjectManager and name owners")
struct SignalTests {
    @Test("a subscribed signal arrives with its arguments")
    func signal() async throws {
        try await EchoFixture.with { fixture in
            let stream = try await fixture.client.signals(
                matching: MatchRule(interface: EchoFixture.interface, member: "Ping"))
            try await fixture.objects.emit(
                path: EchoFixture.path, interface: EchoFixture.interface, member: "Ping", [.string("hello")])
            let received = try await first(of: stream)
            #expect(received.arguments == [.string("hello")])
            #expect(received.path == EchoFixture.path)
            #expect(received.sender == fixture.server.uniqueName)
        }
    }

    @Test("a rule filters locally as well: other members don't leak in")
    func localFiltering() async throws {
        try await EchoFixture.with { fixture in
            let pings = try await fixture.client.signals(matching: MatchRule(member: "Ping"))
            let _ = try await fixture.client.signals(matching: MatchRule(member: "Pong"))
            for member in ["Pong", "Ping"] {
                try await fixture.objects.emit(
                    path: EchoFixture.path, interface: EchoFixture.interface, member: member, [.string(member)])
            }
            #expect(try await first(of: pings).member == "Ping")
        }
    }

    @Test("ObjectManager: GetManagedObjects, InterfacesAdded, InterfacesRemoved")
    func objectManager() async throws {
        try await EchoFixture.with { fixture in
            let manager = "org.freedesktop.DBus.ObjectManager"
            let added = try await fixture.client.signals(
                matching: MatchRule(interface: manager, member: "InterfacesAdded"))
            let removed = try await fixture.client.signals(
                matching: MatchRule(interface: manager, member: "InterfacesRemoved"))
            let child: ObjectPath = "/org/blectl/echo/child0"
            let item = ExportedInterface(name: "org.blectl.Item1", properties: [ExportedProperty("N", .int32(5))])
            try await fixture.objects.export(child, [item])
            let addedSignal = try await first(of: added)
            #expect(addedSignal.path == "/org/blectl")
            #expect(addedSignal.arguments.first == .objectPath(child))
            let snapshot = try await fixture.client.call(
                destination: EchoFixture.name, path: "/org/blectl", interface: manager, member: "GetManagedObjects")
            let objects = try snapshot.decodeSingle([ObjectPath: [String: [String: DBusValue]]].self)
            #expect(objects[child]?["org.blectl.Item1"]?["N"] == .int32(5))
            #expect(objects[EchoFixture.path]?[EchoFixture.interface]?["Count"] == .uint32(1))
            try await fixture.objects.unexport(child)
            let removedSignal = try await first(of: removed)
            #expect(removedSignal.arguments == [.objectPath(child), .strings(["org.blectl.Item1"])])
        }
    }

    @Test("PropertiesChanged carries changed values and invalidated names")
    func propertiesChanged() async throws {
        try await EchoFixture.with { fixture in
            let changes = try await fixture.client.signals(
                matching: MatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
            try await fixture.objects.setProperties(
                EchoFixture.path, EchoFixture.interface, [("Count", .uint32(2))], invalidated: ["Label"])
            let signal = try await first(of: changes)
            #expect(
                signal.arguments == [
                    .string(EchoFixture.interface), .propertyMap([("Count", .uint32(2))]), .strings(["Label"]),
                ])
            #expect(
                signal.propertiesChange
                    == PropertiesChange(
                        interface: EchoFixture.interface, changed: ["Count": .uint32(2)], invalidated: ["Label"]))
            #expect(await fixture.objects.property(EchoFixture.path, EchoFixture.interface, "Label") == nil)
        }
    }

    @Test("propertiesChange reads what the generic decoding reads, and only sa{sv}as bodies")
    func propertiesChangeReader() throws {
        let changed: [(String, DBusValue)] = [
            ("Value", .bytes([0x34, 0x30, 0x2E, 0x31])), ("Flags", .strings(["read", "notify"])),
            ("Nested", .propertyMap([("Inner", .int16(-3))])), ("Empty", .bytes([])),
        ]
        let signal = try DBusMessage.signal(
            path: "/a", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string("org.example.I"), .propertyMap(changed), .strings(["Gone"])])
        let generic = signal.arguments
        #expect(
            signal.propertiesChange
                == PropertiesChange(
                    interface: "org.example.I", changed: try generic[1].decode([String: DBusValue].self),
                    invalidated: ["Gone"]))
        let other = try DBusMessage.signal(
            path: "/a", interface: "org.example.I", member: "PropertiesChanged",
            arguments: [.string("org.example.I"), .propertyMap(changed)])
        #expect(other.propertiesChange == nil)
    }

    @Test("NameOwnerChanged reports a peer that exits")
    func nameOwnerChanged() async throws {
        try await EchoFixture.with { fixture in
            #expect(try await fixture.client.nameOwner(EchoFixture.name) == fixture.server.uniqueName)
            let (changes, continuation) = AsyncStream.makeStream(of: NameOwnerChange.self)
            _ = try await fixture.client.watchNameOwner(EchoFixture.name) { continuation.yield($0) }
            await fixture.server.close()
            let change = try await first(of: changes)
            #expect(
                change == NameOwnerChange(name: EchoFixture.name, oldOwner: fixture.server.uniqueName, newOwner: nil))
            #expect(try await fixture.client.nameOwner(EchoFixture.name) == nil)
        }
    }

    @Test("signal streams finish when the connection closes")
    func streamsFinish() async throws {
        try await EchoFixture.with { fixture in
            let stream = try await fixture.client.signals(matching: MatchRule(member: "Ping"))
            await fixture.client.close()
            var count = 0
            for await _ in stream { count += 1 }
            #expect(count == 0)
        }
    }

    @Test("a match rule quotes its values, a single quote as '\\''")
    func matchRuleText() {
        let rule = MatchRule(member: "Ping", arguments: [0: "it's", 1: "''"])
        #expect(rule.description == #"type='signal',member='Ping',arg0='it'\''s',arg1=''\'''\'''"#)
    }
}

/// The first element of a stream within 5 s.
func first<S: AsyncSequence & Sendable>(of stream: S) async throws -> S.Element where S.Element: Sendable {
    try await withTimeoutOrThrow {
        for try await element in stream { return element }
        throw CancellationError()
    }
}

func withTimeoutOrThrow<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await TestSupport.withTimeout(.seconds(5), body)
}
