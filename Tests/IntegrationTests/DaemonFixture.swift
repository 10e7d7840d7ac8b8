import DBusCore
import Foundation
import TestSupport

/// `blectld --mock` running as a real process on a socket in a temporary
/// directory, stopped (and its directory removed) whatever happens.
struct DaemonFixture {
    let daemon: ChildProcess
    let directory: URL
    let socket: String
    /// The mock's private bus (from the daemon's log), for its control interface.
    let busAddress: String

    /// The configuration file the daemon was started with.
    var configurationFile: URL { directory.appendingPathComponent("blectld.conf") }

    /// Where the test bundle's sibling executables are (`.build/<triple>/debug`).
    static let products: URL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .resolvingSymlinksInPath()

    static func binary(_ name: String) -> String {
        var url = products
        // The bundle may be a directory (…/blectlPackageTests.xctest/…) on some layouts.
        while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent(name).path),
            url.path != "/"
        {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent(name).path
    }

    /// Runs `body` with a fresh daemon; `environment` adds to (or overrides) the test's own.
    static func with(
        mockOptions: String = "--fast --notify-interval 200ms", arguments: [String] = ["--log-level", "debug"],
        configuration: String? = nil, environment extra: [String: String] = [:],
        _ body: (DaemonFixture) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blectl-it-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("blectld.sock").path
        var environment = ProcessInfo.processInfo.environment
        // No advertising sensors unless a test asks for them: the others count Pis.
        environment["BLECTL_MOCK_OPTIONS"] =
            mockOptions.contains("--advertisers") ? mockOptions : mockOptions + " --advertisers 0"
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment.merge(extra) { $1 }
        let config = directory.appendingPathComponent("blectld.conf")
        try (configuration ?? "").write(to: config, atomically: true, encoding: .utf8)
        let daemon = try ChildProcess.start(
            binary("blectld"), ["--mock", "--socket", socket, "--config", config.path] + arguments,
            environment: environment, logFile: directory.appendingPathComponent("blectld.log"))
        do {
            let fixture = try await start(daemon, directory: directory, socket: socket)
            try await body(fixture)
            await daemon.stop()
        } catch {
            await daemon.stop()
            print("blectld log:\n\(daemon.log())")
            throw error
        }
    }

    private static func start(_ daemon: ChildProcess, directory: URL, socket: String) async throws -> DaemonFixture {
        let address = try await withTimeout(.seconds(20)) {
            while true {
                let log = daemon.log()
                if log.contains("ready: socket"),
                    let line = log.split(separator: "\n").first(where: {
                        $0.contains("mock: private bus at ")
                    })
                {
                    return String(line.split(separator: "mock: private bus at ").last!)
                }
                guard daemon.isRunning else { throw TestSupportError("blectld exited: \(log)") }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        return DaemonFixture(daemon: daemon, directory: directory, socket: socket, busAddress: address)
    }

    /// The mock stack's processes: blectld's `dbus-daemon` and `blectl-mock` children.
    func stack() throws -> (bus: pid_t, mock: pid_t) {
        let children = ProcessInfo.children(of: daemon.pid)
        guard let bus = children.first(where: { ProcessInfo.command(of: $0).hasPrefix("/usr/bin/dbus-daemon") }),
            let mock = children.first(where: { ProcessInfo.command(of: $0).contains("blectl-mock") })
        else { throw TestSupportError("blectld has no dbus-daemon and blectl-mock children: \(children)") }
        return (bus, mock)
    }

    /// Runs `blectl` with `arguments` (socket given), returning its exit status, stdout and stderr.
    func blectl(_ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(30))
        async throws -> (status: Int32, output: String, errors: String)
    {
        try await run(
            Self.binary("blectl"), ["--socket", socket] + arguments, environment: environment, timeout: timeout)
    }

    /// Waits until `count` thermometers are connected (asking `blectl status --json`).
    func waitForConnected(_ count: Int, within timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let status = try await blectl(["status", "--json"])
            if let object = ChildProcessLines.parse(status.output), (object["connected"] as? [Any])?.count == count {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("\(count) thermometers did not connect in \(timeout)")
    }

    /// Calls the mock's control interface (`org.blectl.Mock1`).
    func mock(_ member: String, _ arguments: [DBusValue]) async throws {
        let connection = try await DBusConnection.connect(to: .address(busAddress), label: "test-control")
        defer { Task { await connection.close() } }
        _ = try await connection.call(
            destination: "org.blectl.Mock", path: "/org/blectl/Mock", interface: "org.blectl.Mock1", member: member,
            arguments: arguments)
    }

    /// Injects a fault: `InjectFault(name, options)`.
    func inject(_ fault: String, _ options: [(String, DBusValue)] = []) async throws {
        try await mock("InjectFault", [.string(fault), .propertyMap(options)])
    }
}

/// Runs a program to completion (bounded), returning its exit status, stdout and stderr.
///
/// Stdout goes to a file read after the exit: waiting for a pipe's end of file
/// through Foundation's readability handler is not reliable on Linux.
func run(
    _ path: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(30)
) async throws -> (status: Int32, output: String, errors: String) {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-run-\(UUID().uuidString)")
    let out = base.appendingPathExtension("out")
    let err = base.appendingPathExtension("err")
    defer {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }
    let process = try ChildProcess.start(path, arguments, environment: environment, logFile: err, stdoutFile: out)
    guard let status = await process.waitForExit(timeout: timeout) else {
        await process.stop(signal: SIGKILL)
        throw TestSupportError("\(path) \(arguments) did not finish in \(timeout)")
    }
    return (status, (try? String(contentsOf: out, encoding: .utf8)) ?? "", process.log())
}
