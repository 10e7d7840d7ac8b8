import BlueZClient
public import SensorModel
import ConcurrencySupport

/// Our scan, as the ``ScanScheduler`` wants it: windows, discovery kept on, pauses for
/// connects.
extension ThermometerMonitor {
    /// Scans for `duration` even when every thermometer is connected (for `blectl scan`).
    public func scan(for duration: Duration) async {
        // Everyone in range is reported again in this window, not only newcomers.
        devices.reportEveryoneAgain(from: .now)
        log.debug("scan requested: discovery open for at least \(duration)")
        openScanWindow(duration)
        try? await central.executor.sleep(for: duration)
    }

    /// ``scan(for:)``, then what each adapter in use hears of each device at the scan's end
    /// (`blectl scan`'s adapters), read as the scan's time is up, before a closing window
    /// stops discovery (BlueZ drops a device's RSSI then).
    public func scanHearings(for duration: Duration) async -> [BluetoothAddress: [DeviceHearing]] {
        await scan(for: duration)
        return hearingsNow()
    }

    /// What each adapter hears now, read on the central's executor without a hop.
    private func hearingsNow() -> [BluetoothAddress: [DeviceHearing]] {
        central.assumeIsolated { $0.deviceHearings() }
    }

    /// Keeps discovery on all the time, or back to windows (advertising sensors are heard
    /// passively, through an advertisement monitor).
    public func keepScanning(_ on: Bool) {
        guard on != scanning.keepsScanning else { return }
        scanning.keepsScanning = on
        reconcileScan()
    }

    /// Keeps our scan on for at least `duration` (paused only while connecting).
    func openScanWindow(_ duration: Duration) {
        guard scanning.openWindow(until: .now + duration) else { return }
        reconcileScan()
        // One timer for the latest window (each new thermometer opens one).
        scanning.windowTimer?.cancel()
        scanning.windowTimer = central.executor.schedule(after: duration) { [weak self] in
            self?.assumeIsolated { $0.reconcileScan() }
        }
    }

    /// Brings our scan in line with what is needed, one change at a time.
    func reconcileScan() {
        guard scanning.beginReconciling() else { return }
        Task {
            repeat {
                scanning.beginPass()
                let wanted = scanWanted()
                let isScanning = await central.isScanning
                let everywhere = await central.isScanningEverywhere
                if wanted, !everywhere {
                    try? await central.scanForPeripherals(matching: ScanFilter())
                } else if !wanted, isScanning {
                    await central.stopScan()
                }
            } while scanning.endPass()
        }
    }

    /// Whether our scan should be on: the adapter powered, and the scheduler wanting it
    /// (thermometers are looked for while none is known or one is missing).
    private func scanWanted() -> Bool {
        guard central.assumeIsolated({ $0.state }) == .poweredOn else { return false }
        let searching = configuration.searches && (sessions.isEmpty || !awaitingDevice.isEmpty)
        return scanning.wanted(searching: searching, at: .now)
    }

    /// Counts a connect in: the first one pauses our scan, and the whole batch shares the
    /// pause. Soon after a pause, waits until `connectBatchWindow` after it, so that the
    /// thermometers heard in that time connect in one batch.
    func beginConnect() async {
        if let nextBatch = scanning.nextBatch { try? await central.executor.sleep(until: nextBatch) }
        countConnectIn()
    }

    /// Counts a connect in, pausing our scan if it is the first (see ``beginConnect()``).
    func countConnectIn() {
        if scanning.connectStarted(at: .now) {
            // Within a window, the pause ends after `scanPauseLimit` even if the connect hangs.
            central.executor.schedule(after: configuration.scanPauseLimit) { [weak self] in
                self?.assumeIsolated { $0.reconcileScan() }
            }
        }
        reconcileScan()
    }

    /// Counts a connect out: the scan resumes when it was the last.
    func endConnect() {
        scanning.connectEnded(at: .now)
        reconcileScan()
    }
}
