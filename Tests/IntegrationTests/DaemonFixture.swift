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
    let configurationFile: URL

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
        try await DaemonGroup.with { group in
            try await body(
                try await group.launch(
                    mockOptions: mockOptions, arguments: arguments, configuration: configuration, environment: extra))
        }
    }

    /// Starts `blectld --mock` in `directory`: its socket, configuration and log are
    /// `<name>.sock`, `<name>.conf` and `<name>.log` there. Returns once it serves (the
    /// caller stops it), or stops it and throws.
    static func launch(
        in directory: URL, name: String, mockOptions: String, arguments: [String], configuration: String?,
        environment: [String: String]
    ) async throws -> DaemonFixture {
        let (daemon, socket, config) = try spawn(
            in: directory, name: name, mockOptions: mockOptions, arguments: arguments, configuration: configuration,
            environment: environment)
        do {
            let address = try await busAddress(of: daemon)
            return DaemonFixture(
                daemon: daemon, directory: directory, socket: socket, busAddress: address, configurationFile: config)
        } catch {
            await daemon.stop()
            print("blectld log:\n\(daemon.log())")
            throw error
        }
    }

    /// Starts `blectld --mock` as ``launch(in:name:mockOptions:arguments:configuration:environment:)``
    /// does, without waiting for it; returns it, its socket and its configuration file.
    static func spawn(
        in directory: URL, name: String, mockOptions: String, arguments: [String], configuration: String?,
        environment extra: [String: String]
    ) throws -> (ChildProcess, socket: String, configuration: URL) {
        let socket = directory.appendingPathComponent("\(name).sock").path
        var environment = ProcessInfo.processInfo.environment
        // No advertising sensors unless a test asks for them: the others count Pis.
        environment["BLECTL_MOCK_OPTIONS"] =
            mockOptions.contains("--advertisers") ? mockOptions : mockOptions + " --advertisers 0"
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment.merge(extra) { $1 }
        let config = directory.appendingPathComponent("\(name).conf")
        try (configuration ?? "").write(to: config, atomically: true, encoding: .utf8)
        // It may hold keys, which blectld refuses in a file others can read.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config.path)
        let daemon = try ChildProcess.start(
            binary("blectld"), ["--mock", "--socket", socket, "--config", config.path] + arguments,
            environment: environment, logFile: directory.appendingPathComponent("\(name).log"))
        return (daemon, socket, config)
    }

    /// Waits for the daemon to serve; returns the mock's bus address from its log.
    private static func busAddress(of daemon: ChildProcess) async throws -> String {
        try await withTimeout(.seconds(20)) {
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
        let deadline = ContinuousClock.now + timeout.scaled
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

/// Daemons started one after another in one temporary directory (restarts on one state
/// directory, a second daemon beside a first): all stopped, and the directory removed,
/// whatever happens.
final class DaemonGroup {
    let directory: URL
    private var started: [ChildProcess] = []

    private init(directory: URL) {
        self.directory = directory
    }

    /// Runs `body` with a new group; prints the daemons' logs when it throws.
    static func with(_ body: (DaemonGroup) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blectl-it-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let group = DaemonGroup(directory: directory)
        do {
            try await body(group)
            await group.stopAll()
        } catch {
            await group.stopAll()
            for daemon in group.started { print("blectld log (\(daemon.logFile.lastPathComponent)):\n\(daemon.log())") }
            throw error
        }
    }

    /// Starts a daemon (see ``DaemonFixture/launch(in:name:mockOptions:arguments:configuration:environment:)``).
    func launch(
        _ name: String = "blectld", mockOptions: String = "--fast --notify-interval 200ms",
        arguments: [String] = ["--log-level", "debug"], configuration: String? = nil,
        environment: [String: String] = [:]
    ) async throws -> DaemonFixture {
        let fixture = try await DaemonFixture.launch(
            in: directory, name: name, mockOptions: mockOptions, arguments: arguments, configuration: configuration,
            environment: environment)
        started.append(fixture.daemon)
        return fixture
    }

    /// Starts a daemon without waiting for it to serve (one that should refuse to start).
    func spawn(
        _ name: String, mockOptions: String = "--fast --notify-interval 200ms", arguments: [String],
        configuration: String? = nil
    ) throws -> ChildProcess {
        let (daemon, _, _) = try DaemonFixture.spawn(
            in: directory, name: name, mockOptions: mockOptions, arguments: arguments, configuration: configuration,
            environment: [:])
        started.append(daemon)
        return daemon
    }

    /// Stops every daemon still running.
    func stopAll() async {
        for daemon in started { await daemon.stop() }
    }
}
