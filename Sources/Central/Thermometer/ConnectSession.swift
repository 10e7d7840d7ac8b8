import BlueZClient
import SensorModel
import ThermometerProfiles

/// One thermometer's life: connect, stream, and recover, until cancelled.
///
/// A state machine run by its session task on the monitor's executor (its steps take the
/// monitor `isolated`); the monitor holds what sessions share (connect slots, streams, the
/// scan), the session only its own state.
struct ConnectSession: Sendable {
    /// Where the session is.
    enum State: Sendable {
        /// Waiting for the adapter to be on.
        case awaitingPower
        /// Looking for the thermometer's device object (scanning while it is missing).
        case findingDevice
        /// Connecting, finding the temperature characteristic, reading and subscribing.
        case connecting(Peripheral)
        /// Subscribed: values flow until the stream is lost.
        case streaming(Peripheral, Characteristic)
        /// Waiting before the next attempt.
        case backingOff
    }

    /// What the thermometer's link was last reported as.
    ///
    /// A GATT replacement keeps the link reported up (the app restarts on it); if what
    /// follows is not the new service but the link, the device or the adapter going away
    /// (BlueZ removes an adapter's GATT objects before its devices), that is reported once
    /// it is seen: before waiting for power, again before connecting, and by the connection
    /// itself, which counts link drops from the replacement on (the adapter may go and come
    /// back while the session waits its turn).
    enum LinkReport: Equatable, Sendable {
        /// Not reported up (never, or reported lost).
        case down
        /// Reported connected.
        case up
        /// Still reported up across a GATT replacement; `disconnects`: the device's
        /// disconnect count at the replacement.
        case keptAcrossReplacement(disconnects: Int)

        /// The device's disconnect count at the GATT replacement that left the link reported
        /// up, if one did.
        var disconnectsAtReplacement: Int? {
            if case .keptAcrossReplacement(let disconnects) = self { disconnects } else { nil }
        }
    }

    let address: BluetoothAddress
    private(set) var state = State.awaitingPower
    private(set) var link = LinkReport.down
    /// Attempts that failed in a row.
    private(set) var failures = 0

    init(_ address: BluetoothAddress) { self.address = address }

    /// Runs the session until it is cancelled or the monitor shuts down.
    mutating func run(_ monitor: isolated ThermometerMonitor) async {
        while let next = await step(monitor) { state = next }
    }

    /// Does what the current state asks; returns the next state, nil when the session ends.
    private mutating func step(_ monitor: isolated ThermometerMonitor) async -> State? {
        switch state {
        case .awaitingPower:
            guard !Task.isCancelled else { return nil }
            checkKeptLink(monitor)
            return await waitForPower(monitor) ? .findingDevice : nil
        case .findingDevice:
            guard let peripheral = await findDevice(monitor) else { return .awaitingPower }
            checkKeptLink(monitor)
            return .connecting(peripheral)
        case .connecting(let peripheral):
            return await connect(peripheral, monitor)
        case .streaming(let peripheral, let characteristic):
            return await stream(peripheral, characteristic, monitor)
        case .backingOff:
            let delay = monitor.configuration.reconnect.delay(attempt: max(failures, 1), using: &monitor.random)
            monitor.log.debug("thermometer \(address): next attempt in \(delay)")
            try? await monitor.central.executor.sleep(for: delay)
            return .awaitingPower
        }
    }

    /// Connects and subscribes: streaming on success; after a failure, backing off (nil
    /// when the session was cancelled meanwhile).
    private mutating func connect(_ peripheral: Peripheral, _ monitor: isolated ThermometerMonitor) async -> State? {
        do {
            let since = link.disconnectsAtReplacement
            let (connected, characteristic) = try await Self.inOwnTask(monitor) { [self] in
                try await connectAndSubscribe(peripheral, since: since, $0)
            }
            failures = 0
            link = .up
            markWorked(connected, monitor)
            return .streaming(connected, characteristic)
        } catch CentralError.adapterOff(let adapter) {
            // Its adapter went off while another is on: nothing failed, look again at once
            // (the device object on another adapter), without a backoff.
            monitor.connectQueue.release(address)
            if link != .down {
                monitor.report(.disconnected(address, reason: "adapter \(adapter) is switched off"))
                link = .down
            }
            monitor.log.info("thermometer \(address): adapter \(adapter) is switched off, trying another")
            return .awaitingPower
        } catch CentralError.bluez(.busy(let message)) {
            // Back-pressure from the D-Bus budget, not the thermometer's fault: no backoff.
            monitor.connectQueue.release(address)
            monitor.log.info("thermometer \(address): D-Bus busy (\(message)), trying again")
            return .backingOff
        } catch {
            // Ended (shutdown, or the device forgotten): nothing failed.
            guard !Task.isCancelled else { return nil }
            if link != .down {
                monitor.report(.disconnected(address, reason: "\(error)"))
                link = .down
            }
            failures += 1
            monitor.log.warning("thermometer \(address): \(error) (attempt \(failures))")
            // The pending connect is cancelled before the next thermometer's attempt starts
            // (on the adapter its turn was granted through).
            let attempted = monitor.connectQueue.slots.adapter(of: address).flatMap { $0.device(address) }
            await recover(
                from: error, attempted.map { Peripheral(address: address, path: $0, name: nil) } ?? peripheral, monitor)
            monitor.connectQueue.release(address)
            return .backingOff
        }
    }

    /// Waits until the stream is lost and reports it; a GATT replacement keeps the link
    /// reported up and looks for the new service at once.
    private mutating func stream(
        _ peripheral: Peripheral, _ characteristic: Characteristic, _ monitor: isolated ThermometerMonitor
    ) async -> State? {
        let loss = await watch(peripheral, characteristic, monitor)
        monitor.streams[characteristic.path] = nil
        monitor.connectQueue.release(address)
        // Shutting down (the monitor cancels its sessions) loses nothing worth reporting.
        guard !Task.isCancelled else { return nil }
        monitor.log.notice("thermometer \(address): \(loss.reason)")
        if loss == .gattReplaced {
            link = .keptAcrossReplacement(disconnects: await monitor.central.disconnectCount(peripheral.path))
            return .awaitingPower
        }
        monitor.report(.disconnected(address, reason: loss.reason))
        link = .down
        if loss == .silent { await monitor.central.cancelPeripheralConnection(peripheral) }
        return .backingOff
    }

    /// Reports `disconnected` once the link a GATT replacement left reported up is gone.
    private mutating func checkKeptLink(_ monitor: isolated ThermometerMonitor) {
        guard let since = link.disconnectsAtReplacement, let gone = linkGone(since: since, monitor) else { return }
        monitor.report(.disconnected(address, reason: gone.reason))
        link = .down
    }

    /// Why the link a GATT replacement left up is gone, or nil while it is up (the adapter
    /// powered, the device there and connected, its link not dropped since `since`).
    private func linkGone(since: Int, _ monitor: isolated ThermometerMonitor) -> StreamLoss? {
        monitor.central.assumeIsolated { [address] central -> StreamLoss? in
            guard central.state == .poweredOn else { return .adapterOff(central.state) }
            guard let path = central.knownDevicePath(address) else { return .removed }
            guard central.disconnectCount(path) == since else { return .disconnected }
            return central.isConnected(path) ? nil : .disconnected
        }
    }

    private func recover(from error: any Error, _ peripheral: Peripheral, _ monitor: isolated ThermometerMonitor)
        async
    {
        switch error as? CentralError {
        case .peripheralGone?:
            monitor.awaitingDevice.insert(peripheral.address)
            monitor.reconcileScan()
        case .bluez(.inProgress)?, .bluez(.alreadyConnected)?, .servicesNotResolved?, .notFound?, .timeout?:
            // A pending or half-done connect: Disconnect cancels it before the retry.
            await monitor.central.cancelPeripheralConnection(peripheral)
        default:
            break
        }
    }
}
