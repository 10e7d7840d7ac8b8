import SensorModel

/// Connection attempts and links: `maxConnecting` attempts at once, `maxConnections` links,
/// thermometers known to work first (see ``ConnectionSlots`` and ``ConnectQueue``).
extension ThermometerMonitor {
    /// Waits until the thermometer may try to connect; throws `CancellationError` when the
    /// session ends first.
    ///
    /// The caller counted itself in the scan's pause for connects; a thermometer left out
    /// (every link held or reserved) is logged and reported once each time, and counted out
    /// of the pause while it waits, so that it does not hold the scan paused.
    func takeConnectSlot(_ address: BluetoothAddress) async throws {
        let go = connectQueue.request(address)
        noteLeftOut()
        guard !go else { return }
        let granted = await waitForSlot(address)
        if connectQueue.endLeftOut(address) {
            countConnectIn()
            if granted { log.notice("thermometer \(address): a link is free, connecting") }
        }
        guard granted else { throw CancellationError() }
    }

    /// The thermometer's attempt brought its link up: it holds a link now, and the next
    /// thermometer may try.
    func connectionEstablished(_ address: BluetoothAddress) {
        connectQueue.established(address)
        noteLeftOut()
    }

    /// The thermometer gives up its attempt or link.
    func releaseSlot(_ address: BluetoothAddress) {
        connectQueue.release(address)
    }

    /// The thermometer worked: from now on it goes first, keeps a link reserved, and its
    /// D-Bus calls go before others waiting for a place.
    func markWorked(_ peripheral: Peripheral) {
        connectQueue.markKnown(peripheral.address)
        central.assumeIsolated { $0.setPreferred(peripheral, true) }
    }

    /// Tells of the thermometers newly left out (waiting while every link is held or kept),
    /// and counts them out of the scan's pause for connects.
    private func noteLeftOut() {
        for address in connectQueue.newlyLeftOut() {
            let reason =
                "left out: all \(connectQueue.slots.maxConnections) links are held or kept for thermometers known "
                + "to work (max_connections)"
            log.warning("thermometer \(address) \(reason)")
            report(.leftOut(address, name: devices.name(of: address), reason: reason))
            endConnect()
        }
    }

    /// Suspends until the queue lets the session go (true) or its cancellation (false).
    private func waitForSlot(_ address: BluetoothAddress) async -> Bool {
        let loop = central.executor
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                connectQueue.park(address, continuation)
                if Task.isCancelled { connectQueue.cancelWait(address) }
            }
        } onCancel: {
            loop.execute { [weak self] in
                self?.assumeIsolated { $0.connectQueue.cancelWait(address) }
            }
        }
    }
}
