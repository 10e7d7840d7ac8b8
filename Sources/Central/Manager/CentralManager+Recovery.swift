public import BlueZClient

/// What the scan watchdog's recovery steps need of the central.
extension CentralManager {
    /// Discovery time without a sound from any device so far (see ``CentralEvent/heardAgain``).
    public var silentDiscovery: Duration { silence.silentDiscovery(at: .now) }

    /// Whether anything was heard from a device since the central started.
    public var hasHeardDevices: Bool { silence.heardAny }

    /// Reports the next sound from any device as ``CentralEvent/heardAgain``, once.
    public func reportNextSound() { reportsNextSound = true }

    /// Counts silent discovery from zero again (after a recovery step).
    public func restartSilenceClock() { silence.restart(at: .now) }

    /// Switches the adapter in use off and on again through `Adapter1.Powered`.
    public func powerCycleAdapter() async throws(CentralError) {
        guard let adapter = adapterPath else { throw .notPoweredOn(state) }
        do {
            try await client.setPowered(adapter, false)
            try await client.setPowered(adapter, true)
        } catch {
            throw .bluez(error)
        }
    }

    /// Resets the controller of the adapter in use below bluetoothd, the way
    /// ``CentralOptions/controllerReset`` says; bluetoothd sees it power off and on.
    public func resetController() async throws(ControllerResetError) {
        guard let name = adapterName, name.hasPrefix("hci"), let index = Int(name.dropFirst(3)) else {
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
