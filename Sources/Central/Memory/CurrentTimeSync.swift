import BlueZClient
public import SensorModel
import ThermometerProfiles

/// Decides when the clocks of the GATT devices the monitor connects to are set, and takes in
/// what each connection found (blectld's sensor-memory service: `sensor_clock_sync`, `status`).
public protocol SensorClockKeeper: Sendable {
    /// What to do with `address`'s clock on the connection just made.
    func clockVisit(_ address: BluetoothAddress) async -> ClockVisit
    /// What the connection found (the drift) and did (the setting).
    func clockChecked(_ address: BluetoothAddress, drift: Int64?, outcome: ClockSetOutcome) async
}

/// Whether a connection sets the device's clock.
public struct ClockVisit: Sendable, Equatable {
    /// Whether the setting is due (`sensor_clock_sync`).
    public var setClock: Bool
    /// Whether the gateway's own clock is synchronised (never push a wrong time).
    public var gatewayClockSynchronized: Bool

    /// A decision.
    public init(setClock: Bool, gatewayClockSynchronized: Bool) {
        self.setClock = setClock
        self.gatewayClockSynchronized = gatewayClockSynchronized
    }
}

extension ThermometerMonitor {
    /// Hands the clocks of connected GATT devices offering the Current Time Service to `keeper`.
    public func keepClocks(_ keeper: any SensorClockKeeper) { clockKeeper = keeper }
}

/// The Current Time Service on a thermometer's link: the drift read, the clock set when due.
extension ConnectSession {
    /// Reads the device's Current Time (0x1805/0x2A2B) when it offers one that can be written,
    /// and sets it to the gateway's time when the keeper says so; never fails the connection.
    ///
    /// With `onlyWhenDue` (a link held for days: ``watch(_:_:_:)`` asks at every data
    /// timeout), nothing is read unless the keeper says the daily setting is due.
    func syncCurrentTime(_ peripheral: Peripheral, _ monitor: isolated ThermometerMonitor, onlyWhenDue: Bool = false)
        async
    {
        guard let keeper = monitor.clockKeeper else { return }
        let found = await monitor.central.currentTimeServiceCharacteristic(
            CurrentTimeService.currentTime, of: peripheral)
        // Only a clock that can be set is this feature's: a read-only one tells a drift nobody can mend.
        guard let characteristic = found, characteristic.flags.contains("write") else { return }
        let visit = await keeper.clockVisit(address)
        if onlyWhenDue, !visit.setClock { return }
        let drift = await currentTimeDrift(characteristic, monitor)
        var outcome = ClockSetOutcome.notAsked
        if visit.setClock {
            outcome =
                visit.gatewayClockSynchronized
                ? await setCurrentTime(characteristic, of: peripheral, monitor) : .gatewayUnsynchronized
        }
        switch outcome {
        case .refused(let why): monitor.log.warning("device \(address): setting its clock failed: \(why)")
        case .gatewayUnsynchronized:
            monitor.log.notice("device \(address): clock not set: the gateway's clock is not synchronised")
        case .set: monitor.log.notice("device \(address): clock set (it was \(drift.map(String.init) ?? "?") s off)")
        case .notAsked: break
        }
        if let drift { monitor.log.info("device \(address): Current Time \(drift) s off the gateway's") }
        await keeper.clockChecked(address, drift: drift, outcome: outcome)
    }

    /// Device time minus gateway time, seconds, both as local times; nil when the read failed
    /// or the date is unknown.
    private func currentTimeDrift(_ characteristic: Characteristic, _ monitor: isolated ThermometerMonitor) async
        -> Int64?
    {
        guard let value = try? await monitor.central.readValue(for: characteristic) else { return nil }
        do {
            let now = MemoryReader.gatewayNow()
            return try CurrentTime(bytes: value).unixTime.map {
                $0 - Int64(MemoryReader.localZone(at: now).utcOffset) - now
            }
        } catch {
            monitor.log.warning("device \(address): Current Time unreadable (\(error.kind.rawValue)): \(error.detail)")
            return nil
        }
    }

    /// Writes the gateway's local time (a write request: the device says whether it took
    /// it), and first its zone to Local Time Information where the device lets it be set
    /// (a refusal there is logged; the time is written all the same).
    private func setCurrentTime(
        _ characteristic: Characteristic, of peripheral: Peripheral, _ monitor: isolated ThermometerMonitor
    ) async -> ClockSetOutcome {
        let now = MemoryReader.gatewayNow()
        let zone = MemoryReader.localZone(at: now)
        let information = LocalTimeInformation(utcOffset: zone.utcOffset, daylightSaving: zone.daylightSaving)
        let local = await monitor.central.currentTimeServiceCharacteristic(
            CurrentTimeService.localTimeInformation, of: peripheral)
        if let local, local.flags.contains("write") {
            do {
                try await monitor.central.writeValue(information.bytes, for: local, withResponse: true)
                monitor.log.info("device \(address): Local Time Information set (UTC offset \(zone.utcOffset) s)")
            } catch {
                monitor.log.notice("device \(address): setting its Local Time Information failed: \(error)")
            }
        }
        let value = CurrentTime(unixTime: now + Int64(zone.utcOffset)).bytes
        do {
            try await monitor.central.writeValue(value, for: characteristic, withResponse: true)
            return .set
        } catch {
            return .refused("\(error)")
        }
    }
}

extension CentralManager {
    /// The peripheral's characteristic `uuid` of the Current Time Service as exported now, if it offers one.
    func currentTimeServiceCharacteristic(_ uuid: BluetoothUUID, of peripheral: Peripheral) -> Characteristic? {
        for service in currentServices([CurrentTimeService.service], of: peripheral) {
            if let first = currentCharacteristics([uuid], of: service).first { return first }
        }
        return nil
    }
}
