public import BlueZClient

/// What the scan watchdog's recovery steps need of the central, per adapter.
extension CentralManager {
    /// Discovery time on `adapter` without a sound from any device there so far (see
    /// ``CentralEvent/heardAgain(_:)``).
    public func silentDiscovery(on adapter: BlueZPath) -> Duration {
        discovery[adapter]?.silence.silentDiscovery(at: .now) ?? .zero
    }

    /// Whether anything was heard from a device since the central started.
    public var hasHeardDevices: Bool { discovery.heardAny }

    /// Whether `adapter` is in use and powered.
    public func isPowered(_ adapter: BlueZPath) -> Bool {
        mirror { $0.adapter(adapter)?.powered ?? false }
    }

    /// Reports the next sound from any device on `adapter` as ``CentralEvent/heardAgain(_:)``, once.
    public func reportNextSound(on adapter: BlueZPath) {
        discovery.modify(adapter) { $0.reportsNextSound = true }
    }

    /// Counts silent discovery on `adapter` from zero again (after a recovery step).
    public func restartSilenceClock(on adapter: BlueZPath) {
        discovery.modify(adapter) { $0.silence.restart(at: .now) }
    }

    /// Switches `adapter` (the one GATT connections go through, when nil) off and on again
    /// through `Adapter1.Powered`.
    public func powerCycleAdapter(_ adapter: BlueZPath? = nil) async throws(CentralError) {
        guard let adapter = adapter ?? adapterPath else { throw .notPoweredOn(state) }
        do {
            try await client.setPowered(adapter, false)
            try await client.setPowered(adapter, true)
        } catch {
            throw .bluez(error)
        }
    }

    /// Resets the controller of `adapter` (the one GATT connections go through, when nil)
    /// below bluetoothd, the way ``CentralOptions/controllerReset`` says; bluetoothd sees it
    /// power off and on.
    public func resetController(_ adapter: BlueZPath? = nil) async throws(ControllerResetError) {
        guard let name = (adapter ?? adapterPath)?.lastElement, name.hasPrefix("hci"),
            let index = Int(name.dropFirst(3))
        else {
            throw ControllerResetError(index: -1, code: 0, message: "no adapter in use")
        }
        let resetter: any ControllerResetting =
            switch options.controllerReset {
            case .hci: HCIControllerReset()
            case .mockAdapter: client.mockControllerReset
            case .custom(let resetter): resetter
            }
        try await resetter.resetController(index: index)
    }
}
