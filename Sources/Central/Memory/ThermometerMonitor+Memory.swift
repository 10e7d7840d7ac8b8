public import SensorModel

/// Sensor memory downloads through the thermometers' connect slots.
extension ThermometerMonitor {
    /// Connects to a sensor, reads (and when asked sets) its clock, downloads the records
    /// `request` asks for, reporting each through `progress` as it comes, and disconnects.
    ///
    /// The download takes a connect slot as a thermometer does (`max_connecting`,
    /// `max_connections`), only when one is free without waiting in the thermometers'
    /// queue: thermometers known to work keep their links reserved and go first. A stall
    /// (`stallTimeout`) or a disconnect ends it; the slot is released on every path.
    public func readMemory(
        _ request: MemoryReadRequest, progress: @escaping @Sendable (MemoryReadProgress) -> Void
    ) async -> MemoryReadResult {
        guard let memory = SensorMemoryProtocols.forFamily(request.family, model: request.model) else {
            return MemoryReadResult(end: .failed("no memory protocol for \(request.family)"))
        }
        let reader = MemoryReader(request: request, memory: memory, progress: progress)
        return await reader.run(self)
    }
}
