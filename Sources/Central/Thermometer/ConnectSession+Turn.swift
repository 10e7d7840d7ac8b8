import BlueZClient
import SensorModel

/// The session's turn to connect: `maxConnecting` attempts at once, `maxConnections` links per adapter,
/// thermometers known to work first (the monitor's ``ConnectQueue``), with our scan paused.
extension ConnectSession {
    /// Connects with our scan paused (the link and GATT discovery need the radio; reads
    /// and subscribing on a live link do not).
    ///
    /// The attempt waits its turn; a `Connect` that hangs holds it for `connectTimeout` at most.
    /// Returns the peripheral connected: its device object on the adapter the turn was
    /// granted through (`max_connections` is per adapter: with several, the owner's links may
    /// be full and another adapter's free), with the disconnect count its link is watched
    /// from (`epoch`, counted on `peripheral`; on another device object, its count before
    /// connecting).
    func connectPausingScan(_ peripheral: Peripheral, since epoch: Int, _ monitor: isolated ThermometerMonitor)
        async throws -> (Peripheral, epoch: Int)
    {
        await monitor.beginConnect()
        defer { monitor.endConnect() }
        let adapters = await monitor.central.connectAdapters(for: peripheral)
        try await takeTurn(on: adapters, monitor)
        try Task.checkCancellation()
        let granted = monitor.connectQueue.slots.adapter(of: address).flatMap { $0.device(address) }
        let chosen = granted.map { Peripheral(address: address, path: $0, name: peripheral.name) } ?? peripheral
        var epoch = epoch
        if chosen.path != peripheral.path {
            monitor.log.info(
                "thermometer \(address): connecting through \(chosen.path.adapterName), a link is free there")
            epoch = await monitor.central.disconnectCount(chosen.path)
        }
        try await monitor.central.connect(chosen, timeout: monitor.configuration.connectTimeout)
        // It holds a link now, and the next thermometer may try.
        monitor.connectQueue.established(address)
        noteLeftOut(monitor)
        return (chosen, epoch)
    }

    /// The thermometer worked: from now on it goes first, keeps a link reserved, and its
    /// D-Bus calls go before others waiting for a place.
    func markWorked(_ peripheral: Peripheral, _ monitor: isolated ThermometerMonitor) {
        monitor.connectQueue.markKnown(peripheral.address)
        monitor.central.assumeIsolated { $0.setPreferred(peripheral, true) }
    }

    /// Waits until the thermometer may try to connect; throws `CancellationError` when the
    /// session ends first.
    ///
    /// The caller counted itself in the scan's pause for connects; a thermometer left out
    /// (every link held or reserved) is logged and reported once each time, and counted out
    /// of the pause while it waits, so that it does not hold the scan paused.
    private func takeTurn(on adapters: [BlueZPath], _ monitor: isolated ThermometerMonitor) async throws {
        let go = monitor.connectQueue.request(address, on: adapters)
        noteLeftOut(monitor)
        guard !go else { return }
        let granted = await waitForTurn(monitor)
        if monitor.connectQueue.endLeftOut(address) {
            monitor.countConnectIn()
            if granted { monitor.log.notice("thermometer \(address): a link is free, connecting") }
        }
        guard granted else { throw CancellationError() }
    }

    /// Tells of the thermometers newly left out (waiting while every link is held or kept),
    /// and counts them out of the scan's pause for connects.
    private func noteLeftOut(_ monitor: isolated ThermometerMonitor) {
        let perAdapter = monitor.central.assumeIsolated { $0.ownership != nil } ? " of each adapter hearing it" : ""
        for address in monitor.connectQueue.newlyLeftOut() {
            let reason =
                "left out: all \(monitor.connectQueue.slots.maxConnections) links\(perAdapter) are held or kept for "
                + "thermometers known to work (max_connections)"
            monitor.log.warning("thermometer \(address) \(reason)")
            monitor.report(.leftOut(address, name: monitor.devices.name(of: address), reason: reason))
            monitor.endConnect()
        }
    }

    /// Suspends until the queue lets the session go (true) or its cancellation (false).
    private func waitForTurn(_ monitor: isolated ThermometerMonitor) async -> Bool {
        let loop = monitor.central.executor
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                monitor.connectQueue.park(address, continuation)
                if Task.isCancelled { monitor.connectQueue.cancelWait(address) }
            }
        } onCancel: { [address] in
            loop.execute { [weak monitor] in
                monitor?.assumeIsolated { $0.connectQueue.cancelWait(address) }
            }
        }
    }
}
