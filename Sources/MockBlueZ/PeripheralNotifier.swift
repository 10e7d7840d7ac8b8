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
enum PeripheralNotifier {
    static func subscribe(
        _ daemon: isolated Bluetoothd, _ characteristic: ObjectPath, peripheral: Int, _ node: GattCharacteristicNode
    ) {
        let key = NotifierKey(peripheral: peripheral, uuid: node.uuid)
        var state = daemon.notifiers[key] ?? NotifierState(content: node.content)
        let first = state.subscribers.isEmpty
        state.subscribers.insert(characteristic)
        daemon.notifiers[key] = state
        guard first else { return }
        switch node.content {
        case .temperature:
            // The app's StartNotify sends a value at once; it reaches the central just after
            // the StartNotify reply.
            daemon.schedule(taskKey(daemon, key), after: .milliseconds(5)) { daemon in
                await notify(daemon, key)
                await notifyPeriodically(daemon, key)
            }
        case .heartRate:
            daemon.schedule(taskKey(daemon, key)) { daemon in await notifyPeriodically(daemon, key) }
        default:
            break
        }
    }

    static func unsubscribe(_ daemon: isolated Bluetoothd, _ characteristic: ObjectPath) {
        for (key, var state) in daemon.notifiers where state.subscribers.contains(characteristic) {
            state.subscribers.remove(characteristic)
            if state.subscribers.isEmpty {
                daemon.notifiers[key] = nil
                daemon.tasks.cancel(taskKey(daemon, key))
            } else {
                daemon.notifiers[key] = state
            }
        }
    }

    private static func taskKey(_ daemon: isolated Bluetoothd, _ key: NotifierKey) -> String {
        "notify:\(key.peripheral):\(key.uuid)"
    }

    private static func interval(_ daemon: isolated Bluetoothd, for content: CharacteristicContent) -> Duration {
        content == .temperature ? daemon.world.withState { $0.notifyInterval } : .seconds(1)
    }

    private static func notifyPeriodically(_ daemon: isolated Bluetoothd, _ key: NotifierKey) async {
        guard let content = daemon.notifiers[key]?.content else { return }
        let clock = ContinuousClock()
        let period = interval(daemon, for: content)
        // Ticks on a schedule (not "sleep a period after each send"), so a 1 ms period gives
        // about 1000 values a second; a late tick is not made up for.
        var next = clock.now + period
        while daemon.running, daemon.notifiers[key] != nil, !Task.isCancelled {
            do { try await Task.sleep(until: next, clock: clock) } catch { return }
            guard daemon.notifiers[key] != nil, !Task.isCancelled else { return }
            await notify(daemon, key)
            next = max(next + period, clock.now)
        }
    }

    /// Sends one value to every subscriber; returns how many notifications went out.
    @discardableResult
    static func notify(_ daemon: isolated Bluetoothd, _ key: NotifierKey) async -> Int {
        guard let state = daemon.notifiers[key] else { return 0 }
        let (value, silent): ([UInt8], [String: MockSilenceCure]) = daemon.world.withState { world in
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
        where daemon.notifiers[key]?.subscribers.contains(characteristic) == true
            && (silent.isEmpty || !silent.keys.contains { characteristic.rawValue.hasPrefix("/org/bluez/\($0)/") })
        {
            if sent == 0, state.content == .temperature { EmitLog.shared.record(peripheral: key.peripheral) }
            daemon.change(characteristic, BluetoothdAPI.characteristic, [("Value", .bytes(value))])
            sent += 1
            await daemon.paced()
        }
        return sent
    }

    /// The new notification interval takes effect now (the current wait is cut short).
    static func notifyIntervalChanged(_ daemon: isolated Bluetoothd) {
        for (key, state) in daemon.notifiers where state.content == .temperature {
            daemon.schedule(taskKey(daemon, key)) { daemon in await notifyPeriodically(daemon, key) }
        }
    }

    /// Sends `count` temperature notifications of peripheral `index` as fast as the bus takes
    /// them; returns how many were sent (fewer if the subscription ends meanwhile).
    static func burst(_ daemon: isolated Bluetoothd, peripheral index: Int, count: Int) async throws -> Int {
        guard
            let key = daemon.notifiers.first(where: { $0.key.peripheral == index && $0.value.content == .temperature })?
                .key
        else {
            throw MockError(
                name: "org.blectl.Mock.Error.NotNotifying", message: "no link has notifications enabled on that device")
        }
        var sent = 0
        for _ in 0..<count {
            guard daemon.running, daemon.notifiers[key] != nil else { break }
            sent += await notify(daemon, key) > 0 ? 1 : 0
        }
        return sent
    }

    /// Per peripheral: its device objects, whether a link is up, whether it notifies.
    static func snapshot(_ daemon: isolated Bluetoothd) -> [Int: (
        paths: [ObjectPath], connected: Bool, notifying: Bool
    )] {
        var result: [Int: (paths: [ObjectPath], connected: Bool, notifying: Bool)] = [:]
        for device in daemon.devices.values.sorted(by: { $0.path < $1.path }) {
            var entry = result[device.peripheral] ?? ([], false, false)
            entry.paths.append(device.path)
            entry.connected = entry.connected || device.link == .up
            entry.notifying = entry.notifying || !device.notifying.isEmpty
            result[device.peripheral] = entry
        }
        return result
    }
}
