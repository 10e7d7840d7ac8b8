import Foundation
import Synchronization
import TestSupport

/// A real mosquitto broker on a free localhost port, in a temporary directory; stopped
/// (and the directory removed) whatever the test does.
final class MQTTBroker: Sendable {
    let port: Int
    let directory: URL
    let tls: Bool
    private let process: Mutex<ChildProcess?>

    /// The URL blectld is given (`mqtts://localhost:PORT` with TLS: the name the test CA signed).
    var url: String { tls ? "mqtts://localhost:\(port)" : "mqtt://127.0.0.1:\(port)" }

    private init(port: Int, directory: URL, tls: Bool) {
        self.port = port
        self.directory = directory
        self.tls = tls
        process = Mutex(nil)
    }

    /// Runs `body` with a broker: `persistent` keeps sessions and queued messages across a
    /// restart (so a test's subscriber misses nothing while the broker is down); `users`
    /// turns anonymous access off; `tls` serves TLS with a certificate of a test CA.
    static func with(
        persistent: Bool = false, users: [String: String] = [:], tls: Bool = false,
        _ body: (MQTTBroker) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blectl-mqtt-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let broker = MQTTBroker(port: try freeTCPPort(), directory: directory, tls: tls)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await broker.configure(persistent: persistent, users: users)
            try await broker.start()
            try await body(broker)
            await broker.stop()
        } catch {
            await broker.stop()
            print("mosquitto log:\n\(broker.log())")
            throw error
        }
    }

    func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func configure(persistent: Bool, users: [String: String]) async throws {
        // As root, mosquitto would become the user mosquitto, who cannot read the test's files.
        var lines = ["listener \(port) 127.0.0.1", "max_queued_messages 0", "log_type all", "user root"]
        if persistent {
            lines += ["persistence true", "persistence_location \(directory.path)/", "autosave_interval 1"]
        }
        if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            try "".write(toFile: file("passwords"), atomically: true, encoding: .utf8)
            for (user, password) in users {
                let result = try await run("/usr/bin/mosquitto_passwd", ["-b", file("passwords"), user, password])
                guard result.status == 0 else { throw TestSupportError("mosquitto_passwd: \(result.errors)") }
            }
            lines += ["allow_anonymous false", "password_file \(file("passwords"))"]
        }
        if tls {
            try await TestCA.make(in: self)
            lines += ["cafile \(file("ca.pem"))", "certfile \(file("server.pem"))", "keyfile \(file("server.key"))"]
        }
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: file("mosquitto.conf"), atomically: true, encoding: .utf8)
    }

    /// Starts the broker and waits until it accepts connections.
    func start() async throws {
        let child = try ChildProcess.start(
            "/usr/sbin/mosquitto", ["-c", file("mosquitto.conf")],
            logFile: directory.appendingPathComponent("broker.log"))
        process.withLock { $0 = child }
        let ready = await eventually(within: .seconds(10)) { self.log().contains("running") || !child.isRunning }
        guard ready, child.isRunning else { throw TestSupportError("mosquitto did not start: \(log())") }
    }

    /// Stops the broker (SIGTERM: it saves its sessions when persistent).
    func stop() async {
        let child = process.withLock { $0.take() }
        await child?.stop()
    }

    /// Freezes or thaws the broker: a network that hangs.
    func signal(_ number: Int32) {
        process.withLock { $0 }?.signal(number)
    }

    func log() -> String { (try? String(contentsOfFile: file("broker.log"), encoding: .utf8)) ?? "" }
}

/// A port no one listens on now: bound to port 0, then released.
func freeTCPPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestSupportError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
        }
    }
    guard bound else { throw TestSupportError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A certificate authority made by the test with openssl, and the broker's certificate for
/// `localhost` and 127.0.0.1, signed by it.
enum TestCA {
    static func make(in broker: MQTTBroker) async throws {
        let openssl = "/usr/bin/openssl"
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=blectl test CA",
                "-keyout", broker.file("ca.key"), "-out", broker.file("ca.pem"),
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", broker.file("server.key"),
                "-out", broker.file("server.csr"),
            ],
            [
                "x509", "-req", "-in", broker.file("server.csr"), "-CA", broker.file("ca.pem"), "-CAkey",
                broker.file("ca.key"), "-CAcreateserial", "-days", "2", "-out", broker.file("server.pem"), "-extfile",
                broker.file("san.cnf"),
            ],
        ]
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            toFile: broker.file("san.cnf"), atomically: true, encoding: .utf8)
        for step in steps {
            let result = try await run(openssl, step)
            guard result.status == 0 else { throw TestSupportError("openssl \(step[0]): \(result.errors)") }
        }
    }
}
