import DBusCore
import TestSupport

/// A served object that echoes calls, on its own connection, and a client connection.
struct EchoFixture {
    static let name = "org.blectl.Echo"
    static let path: ObjectPath = "/org/blectl/echo"
    static let interface = "org.blectl.Echo1"

    let bus: PrivateBus
    let client: DBusConnection
    let server: DBusConnection
    let objects: DBusObjectServer
    /// Where `Hold` calls wait.
    let gate: HoldGate

    /// Runs `body` with a fresh bus, a server exporting the echo object and a client.
    static func with(_ body: (EchoFixture) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let server = try await DBusConnection.connect(to: .address(bus.address), label: "server")
            let client = try await DBusConnection.connect(to: .address(bus.address), label: "client")
            let objects = await DBusObjectServer(connection: server)
            await objects.addObjectManager(at: "/org/blectl")
            let gate = HoldGate()
            try await objects.export(path, [echoInterface(gate: gate)])
            try await server.requestName(name)
            let fixture = EchoFixture(bus: bus, client: client, server: server, objects: objects, gate: gate)
            defer {
                Task {
                    await client.close(); await server.close()
                }
            }
            try await body(fixture)
        }
    }

    static func echoInterface(gate: HoldGate) -> ExportedInterface {
        ExportedInterface(
            name: interface,
            methods: [
                ExportedMethod("Echo", in: nil) { call in call.arguments },
                ExportedMethod("Fail") { _ in throw DBusError(name: "org.blectl.Error.Test", message: "as asked") },
                ExportedMethod("Slow", in: "u") { call in
                    try await Task.sleep(for: .milliseconds(Int(try call.argument(0, as: UInt32.self))))
                    return []
                },
                ExportedMethod("Hold") { _ in
                    await gate.wait()
                    return []
                },
                ExportedMethod("WrongReply", out: "s") { _ in [.int32(7)] },
            ],
            properties: [
                ExportedProperty("Count", .uint32(1)),
                ExportedProperty("Label", .string("echo"), writable: true),
            ],
            signals: ["Ping": "s"])
    }

    func call(_ member: String, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(5)) async throws
        -> DBusMessage
    {
        try await client.call(
            destination: Self.name, path: Self.path, interface: Self.interface, member: member,
            arguments: arguments, timeout: timeout)
    }
}

/// Holds calls until the test releases them, so a test, not the clock, decides when each
/// one replies.
actor HoldGate {
    private var permits = 0
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Returns when a permit is released for this call, or the gate opens.
    func wait() async {
        if isOpen { return }
        if permits > 0 {
            permits -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Lets `count` calls through, the longest-waiting first.
    func release(_ count: Int) {
        for _ in 0..<count {
            if waiters.isEmpty { permits += 1 } else { waiters.removeFirst().resume() }
        }
    }

    /// Lets every call through, now and later.
    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters = []
    }
}
