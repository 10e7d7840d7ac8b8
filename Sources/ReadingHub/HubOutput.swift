/// Something that takes the hub's events out of the daemon: the history store, MQTT, HTTP,
/// the socket.
///
/// The daemon builds every output from its settings, attaches them all to the hub, then opens
/// them in the same order, and closes them in reverse order at shutdown: the first attached
/// (the history) is the last closed, so what the others flush on the way out is still kept.
public protocol HubOutput: Sendable {
    /// What the output is, for the log: `"history"`, `"MQTT"`, `"HTTP"`, `"socket"`.
    var outputName: String { get }
    /// Starts receiving the hub's events (``Hub/addListener(_:)``) and adds its part of `status`.
    func attach(to hub: Hub) async
    /// Starts serving its clients (listening on its address), once every output is attached;
    /// outputs without clients of their own have nothing to do.
    func open() async throws(OutputStartError)
    /// Flushes and closes, within the daemon's shutdown budget (it must return in about a second).
    func close() async
}

extension HubOutput {
    /// Nothing to open: the output only listens to the hub.
    public func open() async throws(OutputStartError) {}
}

/// Why an output could not start serving, said for the log.
public struct OutputStartError: Error, CustomStringConvertible {
    /// The whole line for the log, naming the output and its address.
    public var description: String
    /// True when restarting cannot help (a setting, or a sandbox that refuses the address):
    /// blectld then exits 78, which systemd does not restart; else 1.
    public var isConfiguration: Bool

    /// Creates the error.
    public init(_ description: String, isConfiguration: Bool) {
        self.description = description
        self.isConfiguration = isConfiguration
    }
}
