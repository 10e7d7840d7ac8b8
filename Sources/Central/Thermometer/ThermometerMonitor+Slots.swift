import SensorModel

/// Connection attempts and links: `maxConnecting` attempts at once, `maxConnections` links,
/// thermometers known to work first (see ``ConnectionSlots``).
extension ThermometerMonitor {
    /// Waits until the thermometer may try to connect; throws `CancellationError` when the
    /// session ends first.
    ///
    /// The caller counted itself in the scan's pause for connects; a thermometer left out
    /// (every link held or reserved) is logged and reported once each time, and counted out
    /// of the pause while it waits, so that it does not hold the scan paused.
    func takeConnectSlot(_ address: BluetoothAddress) async throws {
        let (decision, others) = slots.request(address)
        wake(others)
        noteLeftOut()
        guard decision != .go else { return }
        let granted = await waitForSlot(address)
        if leftOut.remove(address) != nil {
            countConnectIn()
            if granted { log.notice("thermometer \(address): a link is free, connecting") }
        }
        guard granted else { throw CancellationError() }
    }

    /// The thermometer's attempt brought its link up: it holds a link now, and the next
    /// thermometer may try.
    func connectionEstablished(_ address: BluetoothAddress) {
        wake(slots.established(address))
        noteLeftOut()
    }

    /// The thermometer gives up its attempt or link.
    func releaseSlot(_ address: BluetoothAddress) {
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

    /// Tells of the thermometers newly left out (waiting while every link is held or kept),
    /// and counts them out of the scan's pause for connects.
    private func noteLeftOut() {
        for address in slots.waitingForLink where leftOut.insert(address).inserted {
            let reason =
                "left out: all \(slots.maxConnections) links are held or kept for thermometers known to work "
                + "(max_connections)"
            log.warning("thermometer \(address) \(reason)")
            report(.leftOut(address, name: devices[address]?.name, reason: reason))
            endConnect()
        }
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
