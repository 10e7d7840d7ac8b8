/// A broker's address: `mqtt://host[:1883]` or `mqtts://host[:8883]` (TLS).
public struct BrokerURL: Equatable, Sendable, CustomStringConvertible {
    /// The host name or address (an IPv6 address without its brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// Whether the connection uses TLS (`mqtts`).
    public var tls: Bool

    /// A broker at `host:port`.
    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// Parses `text`; throws a message naming what is wrong.
    public init(parsing text: String) throws(MQTTConfigurationError) {
        let schemes: [(prefix: String, tls: Bool, port: Int)] = [("mqtt://", false, 1883), ("mqtts://", true, 8883)]
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0.prefix) }) else {
            throw MQTTConfigurationError(
                "unknown broker URL '\(text)': use mqtt://host[:1883] or mqtts://host[:8883] (TLS)")
        }
        var rest = Substring(text.dropFirst(scheme.prefix.count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else {
            throw MQTTConfigurationError(
                "broker URL '\(text)' must be scheme://host[:port], nothing else (credentials go in mqtt_username "
                    + "and mqtt_password_file)")
        }
        var host = rest
        var portText: Substring?
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { host = "" }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard !host.isEmpty else { throw MQTTConfigurationError("broker URL '\(text)' has no host") }
        var port = scheme.port
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw MQTTConfigurationError("broker URL '\(text)' has a bad port '\(portText)' (1–65535)")
            }
            port = value
        }
        self.host = String(host)
        self.port = port
        self.tls = scheme.tls
    }

    /// The URL with its port: `mqtt://host:1883`.
    public var description: String {
        let host = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(host):\(port)"
    }
}

/// A configuration mistake of the MQTT output, for a person.
public struct MQTTConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    /// A mistake described by `description`.
    public init(_ description: String) { self.description = description }
}
