public import UnixSupport

extension HTTPOutput.Settings {
    /// The HTTP output's settings, in the order help lists them; the defaults are the properties'.
    public static let settings: [Setting<Self>] = [
        .optional(
            "http_listen", flag: "http", "ADDRESS:PORT",
            "Serve the page, /metrics and /api over HTTP, e.g. 127.0.0.1:9266 (default off)", at: \.listen
        ) { text throws(SettingError) in
            guard let address = ListenAddress(text) else {
                throw SettingError(
                    "expected a numeric address and a port such as 127.0.0.1:9266 or [::1]:9266, got '\(text)'")
            }
            return address
        },
        .integer(
            "http_max_connections", "N", "Most HTTP connections open at once", at: \.maxConnections, within: 1...4096),
    ]
}
