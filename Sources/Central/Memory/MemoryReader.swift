import SensorModel
import ThermometerProfiles

#if canImport(Glibc)
    import Glibc
#endif

/// One memory download: the slot, the link, the clock, the records, the clean-up.
struct MemoryReader: Sendable {
    let request: MemoryReadRequest
    let memory: any SensorMemoryProtocol
    let progress: @Sendable (MemoryReadProgress) -> Void
    var address: BluetoothAddress { request.address }

    /// Runs the download; the slot and the link are given up on every path.
    func run(_ monitor: isolated ThermometerMonitor) async -> MemoryReadResult {
        // A reading heard on the management socket (advert_source) can come before bluetoothd
        // has made the device object for it: after the adapter came back on, the download
        // asked for by that reading found none and failed (e2e scenario 10, at 43b3ac3).
        let scope = await monitor.central.expectedDevicePath(address)
        let found = await monitor.central.wait(timeout: request.deviceTimeout, device: scope) { [address] central in
            central.knownDevicePath(address)
        }
        guard let found else {
            return MemoryReadResult(
                end: .failed("no device object for \(address) within \(request.deviceTimeout) (not heard lately)"))
        }
        guard let peripheral = await takeSlot(Peripheral(address: address, path: found, name: nil), monitor) else {
            return MemoryReadResult(end: .failed("no connection slot free within \(request.slotTimeout)"))
        }
        defer { monitor.connectQueue.release(address) }
        let path = peripheral.path
        let inbox = MemoryInbox(loop: monitor.central.executor)
        let token = await monitor.central.addObserver { [address] event in
            Self.forward(event, of: address, to: inbox)
        }
        let started = ContinuousClock.now
        var result = await connectAndRead(peripheral, inbox: inbox, monitor)
        result.connectedFor = ContinuousClock.now - started
        await monitor.central.removeObserver(token)
        await monitor.central.cancelPeripheralConnection(peripheral)
        // The slot is free once the link is down, not when the call returns.
        _ = await monitor.central.wait(timeout: .seconds(5), device: path) { central in
            central.device(path)?.connected == true ? nil : true
        }
        monitor.log.info(summary(result))
        return result
    }

    /// Passes the link's losses to the inbox (values are filtered by path once known).
    private static func forward(_ event: CentralEvent, of address: BluetoothAddress, to inbox: MemoryInbox) {
        switch event {
        case .valueUpdated(let path, let bytes): inbox.pushValue(path, bytes)
        case .disconnected(let lost, _) where lost == address: inbox.push(.lost("disconnected"))
        case .peripheralRemoved(let lost, _) where lost == address: inbox.push(.lost("device removed"))
        case .stateChanged(let state) where state != .poweredOn: inbox.push(.lost("adapter \(state.rawValue)"))
        default: break
        }
    }

    /// Connects, finds the protocol's characteristic, subscribes, does the clock and the records.
    private func connectAndRead(
        _ peripheral: Peripheral, inbox: MemoryInbox, _ monitor: isolated ThermometerMonitor
    ) async -> MemoryReadResult {
        let central = monitor.central
        do {
            try await connect(peripheral, monitor)
            let (characteristic, all) = try await findCharacteristic(peripheral, monitor)
            inbox.follow(characteristic.path)
            if memory.notifies, !memory.subscribesAfterRequest {
                try await central.setNotifyValue(true, for: characteristic)
            }
            var link = MemoryLink(
                central: central, characteristic: characteristic, characteristics: all, inbox: inbox, memory: memory)
            var result = MemoryReadResult(end: .finished)
            let clock = await link.readClock()
            var map = clockMap(clock, &result)
            await setClockIfAsked(&link, clock: clock, &result, monitor)
            if !request.clockOnly, memory.readsRecords {
                await download(&link, map: &map, sensorTime: clock?.deviceTime, into: &result)
            }
            if memory.notifies { try? await central.setNotifyValue(false, for: characteristic) }
            return result
        } catch {
            return MemoryReadResult(end: .failed("\(error)"))
        }
    }

    /// The drift read now (sensor minus gateway), with the earlier one the caller knows of.
    private func clockMap(_ clock: SensorClockReading?, _ result: inout MemoryReadResult) -> SensorClockMap {
        guard let clock else { return SensorClockMap(drift: 0, earlier: request.earlierDrift) }
        let drift = clock.drift(from: Self.gatewayNow())
        result.drift = drift
        return SensorClockMap(drift: drift, earlier: request.earlierDrift)
    }

    /// Sets the clock when asked and the gateway's clock is synchronised.
    private func setClockIfAsked(
        _ link: inout MemoryLink, clock: SensorClockReading?, _ result: inout MemoryReadResult,
        _ monitor: isolated ThermometerMonitor
    ) async {
        guard request.setClock else { return }
        guard request.gatewayClockSynchronized else {
            result.clock = .gatewayUnsynchronized
            monitor.log.notice("sensor \(address): clock not set: the gateway's clock is not synchronised")
            return
        }
        let now = Self.gatewayNow()
        result.clock = await link.setClock(to: now)
        if result.clock == .set, let drift = result.drift {
            result.setting = SensorClockSetting(until: UInt32(clamping: now), drift: drift)
        }
        if case .refused(let why) = result.clock {
            monitor.log.warning("sensor \(address): setting its clock failed: \(why)")
        } else {
            monitor.log.notice("sensor \(address): clock set (it was \(result.drift ?? 0) s off)")
        }
    }

    /// The download proper: start writes, then notifications until the end, a stall or a loss.
    private func download(
        _ link: inout MemoryLink, map: inout SensorClockMap, sensorTime: UInt32?, into result: inout MemoryReadResult
    ) async {
        let asked: MemoryRequest =
            if let newerThan = request.newerThan {
                .newer(than: map.deviceTime(of: newerThan), skipping: request.skipping)
            } else {
                .newest(count: request.limit, skipping: request.skipping)
            }
        var reads: [BluetoothUUID: [UInt8]] = [:]
        for uuid in memory.requestReads {
            guard let value = await link.read(uuid) else { return result.end = .failed("reading \(uuid) failed") }
            reads[uuid] = value
        }
        // Read after the setting: the sensor's next record number is the first made after it.
        result.setting?.firstNumberAfter = memory.nextRecordNumber(reads: reads)
        var download = SensorMemoryDownload(memory, request: asked, sensorTime: sensorTime, reads: reads)
        guard await link.write(download.startWrites) else { return result.end = .failed("request refused") }
        if memory.subscribesAfterRequest, !download.isFinished {
            do {
                try await link.central.setNotifyValue(true, for: link.characteristic)
            } catch {
                return result.end = .failed("subscribing failed: \(error)")
            }
        }
        while !download.isFinished {
            switch await link.inbox.next(timeout: request.stallTimeout) {
            case nil:
                _ = await link.write(memory.stopWrites)
                return result.end = .stalled
            case .lost?:
                return result.end = .disconnected
            case .value(let bytes)?:
                if case .finished(_, let stops) = take(download.receive(bytes), map: &map, into: &result) {
                    _ = await link.write(stops)
                }
            }
        }
    }

    /// Reports one step of the download; returns it.
    private func take(
        _ step: SensorMemoryDownload.Step, map: inout SensorClockMap, into result: inout MemoryReadResult
    ) -> SensorMemoryDownload.Step {
        switch step {
        case .record(let record):
            result.received += 1
            result.lastNumber = max(result.lastNumber, Int(record.number))
            let time =
                memory.recordOrder == .newestFirst
                ? map.gatewayTime(ofNext: record.deviceTime)
                : map.gatewayTime(of: record.deviceTime, number: record.number)
            progress(.record(record, gatewayTime: time))
        case .rejected(let error):
            result.rejected += 1
            progress(.rejected(error))
        case .finished, .ignored:
            break
        }
        return step
    }

    /// The gateway's wall clock, seconds since 1970.
    static func gatewayNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }

    /// How far this machine's local time is ahead of UTC at `time`, seconds (its time zone:
    /// `TZ`, else /etc/localtime), for sensors whose clock shows local time.
    static func utcOffset(at time: Int64) -> Int { localZone(at: time).utcOffset }

    /// This machine's time zone at `time`: seconds ahead of UTC, and whether daylight saving
    /// is in force (UTC when the zone cannot be told).
    static func localZone(at time: Int64) -> (utcOffset: Int, daylightSaving: Bool) {
        var seconds = time_t(time)
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return (0, false) }
        return (local.tm_gmtoff, local.tm_isdst > 0)
    }

    private func summary(_ result: MemoryReadResult) -> String {
        let clockOnly = request.clockOnly
        let drift = result.drift.map { ", clock \($0) s off" } ?? ""
        guard !clockOnly else {
            return "sensor \(address): clock visit \(result.end): connected \(result.connectedFor)\(drift)"
        }
        return "sensor \(address): memory download \(result.end): \(result.received) records, "
            + "\(result.rejected) refused, connected \(result.connectedFor)\(drift)"
    }
}
