import DBusCore
import MockBlueZ
import TestSupport
import Testing
import ConcurrencySupport

/// The mock's `AdvertisementMonitorManager1` (`--experimental`), driven by a client serving
/// monitors of its own, as bluetoothd 5.66 treats them.
@Suite("Advertisement monitors (bluetoothd --experimental)")
struct AdvertisementMonitorManagerTests {
    static let manager = "org.bluez.AdvertisementMonitorManager1"
    static let monitor = "org.bluez.AdvertisementMonitor1"
    /// The BTHome sensor (its service data 0xFCD2 matches the good monitor).
    static let bthomePath: ObjectPath = "/org/bluez/hci0/dev_A4_C1_38_AD_00_01"

    static func scenario(experimental: Bool) -> MockScenario {
        var scenario = Standard.scenario()
        scenario.addAdvertisers(1, interval: .milliseconds(100))
        scenario.experimental = experimental
        return scenario
    }

    /// Serves `/app` with a good monitor (BTHome's service data) and one whose pattern runs
    /// past 31 bytes; returns the server (keep it: it serves while it lives) and the calls
    /// the monitors receive as `monitor member [argument]`.
    static func serveMonitors(on connection: DBusConnection) async throws -> (DBusObjectServer, Locked<[String]>) {
        let calls = Locked<[String]>([])
        let server = await DBusObjectServer(connection: connection)
        await server.addObjectManager(at: "/app")
        for (name, start) in [("good", 0), ("bad", 30)] {
            let record: @Sendable (String) -> ExportedMethod = { member in
                ExportedMethod(member, in: nil) { call in
                    let argument = call.arguments.first.map { " \($0.unwrappingVariants)" } ?? ""
                    calls.withLock { $0.append("\(name) \(member)\(argument)") }
                    return []
                }
            }
            let pattern = DBusValue.structure([.byte(UInt8(start)), .byte(0x16), .bytes([0xD2, 0xFC])])
            try await server.export(
                ObjectPath("/app/" + name)!,
                [
                    ExportedInterface(
                        name: monitor, methods: ["Release", "Activate", "DeviceFound", "DeviceLost"].map(record),
                        properties: [
                            ExportedProperty("Type", .string("or_patterns")),
                            ExportedProperty("Patterns", .array(element: "(yyay)", [pattern])),
                        ])
                ])
        }
        return (server, calls)
    }

    @Test("without --experimental the adapter offers no AdvertisementMonitorManager1")
    func notOffered() async throws {
        try await MockFixture.with(Self.scenario(experimental: false)) { f in
            await expectError("org.freedesktop.DBus.Error.UnknownMethod") {
                try await f.call(Standard.hci0, Self.manager, "RegisterMonitor", [.objectPath("/app")])
            }
        }
    }

    @Test("RegisterMonitor: a bad monitor is released, the good one activated and told of its device, no discovery")
    func register() async throws {
        try await MockFixture.with(Self.scenario(experimental: true)) { f in
            #expect(
                try await f.get(Standard.hci0, Self.manager, "SupportedMonitorTypes") == .strings(["or_patterns"]))
            let app = try await f.newClient("app")
            let (server, calls) = try await Self.serveMonitors(on: app)
            try await f.call(Standard.hci0, Self.manager, "RegisterMonitor", [.objectPath("/app")], on: app)
            let found = "good DeviceFound \(DBusValue.objectPath(Self.bthomePath))"
            #expect(
                await eventually(within: .seconds(5)) {
                    let seen = calls.withLock { $0 }
                    return seen.contains("bad Release") && seen.contains("good Activate") && seen.contains(found)
                }, "\(calls.withLock { $0 })")
            // The device object came from passive scanning alone, with its data.
            #expect(f.mock.startDiscoveryCalls == 0)
            let serviceData = try await f.get(Self.bthomePath, Iface.device, "ServiceData")
            #expect(serviceData.dictionaryEntries?.isEmpty == false)
            #expect(calls.withLock { $0.filter { $0 == found }.count } == 1)
            await expectError("org.bluez.Error.AlreadyExists") {
                try await f.call(Standard.hci0, Self.manager, "RegisterMonitor", [.objectPath("/app")], on: app)
            }
            #expect(await f.mock.monitorApps().count == 1)
            try await f.call(Standard.hci0, Self.manager, "UnregisterMonitor", [.objectPath("/app")], on: app)
            #expect(await eventually(within: .seconds(5)) { calls.withLock { $0.contains("good Release") } })
            #expect(await f.mock.monitorApps().isEmpty)
            await expectError("org.bluez.Error.DoesNotExist") {
                try await f.call(Standard.hci0, Self.manager, "UnregisterMonitor", [.objectPath("/app")], on: app)
            }
            await app.close()
            withExtendedLifetime(server) {}
        }
    }

    @Test("a client leaving the bus loses its monitors")
    func clientLeaves() async throws {
        try await MockFixture.with(Self.scenario(experimental: true)) { f in
            let app = try await f.newClient("app")
            let (server, _) = try await Self.serveMonitors(on: app)
            try await f.call(Standard.hci0, Self.manager, "RegisterMonitor", [.objectPath("/app")], on: app)
            #expect(await f.mock.monitorApps().count == 1)
            await app.close()
            withExtendedLifetime(server) {}
            #expect(await eventually(within: .seconds(5)) { await f.mock.monitorApps().isEmpty })
        }
    }
}
