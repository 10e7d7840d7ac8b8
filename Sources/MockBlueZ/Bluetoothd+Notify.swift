import DBusCore

/// A peripheral's notifying characteristic.
struct NotifierKey: Hashable, Sendable {
    let peripheral: Int
    let uuid: String
}

/// Who gets a peripheral characteristic's notifications: the characteristic objects of the
/// links that enabled them (the peripheral sends each value to every subscribed link).
struct NotifierState: Sendable {
    var content: CharacteristicContent
    var subscribers: Set<ObjectPath> = []
}

/// The peripherals' side of notifications: cputemp sends one value at `StartNotify` and
/// then one per interval, to every subscribed link, until the last one unsubscribes.
extension Bluetoothd {
    func subscribe(_ characteristic: ObjectPath, peripheral: Int, _ node: GattCharacteristicNode) {
        let key = NotifierKey(peripheral: peripheral, uuid: node.uuid)
        var state = notifiers[key] ?? NotifierState(content: node.content)
        let first = state.subscribers.isEmpty
        state.subscribers.insert(characteristic)
        notifiers[key] = state
        guard first else { return }
        switch node.content {
        case .temperature:
            // The app's StartNotify sends a value at once; it reaches the central just after
            // the StartNotify reply.
            schedule(taskKey(key), after: .milliseconds(5)) { daemon in
                await daemon.notify(key)
                await daemon.notifyPeriodically(key)
            }
        case .heartRate:
            schedule(taskKey(key)) { daemon in await daemon.notifyPeriodically(key) }
        default:
            break
        }
    }

    func unsubscribe(_ characteristic: ObjectPath) {
        for (key, var state) in notifiers where state.subscribers.contains(characteristic) {
            state.subscribers.remove(characteristic)
            if state.subscribers.isEmpty {
                notifiers[key] = nil
                tasks.cancel(taskKey(key))
            } else {
                notifiers[key] = state
            }
        }
    }

    private func taskKey(_ key: NotifierKey) -> String { "notify:\(key.peripheral):\(key.uuid)" }

    private func interval(for content: CharacteristicContent) -> Duration {
        content == .temperature ? world.withState { $0.notifyInterval } : .seconds(1)
    }

    private func notifyPeriodically(_ key: NotifierKey) async {
        guard let content = notifiers[key]?.content else { return }
        let clock = ContinuousClock()
        let period = interval(for: content)
        // Ticks on a schedule (not "sleep a period after each send"), so a 1 ms period gives
        // about 1000 values a second; a late tick is not made up for.
        var next = clock.now + period
        while running, notifiers[key] != nil, !Task.isCancelled {
            do { try await Task.sleep(until: next, clock: clock) } catch { return }
            guard notifiers[key] != nil, !Task.isCancelled else { return }
            await notify(key)
            next = max(next + period, clock.now)
        }
    }

    /// Sends one value to every subscriber; returns how many notifications went out.
    @discardableResult
    func notify(_ key: NotifierKey) async -> Int {
        guard let state = notifiers[key] else { return 0 }
        let (value, silent): ([UInt8], [String: MockSilenceCure]) = world.withState { world in
            switch state.content {
            case .temperature:
                return (world.nextTemperatureValue(key.peripheral), world.silentControllers)
            case .heartRate:
                let rate = Int(world.peripherals[key.peripheral].heartRate) + world.jitter(-2...2)
                world.peripherals[key.peripheral].heartRate = UInt8(min(max(rate, 55), 160))
                return ([0x00, world.peripherals[key.peripheral].heartRate], world.silentControllers)
            default:
                return ([], world.silentControllers)
            }
        }
        var sent = 0
        for characteristic in state.subscribers.sorted()
        where notifiers[key]?.subscribers.contains(characteristic) == true
            && (silent.isEmpty || !silent.keys.contains { characteristic.rawValue.hasPrefix("/org/bluez/\($0)/") })
        {
            if sent == 0, state.content == .temperature { EmitLog.shared.record(peripheral: key.peripheral) }
            change(characteristic, BluetoothdAPI.characteristic, [("Value", .bytes(value))])
            sent += 1
            await paced()
        }
        return sent
    }

    /// The new notification interval takes effect now (the current wait is cut short).
    func notifyIntervalChanged() {
        for (key, state) in notifiers where state.content == .temperature {
            schedule(taskKey(key)) { daemon in await daemon.notifyPeriodically(key) }
        }
    }

    /// Sends `count` temperature notifications of peripheral `index` as fast as the bus takes
    /// them; returns how many were sent (fewer if the subscription ends meanwhile).
    func burst(peripheral index: Int, count: Int) async throws -> Int {
        guard let key = notifiers.first(where: { $0.key.peripheral == index && $0.value.content == .temperature })?.key
        else {
            throw MockError(
                name: "org.blectl.Mock.Error.NotNotifying", message: "no link has notifications enabled on that device")
        }
        var sent = 0
        for _ in 0..<count {
            guard running, notifiers[key] != nil else { break }
            sent += await notify(key) > 0 ? 1 : 0
        }
        return sent
    }

    /// Per peripheral: its device objects, whether a link is up, whether it notifies.
    func snapshot() -> [Int: (paths: [ObjectPath], connected: Bool, notifying: Bool)] {
        var result: [Int: (paths: [ObjectPath], connected: Bool, notifying: Bool)] = [:]
        for device in devices.values.sorted(by: { $0.path < $1.path }) {
            var entry = result[device.peripheral] ?? ([], false, false)
            entry.paths.append(device.path)
            entry.connected = entry.connected || device.link == .up
            entry.notifying = entry.notifying || !device.notifying.isEmpty
            result[device.peripheral] = entry
        }
        return result
    }
}
