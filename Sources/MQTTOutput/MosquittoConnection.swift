import CMosquitto
import Glibc
import ConcurrencySupport

/// What a connection reports, on the loop's thread, from inside libmosquitto's calls.
protocol MosquittoEvents: AnyObject {
    /// The broker answered CONNECT: `code` 0 is accepted, anything else a refusal.
    func connectionAnswered(code: Int32, description: String)
    /// The connection ended; `error` says why (nil when asked for).
    func connectionLost(error: String?)
    /// The broker acknowledged message `mid` (PUBACK; `reason` ≥ 0x80 is a refusal, MQTT 5).
    func acknowledged(mid: Int32, reason: Int32)
    /// A message arrived on a subscribed topic.
    func received(topic: String, payload: [UInt8])
}

/// One libmosquitto client instance for one connection to the broker, driven from an
/// ``EventLoop``: the loop watches its socket and calls `mosquitto_loop_read/write`, and
/// a timer calls `mosquitto_loop_misc` (keepalive).
///
/// A new instance for every connection: libmosquitto's own retries of unacknowledged
/// messages would otherwise repeat what the output publishes again from the history.
/// Confined to the loop's thread.
final class MosquittoConnection {
    private let mosquitto: cmq_functions
    private let handle: OpaquePointer
    private let loop: EventLoop
    private let keepalive: Duration
    private weak var events: (any MosquittoEvents)?
    private var watch: IOWatch?
    private var miscTimer: LoopTimer?
    private var properties: OpaquePointer?

    /// A client with `configuration`'s id, credentials, TLS and will; nothing is connected.
    init(
        configuration: MQTTOutput.Configuration, password: String?, will: (topic: String, payload: String),
        loop: EventLoop, events: (any MosquittoEvents)?
    ) throws(MQTTConfigurationError) {
        let mosquitto = try MosquittoLibrary.loaded.get()
        guard let handle = mosquitto.create(configuration.effectiveClientID, false, nil) else {
            throw MQTTConfigurationError("cannot create an MQTT client: \(String(cString: strerror(errno)))")
        }
        self.mosquitto = mosquitto
        self.handle = handle
        self.loop = loop
        self.keepalive = configuration.keepalive
        self.events = events
        // Every stored property is set: a throw from here on runs `deinit`, which destroys
        // the handle (destroying it here too was a double free, found by make test-asan).
        try configure(configuration, password: password, will: will)
        mosquitto.user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        setCallbacks()
    }

    deinit {
        close()
        mosquitto.destroy(handle)
        mosquitto.property_free_all(&properties)
    }

    private func configure(
        _ configuration: MQTTOutput.Configuration, password: String?, will: (topic: String, payload: String)
    )
        throws(MQTTConfigurationError)
    {
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto.int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
        try check(mosquitto.int_option(handle, MOSQ_OPT_SEND_MAXIMUM, Int32(configuration.window)), "send maximum")
        if let username = configuration.username {
            try check(mosquitto.username_pw_set(handle, username, password), "user name")
        }
        if configuration.broker.tls {
            // Without a CA file, the system's certificates; the broker's name is always checked.
            let capath = configuration.caFile == nil ? "/etc/ssl/certs" : nil
            let rc = mosquitto.tls_set(
                handle, configuration.caFile, capath, configuration.certFile, configuration.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTConfigurationError(
                    "TLS settings refused (\(describe(rc))): check that mqtt_ca_file, mqtt_cert_file and "
                        + "mqtt_key_file exist and are readable")
            }
            try check(mosquitto.tls_opts_set(handle, 1, nil, nil), "TLS verification")
            try check(mosquitto.tls_insecure_set(handle, false), "TLS host name check")
        }
        let payload = Array(will.payload.utf8)
        try check(
            mosquitto.will_set(handle, will.topic, Int32(payload.count), payload, configuration.qos, true), "will")
        if configuration.protocolVersion == .v5 {
            // MQTT 5 ends a session at disconnection unless told otherwise: keep it a day.
            try check(
                mosquitto.property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), 86_400),
                "session expiry")
        }
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTConfigurationError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTConfigurationError("MQTT \(what): \(describe(rc))")
        }
    }

    /// Connects to `host:port` (resolving the name and, for TLS, shaking hands: this blocks
    /// the loop's thread) and sends CONNECT; the answer comes to ``MosquittoEvents``.
    /// Returns why it failed, or nil.
    func connect(host: String, port: Int) -> String? {
        let seconds = Int32(keepalive.components.seconds)
        errno = 0
        let rc = mosquitto.connect_bind_v5(handle, host, Int32(port), seconds, nil, properties)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return describe(rc) }
        let fd = mosquitto.socket(handle)
        guard fd >= 0 else { return "no socket after connecting" }
        watch = loop.watch(fd) { [unowned self] events in self.service(events) }
        watch?.wantsRead = true
        updateInterest()
        scheduleMisc()
        return nil
    }

    /// Publishes `payload` on `topic`; returns the message id, or why it failed.
    func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Result<Int32, PublishFailure> {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { bytes in
            mosquitto.publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos, retain)
        }
        updateInterest()
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return .failure(PublishFailure(describe(rc))) }
        return .success(mid)
    }

    /// Subscribes to `topic`.
    func subscribe(_ topic: String, qos: Int32) {
        _ = mosquitto.subscribe(handle, nil, topic, qos)
        updateInterest()
    }

    /// Sends what is queued and DISCONNECT, then stops watching the socket.
    func disconnect() {
        _ = mosquitto.disconnect(handle)
        // A few writes at most: the socket takes what is left unless the network hangs.
        for _ in 0..<8 where mosquitto.want_write(handle) {
            guard mosquitto.loop_write(handle, 1) == MOSQ_ERR_SUCCESS.rawValue else { break }
        }
        close()
    }

    /// Stops watching the socket, keeping it alive and reporting (the instance is destroyed
    /// with the object).
    func close() {
        events = nil
        watch?.cancel()
        watch = nil
        miscTimer?.cancel()
        miscTimer = nil
    }

    /// Reads and writes what the socket is ready for.
    private func service(_ ready: IOEvents) {
        if !ready.isDisjoint(with: [.readable, .hangup, .error]) {
            _ = mosquitto.loop_read(handle, 1)
        }
        if watch != nil, ready.contains(.writable) {
            _ = mosquitto.loop_write(handle, 1)
        }
        updateInterest()
    }

    private func updateInterest() {
        guard let watch else { return }
        watch.wantsWrite = mosquitto.want_write(handle)
    }

    /// Keepalive: `mosquitto_loop_misc` pings the broker when the link has been idle, and
    /// closes it when a ping went unanswered for a keepalive interval.
    private func scheduleMisc() {
        miscTimer = loop.schedule(after: max(.seconds(1), keepalive / 4)) { [unowned self] in
            _ = mosquitto.loop_misc(handle)
            updateInterest()
            if watch != nil { scheduleMisc() }
        }
    }

    private func setCallbacks() {
        mosquitto.connect_v5_callback_set(handle) { _, context, code, _, _ in
            guard let connection = MosquittoConnection.from(context) else { return }
            connection.events?.connectionAnswered(code: code, description: connection.describeAnswer(code))
        }
        mosquitto.disconnect_v5_callback_set(handle) { _, context, rc, _ in
            guard let connection = MosquittoConnection.from(context) else { return }
            let error = rc == MOSQ_ERR_SUCCESS.rawValue ? nil : connection.describe(rc)
            connection.watch?.cancel()
            connection.watch = nil
            connection.events?.connectionLost(error: error)
        }
        mosquitto.publish_v5_callback_set(handle) { _, context, mid, reason, _ in
            MosquittoConnection.from(context)?.events?.acknowledged(mid: mid, reason: reason)
        }
        mosquitto.message_v5_callback_set(handle) { _, context, message, _ in
            guard let connection = MosquittoConnection.from(context), let message = message?.pointee else { return }
            let topic = String(cString: message.topic)
            let payload =
                message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
            connection.events?.received(topic: topic, payload: payload)
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MosquittoConnection? {
        context.map { Unmanaged<MosquittoConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    /// A CONNACK code in words: MQTT 3.1.1's return codes are 1–5, MQTT 5's reason codes 0x80 and up.
    private func describeAnswer(_ code: Int32) -> String {
        let text = code < 0x80 ? mosquitto.connack_string(code) : mosquitto.reason_string(code)
        return text.map { String(cString: $0) } ?? "reason code \(code)"
    }

    /// libmosquitto's error in words, with `errno`'s when it is a system error.
    func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return mosquitto.strerror(rc).map { String(cString: $0) } ?? "libmosquitto error \(rc)"
    }
}

/// Why a publish was refused at once (not connected, payload too large, …).
struct PublishFailure: Error {
    let description: String

    init(_ description: String) { self.description = description }
}

/// libmosquitto, loaded when the first MQTT client is made (CMosquitto's `cmq_load`) and
/// initialised once.
enum MosquittoLibrary {
    /// The library's functions, or why it could not be loaded.
    static let loaded: Result<cmq_functions, MQTTConfigurationError> = {
        if let failure = cmq_load() {
            return .failure(
                MQTTConfigurationError(
                    "MQTT needs libmosquitto (Debian's libmosquitto1): \(String(cString: failure))"))
        }
        let functions = cmq_table().pointee
        _ = functions.lib_init()
        return .success(functions)
    }()
}
