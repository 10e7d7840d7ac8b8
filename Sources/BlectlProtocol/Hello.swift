/// The first line the daemon sends on every connection.
///
/// `{"daemon":"blectld","type":"hello","v":1,"version":"0.1.0"}`
public struct Hello: Codable, Equatable, Sendable {
    /// The protocol version the daemon speaks.
    public var v: Int
    /// Always `"hello"`.
    public var type: String
    /// Always `"blectld"`.
    public var daemon: String
    /// The daemon's software version.
    public var version: String

    /// The hello of this build.
    public init(
        v: Int = ProtocolInfo.version,
        daemon: String = ProtocolInfo.daemonName,
        version: String = ProtocolInfo.softwareVersion
    ) {
        self.v = v
        self.type = "hello"
        self.daemon = daemon
        self.version = version
    }
}
