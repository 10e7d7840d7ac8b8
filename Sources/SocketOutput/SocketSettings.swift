public import UnixSupport

extension SocketServer.Configuration {
    /// The socket's settings, in the order help lists them; the defaults are the properties'.
    public static let settings: [Setting<Self>] = [
        .value("socket", flag: "socket", "PATH", "Unix socket to listen on", at: \.path, parse: socketPath),
        .optional("socket_group", flag: "socket-group", "GROUP", "Group owning the socket (mode 0660)", at: \.group) {
            $0
        },
        .integer(
            "max_clients", flag: "max-clients", "N", "Most clients served at once", at: \.maxClients, within: 1...4096),
        .integer(
            "max_clients_per_user", "N", "Most clients one user may have at once", at: \.maxClientsPerUser,
            within: 1...4096),
        .integer(
            "max_pending_requests_per_user", "N", "Most requests of one user answered at once",
            at: \.maxPendingRequestsPerUser, within: 1...4096),
        .integer("max_line_length", "BYTES", "Longest request line", at: \.maxLineLength, within: 1024...(16 << 20)),
        .integer(
            "client_queue_bytes", "BYTES", "Output queued per client before it is dropped", at: \.maxQueuedBytes,
            within: (64 << 10)...(64 << 20)),
        .integer(
            "max_queued_bytes_total", "BYTES", "Output queued for all clients together", at: \.maxQueuedBytesTotal,
            within: (64 << 10)...(1 << 30)),
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
