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
        }.documented(
            "Where to serve, a numeric address and a port: _127.0.0.1:9266_ or _[::1]:9266_ serve this machine "
                + "only; _0.0.0.0:9266_ or _[::]:9266_ every network, and the page has no authentication: put a "
                + "reverse proxy with authentication in front. Port 0 picks a free port, which the log names. "
                + "Empty (the default): no HTTP. Under systemd it needs the drop-in _blectld-http.conf_ "
                + "(*blectld*(8))."),
        .integer(
            "http_max_connections", "N", "Most HTTP connections open at once", at: \.maxConnections, within: 1...4096
        ).documented("HTTP connections served at once, 1 to 4096; more wait until some end."),
    ]

    /// The settings under their heading in the man page and the sample configuration.
    public static let section = SettingSection(
        "HTTP",
        introduction: "A page with every thermometer and a plot of its temperatures (_/_), Prometheus metrics "
            + "(_/metrics_) and the socket's answers as JSON (_/api/devices_, _/api/history_, _/api/status_). "
            + "Read-only, without authentication or TLS: see _http.md_.", settings)
}
