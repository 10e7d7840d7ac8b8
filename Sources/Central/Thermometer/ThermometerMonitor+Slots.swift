import SensorModel

/// Connection attempts and links: `maxConnecting` attempts at once, `maxConnections` links,
/// thermometers known to work first (see ``ConnectionSlots``).
extension ThermometerMonitor {
    /// Waits until the thermometer may try to connect; throws `CancellationError` when the
    /// session ends first.
    ///
    /// The caller counted itself in the scan's pause for connects; a thermometer left out
    /// (every link held or reserved) counts itself out while it waits, so that it does not
    /// hold the scan paused, and is logged and reported once each time.
    func takeConnectSlot(_ address: BluetoothAddress) async throws {
        let (decision, others) = slots.request(address)
        wake(others)
        guard decision != .go else { return grantedSlot(address) }
        if decision == .leftOut {
            reportLeftOut(address)
            endConnect()
        }
        let granted = await waitForSlot(address)
        if decision == .leftOut { countConnectIn() }
        guard granted else { throw CancellationError() }
        grantedSlot(address)
    }

    /// The thermometer's attempt brought its link up: it holds a link now, and the next
    /// thermometer may try.
    func connectionEstablished(_ address: BluetoothAddress) {
        wake(slots.established(address))
    }

    /// The thermometer gives up its attempt or link (or its wait for one).
    func releaseSlot(_ address: BluetoothAddress) {
        slotWaiters.removeValue(forKey: address)?.resume(returning: false)
        leftOut.remove(address)
        wake(slots.release(address))
    }

    /// The thermometer worked: from now on it goes first, keeps a link reserved, and its
    /// D-Bus calls go before others waiting for a place.
    func markWorked(_ peripheral: Peripheral) {
        slots.markKnown(peripheral.address)
        central.assumeIsolated { $0.setPreferred(peripheral, true) }
    }

    /// Lets the sessions of `addresses` go (their attempts are counted already).
    func wake(_ addresses: [BluetoothAddress]) {
        for address in addresses { slotWaiters.removeValue(forKey: address)?.resume(returning: true) }
    }

    private func grantedSlot(_ address: BluetoothAddress) {
        if leftOut.remove(address) != nil { log.notice("thermometer \(address): a link is free, connecting") }
    }

    private func reportLeftOut(_ address: BluetoothAddress) {
        guard leftOut.insert(address).inserted else { return }
        let reason =
            "left out: all \(slots.maxConnections) links are held or kept for thermometers known to work "
            + "(max_connections)"
        log.warning("thermometer \(address) \(reason)")
        report(.leftOut(address, name: devices[address]?.name, reason: reason))
    }

    /// Suspends until ``wake(_:)`` (true) or the session's cancellation (false).
    private func waitForSlot(_ address: BluetoothAddress) async -> Bool {
        let loop = central.executor
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                slotWaiters.removeValue(forKey: address)?.resume(returning: false)
                slotWaiters[address] = continuation
                if Task.isCancelled { slotWaiters.removeValue(forKey: address)?.resume(returning: false) }
            }
        } onCancel: {
            loop.execute { [weak self] in
                self?.assumeIsolated { $0.slotWaiters.removeValue(forKey: address)?.resume(returning: false) }
            }
        }
    }
}
