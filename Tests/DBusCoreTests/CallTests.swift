import DBusCore
import TestSupport
import ConcurrencySupport
import Testing

@Suite("Method calls")
struct CallTests {
    @Test("a D-Bus error reply becomes DBusError with its name and message")
    func errorReply() async throws {
        try await EchoFixture.with { fixture in
            let error = await #expect(throws: DBusError.self) { try await fixture.call("Fail") }
            #expect(error?.name == "org.blectl.Error.Test")
            #expect(error?.message == "as asked")
        }
    }

    @Test("an unknown method gets UnknownMethod; an unknown object UnknownObject")
    func unknownMethod() async throws {
        try await EchoFixture.with { fixture in
            let error = await #expect(throws: DBusError.self) { try await fixture.call("Nope") }
            #expect(error?.name == DBusError.Name.unknownMethod)
            let noObject = await #expect(throws: DBusError.self) {
                try await fixture.client.call(
                    destination: EchoFixture.name, path: "/nowhere", interface: EchoFixture.interface,
                    member: "Echo")
            }
            #expect(noObject?.name == DBusError.Name.unknownObject)
        }
    }

    @Test("wrong arguments get InvalidArgs")
    func invalidArgs() async throws {
        try await EchoFixture.with { fixture in
            let error = await #expect(throws: DBusError.self) { try await fixture.call("Slow", [.string("x")]) }
            #expect(error?.name == DBusError.Name.invalidArgs)
        }
    }

    @Test("a call past its deadline fails with NoReply, and the connection stays usable")
    func timeout() async throws {
        try await EchoFixture.with { fixture in
            let error = await #expect(throws: DBusError.self) {
                try await fixture.call("Slow", [.uint32(2000)], timeout: .milliseconds(100))
            }
            #expect(error?.isTimeout == true)
            let reply = try await fixture.call("Echo", [.string("still here")])
            #expect(reply.arguments == [.string("still here")])
        }
    }

    @Test("a peer vanishing mid-call fails the call at once")
    func peerVanishes() async throws {
        try await EchoFixture.with { fixture in
            let outcome = Task { try await fixture.call("Slow", [.uint32(10_000)], timeout: .seconds(30)) }
            try await Self.waitInFlight(fixture.client, 1)
            await fixture.server.close()
            let start = ContinuousClock.now
            let error = await #expect(throws: DBusError.self) { try await outcome.value }
            #expect(error?.name == DBusError.Name.noReply)
            // Well below the call's 30 s timeout, which is what waiting for it would take.
            #expect(ContinuousClock.now - start < Duration.seconds(15).scaled)
        }
    }

    @Test("calls outstanding when the bus dies fail with Disconnected at once")
    func busDies() async throws {
        try await EchoFixture.with { fixture in
            let outcomes = (0..<3).map { _ in
                Task { try await fixture.call("Slow", [.uint32(10_000)], timeout: .seconds(30)) }
            }
            let dropped = Locked(0)
            await fixture.client.addDropHandler { dropped.withLock { $0 += 1 } }
            try await Self.waitInFlight(fixture.client, 3)
            await fixture.bus.crash()
            for outcome in outcomes {
                // libdbus forgets calls on a dropped connection: without the
                // connection failing them itself, these would wait forever.
                let error = await #expect(throws: DBusError.self) {
                    try await withTimeout(.seconds(5)) { try await outcome.value }
                }
                #expect(error?.name == DBusError.Name.disconnected)
            }
            #expect(await fixture.client.isConnected == false)
            #expect(dropped.withLock { $0 } == 1)
            let after = await #expect(throws: DBusError.self) { try await fixture.call("Echo") }
            #expect(after?.name == DBusError.Name.disconnected)
        }
    }

    @Test("cancelling the calling task cancels the call")
    func cancellation() async throws {
        try await EchoFixture.with { fixture in
            let task = Task { try await fixture.call("Slow", [.uint32(10_000)], timeout: .seconds(30)) }
            try await Self.waitInFlight(fixture.client, 1)
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test("a call on a closed connection fails with Disconnected; disconnect handlers run, drop handlers not")
    func closedConnection() async throws {
        try await EchoFixture.with { fixture in
            let (closed, dropped) = (Locked(0), Locked(0))
            await fixture.client.addDisconnectHandler { closed.withLock { $0 += 1 } }
            await fixture.client.addDropHandler { dropped.withLock { $0 += 1 } }
            await fixture.client.close()
            #expect(closed.withLock { $0 } == 1)
            #expect(dropped.withLock { $0 } == 0, "closing is not a drop")
            let error = await #expect(throws: DBusError.self) { try await fixture.call("Echo") }
            #expect(error?.name == DBusError.Name.disconnected)
        }
    }

    @Test("Properties Get, GetAll and Set on a served object")
    func properties() async throws {
        try await EchoFixture.with { fixture in
            let props = "org.freedesktop.DBus.Properties"
            let get = try await fixture.client.call(
                destination: EchoFixture.name, path: EchoFixture.path, interface: props, member: "Get",
                arguments: [.string(EchoFixture.interface), .string("Count")])
            #expect(try get.decodeSingle(DBusValue.self) == .uint32(1))
            _ = try await fixture.client.call(
                destination: EchoFixture.name, path: EchoFixture.path, interface: props, member: "Set",
                arguments: [.string(EchoFixture.interface), .string("Label"), .variant(.string("new"))])
            let all = try await fixture.client.call(
                destination: EchoFixture.name, path: EchoFixture.path, interface: props, member: "GetAll",
                arguments: [.string(EchoFixture.interface)])
            let map = try all.decodeSingle([String: DBusValue].self)
            #expect(map["Label"] == .string("new"))
            let readOnly = await #expect(throws: DBusError.self) {
                try await fixture.client.call(
                    destination: EchoFixture.name, path: EchoFixture.path, interface: props, member: "Set",
                    arguments: [.string(EchoFixture.interface), .string("Count"), .variant(.uint32(9))])
            }
            #expect(readOnly?.name == DBusError.Name.propertyReadOnly)
        }
    }

    @Test("Introspect lists the interface, its members and the children")
    func introspect() async throws {
        try await EchoFixture.with { fixture in
            let reply = try await fixture.client.call(
                destination: EchoFixture.name, path: "/org/blectl", interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect")
            let xml = try reply.decodeSingle(String.self)
            #expect(xml.contains("<node name=\"echo\"/>"))
            #expect(xml.contains("org.freedesktop.DBus.ObjectManager"))
            let leaf = try await fixture.client.call(
                destination: EchoFixture.name, path: EchoFixture.path,
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
            #expect(
                try leaf.decodeSingle(String.self).contains("<method name=\"Slow\"><arg type=\"u\" direction=\"in\"/>"))
        }
    }

    /// Waits until `count` calls are out on `client` awaiting replies: what a test does to
    /// them then strikes calls in flight, not calls still on their way out.
    static func waitInFlight(_ client: DBusConnection, _ count: Int) async throws {
        let sent = await eventually { await client.callLoad.outstanding == count }
        let load = await client.callLoad
        try #require(sent, "\(load.outstanding) calls out, not \(count)")
    }
}
