public import ReadingHub

extension HTTPOutput: HubOutput {
    /// `"HTTP"`.
    public var outputName: String { "HTTP" }

    /// Starts counting what the page and `/metrics` show from the hub's events.
    public func attach(to hub: Hub) async {
        let tracker = routes.tracker
        let registration = await hub.addListener { tracker.record($0) }
        listener.withLock { $0 = registration.id }
    }

    /// Listens on `http_listen`.
    ///
    /// A failure is a configuration error (exit 78): the address is in use or not the
    /// machine's, or the unit's sandbox refuses IP sockets without its drop-in (the error
    /// names it); restarting cannot help.
    public func open() async throws(OutputStartError) {
        do {
            _ = try await listen()
        } catch {
            throw OutputStartError("HTTP: cannot listen on \(configuration.address): \(error)", isConfiguration: true)
        }
    }

    /// Stops listening and closes every connection (``stop()``).
    public func close() async {
        await stop()
    }
}
