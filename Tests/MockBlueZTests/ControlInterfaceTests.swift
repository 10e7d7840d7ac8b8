import DBusCore
import Foundation
import MockBlueZ
import TestSupport
import Testing

/// `org.blectl.Mock1` on `org.blectl.Mock`, and the `blectl-mock` program.
@Suite("The control interface and the blectl-mock program")
struct ControlInterfaceTests {
    static let name = "org.blectl.Mock"
    static let path: ObjectPath = "/org/blectl/Mock"
    static let interface = "org.blectl.Mock1"

    @discardableResult
    static func control(
        _ connection: DBusConnection, _ member: String, _ arguments: [DBusValue] = []
    ) async throws -> DBusMessage {
        try await connection.call(
            destination: name, path: path, interface: interface, member: member, arguments: arguments,
            timeout: .seconds(10))
    }

    @Test("faults, temperatures and the device list through org.blectl.Mock1")
    func controlCalls() async throws {
        try await MockFixture.with { f in
            let devices = try await Self.control(f.client, "ListDevices").decodeSingle([[String: DBusValue]].self)
            #expect(devices.count == 4)
            #expect(devices.first?["Kind"] == .string("thermometer"))
            #expect(devices.first?["ServiceUUID"] == .string(Standard.codeService))
            #expect(devices.last?["Kind"] == .string("beacon"))

            try await Self.control(f.client, "SetTemperature", [.string(Standard.piC), .double(55.5)])
            try await Self.control(f.client, "SetTemperaturePattern", [.string(Standard.piC), .string("constant")])
            try await f.connectThermometer(Standard.piCPath)
            #expect(text(try await f.read(Standard.temperature(Standard.piCPath))) == "55.5 C")

            let mark = f.signals.count
            try await Self.control(
                f.client, "InjectFault", [.string("disconnect"), .propertyMap([("address", .string(Standard.piC))])])
            try await f.signals.waitChange(after: mark, Standard.piCPath, Iface.device, "Connected")

            try await Self.control(
                f.client, "InjectFault",
                [.string("fail-connect"), .propertyMap([("count", .uint32(1)), ("error", .string("in-progress"))])])
            await expectError("org.bluez.Error.InProgress") {
                try await f.call(Standard.piCPath, Iface.device, "Connect")
            }

            try await Self.control(f.client, "SetNotifyInterval", [.uint64(2_000)])
            let status = try await Self.control(f.client, "Status").decodeSingle([String: DBusValue].self)
            #expect(status["Running"] == .boolean(true))
            #expect(status["NotifyIntervalMicroseconds"] == .uint64(2_000))

            await expectError("org.blectl.Mock.Error.UnknownFault") {
                try await Self.control(f.client, "InjectFault", [.string("meteor"), .propertyMap([])])
            }
            await expectError(DBusError.Name.invalidArgs) {
                try await Self.control(f.client, "InjectFault", [.string("disconnect"), .propertyMap([])])
            }
            await expectError("org.blectl.Mock.Error.UnknownDevice") {
                try await Self.control(f.client, "SetTemperature", [.string("00:00:00:00:00:00"), .double(40)])
            }
            await expectError(DBusError.Name.invalidArgs) {
                try await Self.control(f.client, "SetNotifyInterval", [.uint64(10)])
            }
            await expectError("org.blectl.Mock.Error.NotNotifying") {
                try await Self.control(f.client, "Burst", [.string(Standard.piF), .uint32(3)])
            }

            let before = try await f.client.nameOwner("org.bluez")
            try await Self.control(
                f.client, "InjectFault", [.string("bluetoothd-crash"), .propertyMap([("restart_ms", .uint32(100))])])
            // A new bluetoothd (a new unique name) owns org.bluez again.
            let clock = ContinuousClock()
            // 100 ms in a quiet run; an AddressSanitizer CI run took over 20 s.
            let deadline = clock.now + Duration.seconds(15).scaled
            var owner = try await f.client.nameOwner("org.bluez")
            while owner == nil || owner == before, clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                owner = try await f.client.nameOwner("org.bluez")
            }
            #expect(owner != nil && owner != before)
        }
    }

    /// The `blectl-mock` binary next to the test bundle.
    static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            bundle.appendingPathComponent("blectl-mock"),
            bundle.deletingLastPathComponent().appendingPathComponent("blectl-mock"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/blectl-mock"),
        ]
        return (candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]).path
    }

    @Test("blectl-mock serves org.bluez on the bus it is given, says ready, and exits 0 on SIGTERM")
    func program() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.binary), "build blectl-mock first: \(Self.binary)")
        try await withPrivateBus { bus in
            let process = try ChildProcess.start(
                Self.binary,
                [
                    "--address", bus.address, "--fast", "--thermometers", "3", "--others", "0", "--advertisers", "0",
                ],
                logFile: bus.directory.appendingPathComponent("blectl-mock.log"), captureStdout: true)
            do {
                let ready = try await process.firstStdoutLine(timeout: .seconds(10))
                #expect(ready == "ready org.bluez on \(bus.address)")
                let client = try await DBusConnection.connect(to: .address(bus.address), label: "central")
                let objects = try await client.call(
                    destination: "org.bluez", path: .root, interface: Iface.manager, member: "GetManagedObjects"
                ).decodeSingle([ObjectPath: [String: [String: DBusValue]]].self)
                #expect(objects[Standard.hci0]?[Iface.adapter]?["Powered"] == .boolean(true))
                let devices = try await Self.control(client, "ListDevices").decodeSingle([[String: DBusValue]].self)
                #expect(devices.count == 3)
                try await Self.control(client, "InjectFault", [.string("power-off"), .propertyMap([])])
                let powered = try await client.call(
                    destination: "org.bluez", path: Standard.hci0, interface: Iface.properties, member: "Get",
                    arguments: [.string(Iface.adapter), .string("Powered")]
                ).decodeSingle(DBusValue.self)
                #expect(powered == .boolean(false))
                await client.close()
                process.signal(SIGTERM)
                #expect(await process.waitForExit(timeout: .seconds(5)) == 0)
                #expect(process.log().contains("SIGTERM: stopping"))
            } catch {
                await process.stop()
                throw error
            }
            await process.stop()
        }
    }

    @Test("blectl-mock --help, and a clear error for a bad option (exit 64)")
    func programUsage() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary))
        let directory = FileManager.default.temporaryDirectory
        let help = try ChildProcess.start(
            Self.binary, ["--help"], logFile: directory.appendingPathComponent("blectl-mock-help.log"),
            captureStdout: true)
        #expect(try await help.firstStdoutLine(timeout: .seconds(5)) == "Usage: blectl-mock [OPTIONS]")
        #expect(await help.waitForExit(timeout: .seconds(5)) == 0)
        let bad = try ChildProcess.start(
            Self.binary, ["--pattern", "zigzag"], logFile: directory.appendingPathComponent("blectl-mock-bad.log"))
        #expect(await bad.waitForExit(timeout: .seconds(5)) == 64)
        #expect(bad.log().contains("--pattern is drift, constant or counter, not 'zigzag'"))
    }
}
