import Glibc
import PrivateBus
import UnixSupport

/// `blectld --mock`: a private `dbus-daemon` with `blectl-mock` on it, so the whole stack
/// runs without touching the machine's Bluetooth or system bus.
///
/// The two children take orders from blectld only, so that a signal for the whole process
/// group or cgroup (Ctrl-C, `timeout`, systemd stopping the unit) reaches blectld alone and
/// it stops them itself, after its own D-Bus connection is closed: were the bus to stop
/// first, blectld would see its bus lost and exit 1. Both start with SIGTERM, SIGINT and
/// SIGHUP blocked, which dbus-daemon keeps; blectl-mock (`--stdin-lifeline`) then ignores
/// them itself and stops when its stdin, a pipe only blectld holds, reaches end of file.
/// The bus, which holds nothing worth a clean exit, is killed. Both die with blectld, even
/// by SIGKILL (``SpawnedProcess``).
struct MockStack {
    /// The private bus's address, for the daemon's D-Bus connection.
    let busAddress: String
    private let bus: SpawnedProcess
    private let mock: SpawnedProcess
    /// The stack's temporary directory (the bus's socket and configuration; the history
    /// of `--mock` when no state directory is configured), removed by ``stop()``.
    let directory: String

    /// The environment variable with extra `blectl-mock` options (`--notify-interval 1s --fast`…).
    static let optionsVariable = "BLECTL_MOCK_OPTIONS"

    /// The signals the children leave to blectld.
    private static let stopSignals = [SIGTERM, SIGINT, SIGHUP]

    /// Starts the bus, then the mock adapter, and waits until it owns `org.bluez`. Call it
    /// on the main thread (``SpawnedProcess`` says why).
    ///
    /// - Parameter mockArguments: extra `blectl-mock` options (scenario knobs); by
    ///   default those in `BLECTL_MOCK_OPTIONS`, split on spaces.
    static func start(
        mockArguments: [String] = (ProcessEnvironment.current[optionsVariable] ?? "").split(separator: " ").map(
            String.init),
        log: Log
    ) throws(SystemError) -> MockStack {
        let directory = try makeDirectory()
        do throws(SystemError) {
            let (bus, address) = try startBus(in: directory)
            log.info("mock: private bus at \(address)")
            do throws(SystemError) {
                let mock = try startMock(["--address", address] + mockArguments, log: log)
                return MockStack(busAddress: address, bus: bus, mock: mock, directory: directory)
            } catch {
                bus.reap(within: .zero)
                throw error
            }
        } catch {
            removeDirectory(directory)
            throw error
        }
    }

    /// Stops the mock adapter (end of file on its stdin, SIGKILL after 3 s), kills the
    /// bus, and removes the bus's directory.
    func stop() {
        mock.reap(within: .seconds(3))
        bus.reap(within: .zero)
        Self.removeDirectory(directory)
    }

    private static func startBus(in directory: String) throws(SystemError) -> (SpawnedProcess, String) {
        let config = "\(directory)/bus.conf"
        try writeFile(config, PrivateBusConfiguration.text(socket: "\(directory)/bus"))
        let bus = try SpawnedProcess.spawn(
            try locate("dbus-daemon", in: ["/usr/bin", "/bin"]),
            PrivateBusConfiguration.daemonArguments(configFile: config),
            blocking: stopSignals)
        do throws(SystemError) {
            return (bus, try bus.readLine(timeout: .seconds(10)))
        } catch {
            bus.reap(within: .zero)
            throw error
        }
    }

    private static func startMock(_ arguments: [String], log: Log) throws(SystemError) -> SpawnedProcess {
        let mock = try SpawnedProcess.spawn(
            try mockExecutable(), ["--stdin-lifeline"] + arguments, lifeline: true, blocking: stopSignals)
        do throws(SystemError) {
            let ready = try mock.readLine(timeout: .seconds(10))
            log.info("mock: \(ready)")
            return mock
        } catch {
            mock.reap(within: .zero)
            throw error
        }
    }

    private static func writeFile(_ path: String, _ text: String) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .current("open(\(path))") }
        defer { close(fd) }
        writeAll(fd, Array(text.utf8))
    }

    private static func makeDirectory() throws(SystemError) -> String {
        let base = ProcessEnvironment.current["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/blectld-mock-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw .current("mkdtemp(\(base))") }
        return String(cString: made)
    }

    private static func removeDirectory(_ directory: String) {
        DirectoryTree.remove(directory)
    }

    /// `blectl-mock` next to this executable, else on PATH.
    private static func mockExecutable() throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var places: [String] = []
        if length > 0 {
            let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            places.append(String(own[..<(own.lastIndex(of: "/") ?? own.endIndex)]))
        }
        let path = ProcessEnvironment.current["PATH"] ?? "/usr/local/bin:/usr/bin"
        return try locate("blectl-mock", in: places + path.split(separator: ":").map(String.init))
    }

    private static func locate(_ name: String, in directories: [String]) throws(SystemError) -> String {
        for directory in directories where access("\(directory)/\(name)", X_OK) == 0 {
            return "\(directory)/\(name)"
        }
        throw SystemError("cannot find \(name) (install it, or put it next to blectld)", code: ENOENT)
    }
}
