public import Foundation
import PrivateBus

/// A private `dbus-daemon` for tests: started in a temporary directory and
/// always stopped by ``withPrivateBus(_:)``.
public final class PrivateBus: Sendable {
    /// The bus address (`unix:path=…`) to connect to.
    public let address: String
    /// The temporary directory holding the bus socket and config.
    public let directory: URL
    private let process: ChildProcess

    private init(address: String, directory: URL, process: ChildProcess) {
        self.address = address
        self.directory = directory
        self.process = process
    }

    /// Starts a bus whose policy lets every client own any name and talk to anyone.
    public static func start() async throws -> PrivateBus {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("blectl-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try PrivateBusConfiguration.text(socket: directory.appendingPathComponent("bus").path)
            .write(to: config, atomically: true, encoding: .utf8)
        let process = try ChildProcess.start(
            "/usr/bin/dbus-daemon", PrivateBusConfiguration.daemonArguments(configFile: config.path),
            logFile: directory.appendingPathComponent("dbus-daemon.log"), captureStdout: true)
        guard let line = try await process.firstStdoutLine(timeout: .seconds(10)), !line.isEmpty else {
            await process.stop()
            throw TestSupportError("dbus-daemon printed no address")
        }
        return PrivateBus(address: line, directory: directory, process: process)
    }

    /// Stops the bus and removes its directory.
    ///
    /// SIGKILL at once: the bus holds nothing worth a clean exit, and
    /// dbus-daemon takes seconds to act on SIGTERM.
    public func stop() async {
        await crash()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the bus at once, as a crashing dbus-daemon would go; the directory stays.
    public func crash() async {
        await process.stop(signal: SIGKILL)
    }
}

/// Runs `body` with a fresh private bus, stopping the bus whatever happens.
public func withPrivateBus<T>(_ body: (PrivateBus) async throws -> T) async throws -> T {
    let bus = try await PrivateBus.start()
    do {
        let result = try await body(bus)
        await bus.stop()
        return result
    } catch {
        await bus.stop()
        throw error
    }
}

/// A failure in test plumbing (not in the code under test).
public struct TestSupportError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
