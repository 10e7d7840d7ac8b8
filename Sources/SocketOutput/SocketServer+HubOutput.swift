import BlectlProtocol
import Glibc
public import ReadingHub

extension SocketServer: HubOutput {
    /// `"socket"`.
    public var outputName: String { "socket" }

    /// Starts broadcasting the hub's events to subscribers and adds the `socket` part of
    /// `status`.
    public func attach(to hub: Hub) async {
        let registration = await hub.addListener { [self] in broadcast($0) }
        await hub.addStatusContributor { [self] in
            $0.setSection(SocketStatus(clients: await currentStatistics().clients))
        }
        noteSequence(registration.lastSeq)
    }

    /// Listens on the socket systemd passed, else at the configured path.
    ///
    /// A failure is not a configuration error (exit 1, so systemd tries again): a socket
    /// file in the way or a directory not made yet can change by the next start.
    public func open() async throws(OutputStartError) {
        do {
            try start(inheriting: inheritedListener)
        } catch {
            var hint = ""
            if error.code == EACCES, getuid() != 0 {
                hint = "; as a normal user, give a socket of your own, e.g. --socket $XDG_RUNTIME_DIR/blectld.sock"
            }
            throw OutputStartError("cannot listen on \(configuration.path): \(error)\(hint)", isConfiguration: false)
        }
    }

    /// Stops listening and closes every client (``stop()``).
    public func close() async {
        await stop()
    }
}
