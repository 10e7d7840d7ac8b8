/// The state of the MQTT output: part of `status` when blectld publishes to a broker.
public struct MQTTStatus: Codable, Equatable, Sendable {
    /// Where the connection stands.
    public enum State: String, Codable, Sendable {
        /// The broker accepted the connection (CONNACK); readings flow.
        case connected
        /// A connection attempt is under way.
        case connecting
        /// Not connected; ``MQTTStatus/reason`` says why and a retry is scheduled.
        case disconnected
    }

    /// The broker, as configured: `mqtt://host:1883` or `mqtts://host:8883`.
    public var broker: String
    /// The MQTT client id.
    public var clientID: String
    /// This gateway's name in topics and payloads.
    public var gateway: String
    /// `connected`, `connecting` or `disconnected`.
    public var state: State
    /// Why it is not connected (the last error), e.g. `connection refused: not authorized`.
    public var reason: String?
    /// Since when it is in this state.
    public var since: Timestamp
    /// The last error, kept after a reconnection, and when it happened.
    public var lastError: String?
    /// When ``lastError`` happened.
    public var lastErrorTime: Timestamp?
    /// The highest `seq` the broker acknowledged (PUBACK) with every one before it.
    public var ackedSeq: UInt64
    /// Readings and reading errors stored but not yet acknowledged by the broker.
    public var backlog: UInt64
    /// Readings dropped from the backlog since start because it exceeded `mqtt_backlog_max`,
    /// or because the history no longer held them.
    public var dropped: UInt64
    /// Messages (state and error) the broker acknowledged since start.
    public var published: UInt64
    /// Connection attempts since start.
    public var connectAttempts: UInt64

    /// Creates a status.
    public init(
        broker: String, clientID: String, gateway: String, state: State, reason: String? = nil, since: Timestamp,
        lastError: String? = nil, lastErrorTime: Timestamp? = nil, ackedSeq: UInt64 = 0, backlog: UInt64 = 0,
        dropped: UInt64 = 0, published: UInt64 = 0, connectAttempts: UInt64 = 0
    ) {
        self.broker = broker
        self.clientID = clientID
        self.gateway = gateway
        self.state = state
        self.reason = reason
        self.since = since
        self.lastError = lastError
        self.lastErrorTime = lastErrorTime
        self.ackedSeq = ackedSeq
        self.backlog = backlog
        self.dropped = dropped
        self.published = published
        self.connectAttempts = connectAttempts
    }

    private enum CodingKeys: String, CodingKey {
        case broker, gateway, state, reason, since, backlog, dropped, published
        case clientID = "client_id"
        case lastError = "last_error"
        case lastErrorTime = "last_error_time"
        case ackedSeq = "acked_seq"
        case connectAttempts = "connect_attempts"
    }
}
