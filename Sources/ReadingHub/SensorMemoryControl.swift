public import BlectlProtocol
public import SensorModel

/// What the hub needs from the daemon's sensor memory service to answer `memory_download`;
/// the service implements it, tests use a fake.
public protocol SensorMemoryControl: Sendable {
    /// Reads the memory of the sensor at `address` now (setting its clock when the settings
    /// allow), or joins the download already running, and returns its entry once it ended.
    ///
    /// Throws ``BlectlProtocol/ErrorInfo`` `not_found` when `address` is no memory-capable
    /// sensor heard since the daemon started. Returns at the download's end whatever task
    /// waits: the hub stops waiting at the request's deadline, and the download goes on.
    func downloadNow(_ address: BluetoothAddress) async throws(ErrorInfo) -> SensorMemoryStatus
}

extension Hub {
    /// Connects the sensor memory service, which answers `memory_download`.
    public func attach(memory: any SensorMemoryControl) {
        sensorMemory = memory
    }

    /// Says why no sensor memory is read (`sensor_memory = off`, say): `memory_download`
    /// replies `unavailable` with it.
    public func sensorMemoryUnavailable(because reason: String) {
        sensorMemory = nil
        sensorMemoryOff = reason
    }

    /// Reads the memory of the sensor at `address` now and returns its entry after the
    /// download, waiting up to `timeout` (or the default) for it to end.
    ///
    /// A download already running is joined, not repeated. At the timeout the reply is
    /// `timeout` and the download goes on; its outcome shows in `status`.
    public func downloadMemory(of address: BluetoothAddress, timeout: Duration?) async throws(ErrorInfo)
        -> SensorMemoryStatus
    {
        guard let sensorMemory else { throw ErrorInfo(.unavailable, sensorMemoryOff) }
        let wait = min(max(timeout ?? limits.defaultMemoryDownload, .zero), limits.maxMemoryDownload)
        // In a task of its own, so that a request whose client went away stops waiting at once.
        let outcome: Result<SensorMemoryStatus, any Error>? = await executor.run(until: .now + wait) {
            try await sensorMemory.downloadNow(address)
        }
        switch outcome {
        case nil:
            throw ErrorInfo(
                .timeout, "the download from \(address) did not end within \(Self.format(wait)); it goes on")
        case .failure(let error): throw ErrorInfo(describing: error)
        case .success(let status): return status
        }
    }
}
