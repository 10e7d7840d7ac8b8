import Foundation
import TestSupport
import Testing

/// Nothing lost while the broker is away; credentials, TLS and bad settings (docs/mqtt.md).
@Suite("MQTT: nothing lost, credentials and TLS", .serialized)
struct MQTTDeliveryTests {
    static let stateTopics = ["-t", "blectl/+/error"]

    /// The `seq`s of state and error messages, in arrival order.
    static func seqs(_ subscriber: MQTTSubscriber) -> [UInt64] {
        subscriber.received.filter { $0.topic.hasSuffix("/state") || $0.topic.hasSuffix("/error") }.compactMap(\.seq)
    }

    /// Every `seq` from the first received up to `last` arrived, first arrivals in order,
    /// repeats no more than the messages QoS 1 may have had in flight (the window of 100).
    static func checkComplete(_ seqs: [UInt64], through last: UInt64) {
        var seen = Set<UInt64>()
        var firsts: [UInt64] = []
        for seq in seqs where seen.insert(seq).inserted { firsts.append(seq) }
        guard let first = firsts.first else {
            Issue.record("nothing received")
            return
        }
        #expect(firsts == firsts.sorted(), "first arrivals out of order")
        let missing = (first...last).filter { !seen.contains($0) }
        #expect(missing.isEmpty, "missing \(missing.count): \(missing.prefix(20))")
        #expect(seqs.count - firsts.count <= 100, "\(seqs.count - firsts.count) repeats")
    }

    /// Waits until blectld has published everything (backlog 0) and the subscriber has it all.
    static func waitForCatchUp(_ fixture: DaemonFixture, _ subscriber: MQTTSubscriber) async throws -> UInt64 {
        try await fixture.waitForMQTT(within: .seconds(60)) {
            $0["state"] as? String == "connected" && ($0["backlog"] as? NSNumber)?.intValue == 0
        }
        let last = try #require((try await fixture.mqttStatus())["acked_seq"] as? NSNumber).uint64Value
        try await subscriber.wait(within: .seconds(30), "every reading through \(last)") { _ in
            Set(Self.seqs(subscriber)).contains(last)
        }
        return last
    }

    @Test("Broker stopped and started again: every reading taken meanwhile arrives, in order, no gap")
    func brokerOutage() async throws {
        try await MQTTBroker.with(persistent: true) { broker in
            let subscriber = try MQTTSubscriber(
                broker, topic: "blectl/+/state", session: "it-outage", extra: Self.stateTopics)
            defer { Task { await subscriber.stop() } }
            try await DaemonFixture.with(arguments: MQTTTests.arguments(broker)) { fixture in
                try await subscriber.wait("readings") { _ in Self.seqs(subscriber).count >= 3 }
                await broker.stop()
                try await fixture.waitForMQTT {
                    $0["state"] as? String != "connected" && ($0["backlog"] as? NSNumber)?.intValue ?? 0 >= 10
                        && $0["last_error"] is String
                }
                try await broker.start()
                let last = try await Self.waitForCatchUp(fixture, subscriber)
                Self.checkComplete(Self.seqs(subscriber), through: last)
            }
        }
    }

    @Test("The same across a blectld restart during the outage: the position survives in the state directory")
    func restartDuringOutage() async throws {
        let state = TemporaryDirectory()
        defer { state.remove() }
        try await MQTTBroker.with(persistent: true) { broker in
            let subscriber = try MQTTSubscriber(
                broker, topic: "blectl/+/state", session: "it-restart", extra: Self.stateTopics)
            defer { Task { await subscriber.stop() } }
            let arguments = MQTTTests.arguments(broker, ["--state-dir", state.path])
            try await DaemonFixture.with(arguments: arguments) { fixture in
                try await subscriber.wait("readings") { _ in Self.seqs(subscriber).count >= 3 }
                await broker.stop()
                try await fixture.waitForMQTT { ($0["backlog"] as? NSNumber)?.intValue ?? 0 >= 10 }
            }
            try await DaemonFixture.with(arguments: arguments) { fixture in
                try await fixture.waitForMQTT { ($0["backlog"] as? NSNumber)?.intValue ?? 0 >= 20 }
                try await broker.start()
                let last = try await Self.waitForCatchUp(fixture, subscriber)
                Self.checkComplete(Self.seqs(subscriber), through: last)
            }
        }
    }

    @Test("TLS with a test CA, user name and password")
    func tlsWithPassword() async throws {
        try await MQTTBroker.with(users: ["blectl": "s3cret pass", "watcher": "w"], tls: true) { broker in
            let passwordFile = broker.file("password")
            try "s3cret pass\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            chmod(passwordFile, 0o600)  // blectld refuses a password file others can read
            let configuration = """
                mqtt_url = \(broker.url)
                mqtt_gateway = secure
                mqtt_ca_file = \(broker.file("ca.pem"))
                mqtt_username = blectl
                mqtt_password_file = \(passwordFile)
                """
            let subscriber = try MQTTSubscriber(broker, topic: "blectl/#", extra: ["-u", "watcher", "-P", "w"])
            defer { Task { await subscriber.stop() } }
            try await DaemonFixture.with(configuration: configuration) { fixture in
                try await subscriber.wait("readings over TLS") { !$0.filter { $0.topic.hasSuffix("/state") }.isEmpty }
                #expect(try await fixture.mqttStatus()["broker"] as? String == broker.url)
                #expect(!fixture.daemon.log().contains("s3cret"), "the password is never logged")
            }
        }
    }

    @Test("A wrong password: a clear error in the log and the status, and retries; the daemon keeps running")
    func wrongPassword() async throws {
        try await MQTTBroker.with(users: ["blectl": "right"]) { broker in
            let passwordFile = broker.file("password")
            try "wrong\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            chmod(passwordFile, 0o600)  // blectld refuses a password file others can read
            let configuration = """
                mqtt_url = \(broker.url)
                mqtt_username = blectl
                mqtt_password_file = \(passwordFile)
                """
            try await DaemonFixture.with(configuration: configuration) { fixture in
                try await fixture.waitForMQTT {
                    ($0["last_error"] as? String)?.contains("refused the connection") == true
                        && ($0["connect_attempts"] as? NSNumber)?.intValue ?? 0 >= 2
                }
                let mqtt = try await fixture.mqttStatus()
                #expect(mqtt["state"] as? String != "connected")
                #expect((mqtt["last_error"] as? String)?.lowercased().contains("not authori") == true, "\(mqtt)")
                #expect(fixture.daemon.log().contains("MQTT: the broker refused the connection"))
                #expect(fixture.daemon.isRunning)
                try await fixture.waitForConnected(2)
            }
        }
    }

    @Test(
        "Bad settings known at start: exit 78 with a clear message",
        arguments: [
            ("mqtt_url = ftp://broker\n", "unknown broker URL"),
            ("mqtt_url = mqtts://localhost:1\nmqtt_ca_file = /nonexistent/ca.pem\n", "mqtt_ca_file"),
            (
                "mqtt_url = mqtt://localhost:1\nmqtt_username = u\nmqtt_password_file = /nonexistent/pw\n",
                "mqtt_password_file"
            ),
            ("mqtt_url = mqtt://localhost:1\nmqtt_gateway = a/b\n", "mqtt_gateway"),
        ])
    func badSettings(configuration: String, words: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try configuration.write(toFile: directory.file("blectld.conf"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        let result = try await run(
            DaemonFixture.binary("blectld"),
            ["--mock", "--socket", directory.file("s.sock"), "--config", directory.file("blectld.conf")],
            environment: environment)
        #expect(result.status == 78, "\(result.errors)")
        #expect(result.errors.contains(words), "\(result.errors)")
    }

    @Test("A password file others can read: exit 78 naming it and the chmod; plain mqtt:// off-host is warned about")
    func passwordFileChecks() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let passwordFile = directory.file("password")
        try "s3cret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o644)
        let configuration = "mqtt_url = mqtt://192.0.2.1:1\nmqtt_username = u\nmqtt_password_file = \(passwordFile)\n"
        try configuration.write(toFile: directory.file("blectld.conf"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        let arguments = ["--mock", "--socket", directory.file("s.sock"), "--config", directory.file("blectld.conf")]
        let refused = try await run(DaemonFixture.binary("blectld"), arguments, environment: environment)
        #expect(refused.status == 78, "\(refused.errors)")
        #expect(refused.errors.contains("chmod 600 \(passwordFile)"), "\(refused.errors)")
        chmod(passwordFile, 0o600)
        try await DaemonFixture.with(configuration: configuration) { fixture in
            try await withTimeout(.seconds(10)) {
                while !fixture.daemon.log().contains("unencrypted (mqtt://)") {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(fixture.daemon.log().contains("use mqtts://"))
            #expect(!fixture.daemon.log().contains("s3cret"))
        }
    }

    @Test("SIGTERM while the broker hangs: blectld still exits within 3 s")
    func stopWithHungBroker() async throws {
        try await MQTTBroker.with { broker in
            try await DaemonFixture.with(arguments: MQTTTests.arguments(broker)) { fixture in
                try await fixture.waitForMQTT { $0["state"] as? String == "connected" }
                broker.signal(SIGSTOP)
                defer { broker.signal(SIGCONT) }
                try await Task.sleep(for: .milliseconds(500))
                let start = ContinuousClock.now
                fixture.daemon.signal(SIGTERM)
                let status = await fixture.daemon.waitForExit(timeout: .seconds(20))
                let elapsed = ContinuousClock.now - start
                #expect(status == 0)
                #expect(elapsed < .seconds(3), "stopped after \(elapsed)")
            }
        }
    }
}
