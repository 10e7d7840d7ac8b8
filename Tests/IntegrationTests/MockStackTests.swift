import Foundation
import TestSupport
import Testing

/// `blectld --mock`'s children (its dbus-daemon and blectl-mock): they neither outlive nor
/// confuse blectld. The real binaries, with /proc as the witness.
@Suite("blectld --mock's process stack", .serialized)
struct MockStackTests {
    @Test("SIGKILL of blectld: its dbus-daemon and blectl-mock die with it")
    func killedDaemonLeavesNoOrphans() async throws {
        try await DaemonFixture.with { fixture in
            let (bus, mock) = try fixture.stack()
            kill(fixture.daemon.pid, SIGKILL)
            #expect(
                try await ProcessInfo.allExit([bus, mock], within: .seconds(2)), "orphans: bus \(bus), mock \(mock)")
        }
    }

    @Test("the stack lives as long as blectld, not as long as the thread that started it")
    func stackOutlivesStartUp() async throws {
        // An idle daemon (a notification a minute): libdispatch ends a worker thread of
        // Swift's pool after 5 s without work, and a child tied to it would go with it.
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 60s") { fixture in
            let (bus, mock) = try fixture.stack()
            let workers = ProcessInfo.threads(of: fixture.daemon.pid).filter { $0.value.hasSuffix("default-qos") }
            try #require(!workers.isEmpty)
            try await withTimeout(.seconds(40)) {
                while !Set(ProcessInfo.threads(of: fixture.daemon.pid).keys).isDisjoint(with: workers.keys) {
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            #expect(ProcessInfo.isAlive(bus) && ProcessInfo.isAlive(mock))
            let now = try fixture.stack()
            #expect(now.bus == bus && now.mock == mock)
            #expect(fixture.daemon.isRunning)
            #expect(try await fixture.blectl(["status"]).status == 0)
        }
    }

    @Test("the children inherit none of systemd's variables meant for blectld")
    func childrenGetNoServiceManagerVariables() async throws {
        let systemd = [
            "NOTIFY_SOCKET": "/nonexistent/notify", "LISTEN_FDS": "1", "LISTEN_PID": "1",
            "LISTEN_FDNAMES": "blectld.socket", "WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "1",
        ]
        try await DaemonFixture.with(environment: systemd) { fixture in
            let (bus, mock) = try fixture.stack()
            #expect(ProcessInfo.environmentNames(of: fixture.daemon.pid).isSuperset(of: systemd.keys))
            for child in [bus, mock] {
                let names = ProcessInfo.environmentNames(of: child)
                #expect(names.contains("PATH"), "environ of \(child) is readable")
                #expect(names.isDisjoint(with: systemd.keys), "\(ProcessInfo.command(of: child)) got \(names)")
            }
        }
    }

    @Test("SIGTERM to the whole process group is a stop: exit 0, every time")
    func processGroupStop() async throws {
        for run in 1...4 {
            try await DaemonFixture.with { fixture in
                try await fixture.waitForConnected(2)
                let (bus, mock) = try fixture.stack()
                // Foundation starts blectld as a group leader, and its children stay in its group.
                try #require(getpgid(fixture.daemon.pid) == fixture.daemon.pid && getpgid(bus) == fixture.daemon.pid)
                kill(-fixture.daemon.pid, SIGTERM)
                let status = await fixture.daemon.waitForExit(timeout: .seconds(10))
                #expect(status == 0, "run \(run): \(fixture.daemon.log())")
                #expect(try await ProcessInfo.allExit([bus, mock], within: .seconds(2)))
            }
        }
    }

    @Test("a second blectld on a live socket says so and exits 75 before starting a mock stack")
    func secondDaemonOnLiveSocket() async throws {
        try await DaemonFixture.with { fixture in
            let runtime = fixture.directory.appendingPathComponent("second")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime.path
            let second = try ChildProcess.start(
                DaemonFixture.binary("blectld"),
                ["--mock", "--socket", fixture.socket, "--config", fixture.configurationFile.path],
                environment: environment, logFile: fixture.directory.appendingPathComponent("second.log"))
            let status = await second.waitForExit(timeout: .seconds(10))
            await second.stop()  // when it did not exit
            #expect(status == 75)
            #expect(second.log().contains("another blectld is serving \(fixture.socket)"))
            #expect(!second.log().contains("mock:"), "it started a mock stack: \(second.log())")
            #expect(try FileManager.default.contentsOfDirectory(atPath: runtime.path).isEmpty)
            #expect(fixture.daemon.isRunning)
            #expect(try await fixture.blectl(["status"]).status == 0)
        }
    }
}
