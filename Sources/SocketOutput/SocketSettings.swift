public import UnixSupport

extension SocketServer.Configuration {
    /// The socket's settings, in the order help lists them; the defaults are the properties'.
    public static let settings: [Setting<Self>] = [
        .value("socket", flag: "socket", "PATH", "Unix socket to listen on", at: \.path, parse: socketPath).documented(
            "The Unix socket for clients (*blectl*(1)); absolute, or _@name_ for an abstract socket. Under "
                + "systemd, _blectld.socket_ passes it in."),
        .optional("socket_group", flag: "socket-group", "GROUP", "Group owning the socket (mode 0660)", at: \.group) {
            $0
        }.documented(
            "The group owning the socket (mode 0660): its members may use blectl. Empty: the daemon's own group. "
                + "(The systemd socket unit sets *SocketGroup=bluetooth* itself.)"),
        .integer(
            "max_clients", flag: "max-clients", "N", "Most clients served at once", at: \.maxClients, within: 1...4096
        ).documented("Clients served at once, 1 to 4096."),
        .integer(
            "max_clients_per_user", "N", "Most clients one user may have at once", at: \.maxClientsPerUser,
            within: 1...4096
        ).documented(
            "Clients one user (the uid of the connecting process, root included) may hold at once, 1 to 4096; "
                + "excess clients get _too_many_clients_ and are closed."),
        .integer(
            "max_pending_requests_per_user", "N", "Most requests of one user answered at once",
            at: \.maxPendingRequestsPerUser, within: 1...4096
        ).documented(
            "Requests of one user being answered at once, 1 to 4096 (those of clients that left count until "
                + "their work has ended); excess requests get _too_many_requests_."),
        .integer("max_line_length", "BYTES", "Longest request line", at: \.maxLineLength, within: 1024...(16 << 20))
            .documented("The longest request line, 1 KiB to 16 MiB."),
        .integer(
            "client_queue_bytes", "BYTES", "Output queued per client before it is dropped", at: \.maxQueuedBytes,
            within: (64 << 10)...(64 << 20)
        ).documented(
            "Output queued for one client before that slow client is dropped, 64 KiB to 64 MiB."),
        .integer(
            "max_queued_bytes_total", "BYTES", "Output queued for all clients together", at: \.maxQueuedBytesTotal,
            within: (64 << 10)...(1 << 30)
        ).documented(
            "Output queued for all clients together: past it, the client with the most queued (the slowest "
                + "reader) is dropped first. 64 KiB to 1 GiB."),
    ]

    /// An absolute path, or `@name` for an abstract socket, short enough for `sockaddr_un`.
    static func socketPath(_ text: String) throws(SettingError) -> String {
        guard text.hasPrefix("/") || text.hasPrefix("@") else {
            throw SettingError("the socket path must be absolute (or @abstract), got '\(text)'")
        }
        guard text.utf8.count <= UnixSocket.maxPathLength else {
            throw SettingError("the socket path is longer than \(UnixSocket.maxPathLength) bytes")
        }
        return text
    }
}
