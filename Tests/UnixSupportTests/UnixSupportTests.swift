import Glibc
import TestSupport
import Testing
import UnixSupport

@Suite("Unix support")
struct UnixSupportTests {
    @Test("Log lines carry sd-daemon priority prefixes, one per line, filtered by level")
    func logging() {
        let recorder = LogRecorder()
        let log = Log(level: .info, sink: recorder.sink)
        log.debug("hidden")
        log.info("two\nlines")
        log.error("bad")
        #expect(
            recorder.records == [
                .init(level: .info, message: "two"), .init(level: .info, message: "lines"),
                .init(level: .error, message: "bad"),
            ])
        #expect(StandardErrorSink(prefixed: true).format(.warning, "careful") == "<4>careful")
        #expect(StandardErrorSink(prefixed: false).format(.warning, "careful") == "warning: careful")
        #expect(LogLevel(name: "warn") == .warning && LogLevel(name: "7") == .debug && LogLevel(name: "loud") == nil)
        #expect(LogLevel.error > LogLevel.debug)
    }

    @Test("sd_notify messages reach a path socket and an abstract socket")
    func notify() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        for path in [directory.file("notify"), "@blectl-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"] {
            let receiver = try UnixSocket.makeSocket(type: SOCK_DGRAM, nonBlocking: false)
            defer { close(receiver) }
            let bound = try UnixSocket.withAddress(path) { address, length in bind(receiver, address, length) }
            #expect(bound == 0)
            try UnixSocket.setReceiveTimeout(receiver, .seconds(5))
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
            #expect(notifier.isEnabled)
            try notifier.ready(status: "Serving\n2 clients")
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
            #expect(String(decoding: buffer[..<max(count, 0)], as: UTF8.self) == "READY=1\nSTATUS=Serving 2 clients")
        }
        let silent = SystemdNotifier(environment: [:])
        #expect(!silent.isEnabled)
        try silent.watchdog()  // a no-op without NOTIFY_SOCKET
    }

    @Test("The watchdog interval applies only to the named process")
    func watchdog() {
        let pid = getpid()
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == .seconds(30))
        #expect(
            SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "\(pid)"])
                == .milliseconds(1))
        #expect(
            SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "\(pid + 1)"])
                == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "zero"]) == nil)
    }

    @Test("Socket activation descriptors are taken only for this process")
    func socketActivation() {
        let pid = getpid()
        #expect(listenFDs(environment: ["LISTEN_PID": "\(pid + 1)", "LISTEN_FDS": "1"]) == [])
        #expect(listenFDs(environment: ["LISTEN_FDS": "1"]) == [])
        #expect(listenFDs(environment: ["LISTEN_PID": "\(pid)", "LISTEN_FDS": "0"]) == [])
        #expect(listenFDs(environment: ["LISTEN_PID": "\(pid)", "LISTEN_FDS": "2"]) == [3, 4])
    }

    @Test("Socket paths that do not fit sun_path are refused")
    func longPath() {
        let long = "/" + String(repeating: "x", count: UnixSocket.maxPathLength + 1)
        #expect(throws: SystemError.self) { try UnixSocket.withAddress(long) { _, _ in 0 } }
    }

    @Test("A stale socket file is replaced; a live one is not")
    func staleSocket() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("s.sock")
        let first = try UnixSocket.listen(path: path)
        #expect(throws: SystemError.self) { try UnixSocket.listen(path: path) }  // still listening
        close(first)  // the file stays behind, as after a crash
        let second = try UnixSocket.listen(path: path)
        defer { close(second) }
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(UnixSocket.isListeningStreamSocket(second))
    }

    @Test("A socket accepts connections only while a daemon listens on it")
    func acceptsConnections() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("s.sock")
        #expect(!UnixSocket.acceptsConnections(path))  // no file
        let listener = try UnixSocket.listen(path: path, backlog: 1)
        #expect(UnixSocket.acceptsConnections(path))
        // A full backlog is still a live daemon: the non-blocking probe gets EAGAIN.
        let waiting = try (0..<4).map { _ in
            let fd = try UnixSocket.makeSocket(type: SOCK_STREAM, nonBlocking: true)
            _ = try UnixSocket.withAddress(path) { address, length in connect(fd, address, length) }
            return fd
        }
        #expect(UnixSocket.acceptsConnections(path))
        waiting.forEach { close($0) }
        close(listener)  // the file stays behind, as after a crash
        #expect(!UnixSocket.acceptsConnections(path))
        #expect(!UnixSocket.acceptsConnections(directory.path))  // not a socket
    }

    @Test("Children get the environment without systemd's variables for this process")
    func childEnvironment() {
        let ours = [
            "PATH": "/usr/bin", "NOTIFY_SOCKET": "/run/systemd/notify", "LISTEN_FDS": "1", "LISTEN_PID": "7",
            "LISTEN_FDNAMES": "blectld.socket", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7",
        ]
        #expect(ProcessEnvironment.forChildren(ours) == ["PATH": "/usr/bin"])
    }

    @Test("A socket's peer credentials are the connecting process's")
    func peerCredentials() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        #expect(try UnixSocket.peerCredentials(fds[0]) == PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
        #expect(throws: SystemError.self) { try UnixSocket.peerCredentials(-1) }
    }
}
