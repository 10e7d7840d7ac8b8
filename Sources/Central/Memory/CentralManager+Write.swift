extension CentralManager {
    /// Writes a characteristic's value as a request (answered) or a command (not answered).
    public func writeValue(
        _ value: [UInt8], for characteristic: Characteristic, withResponse: Bool
    ) async throws(CentralError) {
        do {
            try await client.writeValue(characteristic.path, value, withResponse: withResponse)
        } catch {
            throw Self.map(error)
        }
    }
}
