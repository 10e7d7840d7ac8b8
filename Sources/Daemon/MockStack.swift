import Glibc
public import UnixSupport

/// `blectld --mock`: a private `dbus-daemon` with `blectl-mock` on it, so the
/// whole stack runs without touching the machine's Bluetooth or system bus.
public final class MockStack: Sendable {
    /// The private bus's address, for the daemon's D-Bus connection.
    public let busAddress: String
    private let bus: ChildProcess
    private let mock: ChildProcess
    private let directory: String

    private init(busAddress: String, bus: ChildProcess, mock: ChildProcess, directory: String) {
        self.busAddress = busAddress
        self.bus = bus
        self.mock = mock
        self.directory = directory
    }

    /// The environment variable with extra `blectl-mock` options (`--notify-interval 1s --fast`…).
    public static let optionsVariable = "BLECTL_MOCK_OPTIONS"

    /// Starts the bus, then the mock adapter, and waits until it owns `org.bluez`.
    ///
    /// - Parameter mockArguments: extra `blectl-mock` options (scenario knobs); by
    ///   default those in `BLECTL_MOCK_OPTIONS`, split on spaces.
    public static func start(
        mockArguments: [String] = (ProcessEnvironment.current[optionsVariable] ?? "").split(separator: " ").map(
            String.init),
        log: Log
    ) throws(SystemError) -> MockStack {
        let directory = try makeDirectory()
        let config = "\(directory)/bus.conf"
        try writeFile(config, busConfiguration(socket: "\(directory)/bus"))
        let bus = try ChildProcess.spawn(
            try locate("dbus-daemon", in: ["/usr/bin", "/bin"]),
            ["--config-file=\(config)", "--nofork", "--nopidfile", "--print-address"])
        let address: String
        do {
            address = try bus.readLine(timeout: .seconds(10))
        } catch {
            bus.stop()
            throw error
        }
        log.info("mock: private bus at \(address)")
        let mock: ChildProcess
        do {
            mock = try ChildProcess.spawn(try mockExecutable(), ["--address", address] + mockArguments)
            let ready = try mock.readLine(timeout: .seconds(10))
            log.info("mock: \(ready)")
        } catch {
            bus.stop()
            throw error
        }
        return MockStack(busAddress: address, bus: bus, mock: mock, directory: directory)
    }

    /// Stops the mock adapter and the bus, and removes the bus's directory.
    public func stop() {
        mock.stop()
        bus.stop()
        unlink("\(directory)/bus")
        unlink("\(directory)/bus.conf")
        rmdir(directory)
    }

    /// A bus only this daemon and its mock use: anyone may own any name on it.
    /// (Its own file, not `--session`, which watches config directories with inotify.)
    static func busConfiguration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
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
