/// Constants both ends of the socket agree on.
public enum ProtocolInfo {
    /// The protocol version carried as `"v"` in hello, requests and replies.
    public static let version = 1
    /// The daemon's name in the hello line.
    public static let daemonName = "blectld"
    /// The software version of blectld and blectl.
    public static let softwareVersion = "0.1.0"
    /// Where the daemon listens unless configured otherwise.
    public static let defaultSocketPath = "/run/blectl/blectld.sock"
    /// The environment variable that overrides the socket path for both executables.
    public static let socketEnvironmentVariable = "BLECTL_SOCKET"
    /// The longest `scan` a request may ask for, in seconds; the daemon and blectl both enforce it.
    public static let maxScanSeconds = 120
    /// The longest wait a `read` may ask for, in seconds; the daemon and blectl both enforce it.
    public static let maxReadTimeoutSeconds = 300
    /// The longest wait a `memory_download` may ask for, in seconds; the daemon and blectl both enforce it.
    public static let maxMemoryDownloadSeconds = 600
    /// The most events one `history` reply carries (a reply may carry fewer, with `more`).
    public static let historyPageLimit = 1000
}
