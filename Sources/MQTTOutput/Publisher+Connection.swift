import BlectlProtocol
import ConcurrencySupport

extension Publisher: MosquittoEvents {
    /// Makes a connection attempt (blocking this loop while the name resolves and TCP and
    /// TLS connect); on failure, schedules the next.
    func attempt() {
        guard !stopped else { return }
        retryTimer = nil
        counters.attempts += 1
        enter(.connecting, reason: nil)
        let connection: MosquittoConnection
        do {
            connection = try MosquittoConnection(
                configuration: configuration, password: password, will: (topics.gatewayStatus, "offline"), loop: loop,
                events: self)
        } catch {
            return failed("cannot set up the MQTT client: \(error)")
        }
        if let failure = connection.connect(host: configuration.broker.host, port: configuration.broker.port) {
            return failed("cannot connect to \(configuration.broker): \(failure)")
        }
        self.connection = connection
        answerTimer = loop.schedule(after: Self.answerTimeout) { [unowned self] in
            drop(connection: "the broker did not answer CONNECT within \(Self.answerTimeout)")
        }
    }

    func connectionAnswered(code: Int32, description: String) {
        answerTimer?.cancel()
        answerTimer = nil
        guard code == 0 else {
            counters.refused += 1
            return drop(connection: "the broker refused the connection: \(description)")
        }
        delay = configuration.reconnect.lowerBound
        let resumed = newest > acked ? ", \(newest - acked) readings to publish" : ""
        log.notice(
            "MQTT: connected to \(configuration.broker) as \(configuration.effectiveClientID) (gateway "
                + "\(configuration.gateway)\(resumed))")
        enter(.connected, reason: nil)
        publishRetained([(topics.gatewayStatus, Array("online".utf8))])
        adaptersPublished = nil
        adaptersDue()
        if topics.discovers {
            connection?.subscribe(topics.homeAssistantStatus, qos: 1)
            announceEverything()
        }
        // A new connection: what the last one left unacknowledged goes again (QoS 1).
        outstanding = [:]
        published = acked
        pump()
        refreshStatus()
    }

    func connectionLost(error: String?) {
        guard !stopped else { return }
        drop(connection: "lost the connection to \(configuration.broker): \(error ?? "closed")")
    }

    func acknowledged(mid: Int32, reason: Int32) {
        guard outstanding.removeValue(forKey: mid) != nil else { return }
        if reason >= 0x80 {
            log.warning("MQTT: the broker refused a reading (reason code \(reason)); it is not sent again")
        }
        counters.acknowledged += 1
        outstandingChanged()
        if outstanding.isEmpty, let stopping { return stopping() }
        pump()
        if outstanding.count % 64 == 0 { refreshStatus() }
    }

    func received(topic: String, payload: [UInt8]) {
        guard topic == topics.homeAssistantStatus, payload == Array("online".utf8) else { return }
        log.info("MQTT: Home Assistant is online: publishing discovery again")
        announceEverything()
    }

    /// Ends the connection after an error, and schedules the next attempt.
    private func drop(connection why: String) {
        answerTimer?.cancel()
        answerTimer = nil
        if let connection {
            connection.close()
            // Released later: this may run inside one of its callbacks.
            loop.schedule(after: .zero) { withExtendedLifetime(connection) {} }
        }
        connection = nil
        failed(why)
    }

    private func failed(_ why: String) {
        let first = lastError?.message != why || state == .connected
        lastError = (why, .now())
        enter(.disconnected, reason: why)
        // Each new error once at `err`; the same one again (a broker still down) only at debug.
        log.log(first ? .error : .debug, "MQTT: \(why); retrying in \(Self.format(delay))")
        scheduleRetry()
    }

    private func scheduleRetry() {
        guard !stopped else { return }
        let jittered = delay * Double.random(in: 0.8...1.2)
        delay = min(delay * 2, configuration.reconnect.upperBound)
        retryTimer = loop.schedule(after: jittered) { [unowned self] in attempt() }
    }

    private func enter(_ new: MQTTStatus.State, reason: String?) {
        if new != state { since = .now() }
        state = new
        self.reason = reason
        refreshStatus()
    }

    /// Stops: `offline`, the outstanding acknowledgements (briefly), the position, DISCONNECT.
    func finish(_ done: @escaping @Sendable () -> Void) {
        stopped = true
        retryTimer?.cancel()
        answerTimer?.cancel()
        var finished = false
        let complete = { [unowned self] in
            guard !finished else { return }
            finished = true
            stopping = nil
            persist(durable: true)
            connection?.disconnect()
            connection = nil
            enter(.disconnected, reason: "stopped")
            done()
        }
        guard state == .connected, connection != nil else { return complete() }
        publishRetained([(topics.gatewayStatus, Array("offline".utf8))])
        guard !outstanding.isEmpty else { return complete() }
        stopping = complete
        loop.schedule(after: Self.stopAckWait) { complete() }
    }

    private static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
