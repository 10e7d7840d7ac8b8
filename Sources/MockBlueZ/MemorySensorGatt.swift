import DBusCore

/// A memory sensor's command characteristic (0x1F1F) as the pvvx firmware answers it:
/// `cmd_parser` for writes, `send_memo_blk` for the download (docs/sensor-memory.md).
enum MemorySensorGatt {
    static let serviceUUID = GattUUID.sig(0x1F10)
    static let characteristicUUID = GattUUID.sig(0x1F1F)
    static let loggerCommand: UInt8 = 0x35
    static let clockCommand: UInt8 = 0x23
    static let clearCommand: UInt8 = 0x36

    /// A write to the characteristic at `path` of `device`; `isCommand` for a write without
    /// response (a refusal then goes unanswered, as over the air).
    static func write(
        _ daemon: isolated Bluetoothd, device: DeviceState, path: ObjectPath, _ value: [UInt8], isCommand: Bool
    ) throws {
        guard let command = value.first else { return }
        let index = device.peripheral
        switch command {
        case loggerCommand where value.count >= 3:
            let count = Int(value[1]) | Int(value[2]) << 8
            let skip = value.count >= 5 ? Int(value[3]) | Int(value[4]) << 8 : 0
            daemon.tasks.cancel(taskKey(device.path))
            guard count > 0 else { return }
            startDownload(
                daemon, device: device.path, characteristic: path, peripheral: index, count: count, skip: skip)
        case clockCommand:
            let refused = daemon.world.withState { world -> Bool in
                guard value.count > 1, world.peripherals[index].memory?.faults.refusedClockWrites ?? 0 > 0 else {
                    return false
                }
                world.peripherals[index].memory?.faults.refusedClockWrites -= 1
                return true
            }
            if refused {
                // The pin code's "secure connection" permission: an ATT error for a request,
                // nothing at all for a command.
                if isCommand { return }
                throw BluetoothdError.notPermitted("Not paired")
            }
            let answer = daemon.world.withState { world -> [UInt8] in
                if value.count > 1 { world.peripherals[index].memory?.setClock(bytes: Array(value.dropFirst())) }
                guard let memory = world.peripherals[index].memory else { return [] }
                return [clockCommand] + littleEndianBytes(Int(memory.time()), 4)
                    + littleEndianBytes(Int(memory.lastSetTime), 4)
            }
            notify(daemon, device: device.path, characteristic: path, peripheral: index, answer)
        case clearCommand where value.count >= 3 && value[1] == 0x12 && value[2] == 0x34:
            daemon.world.withState { $0.peripherals[index].memory?.clear() }
            notify(daemon, device: device.path, characteristic: path, peripheral: index, [clearCommand, 0x00])
        default:
            notify(daemon, device: device.path, characteristic: path, peripheral: index, [command, 0xFF])
        }
    }

    /// The download task of a link: one of them at a time.
    static func taskKey(_ device: ObjectPath) -> String { "memory:\(device)" }

    /// Sends records `skip+1`… `count` of the memory as it is now, one per pace, then the end.
    private static func startDownload(
        _ daemon: isolated Bluetoothd, device: ObjectPath, characteristic: ObjectPath, peripheral index: Int,
        count: Int, skip: Int
    ) {
        let (snapshot, pace, faults) = daemon.world.withState {
            world -> ([MemoryRecord], Duration, MemorySensorFaults) in
            guard var memory = world.peripherals[index].memory else { return ([], .zero, MemorySensorFaults()) }
            let faults = memory.startDownload()
            world.peripherals[index].memory = memory
            return (memory.records, memory.spec.pace, faults)
        }
        daemon.schedule(taskKey(device), after: pace) { daemon in
            var sent = 0
            for number in (skip + 1)...max(count, skip + 1) {
                guard number <= count, number <= snapshot.count else { break }
                guard linkUp(daemon, device), !Task.isCancelled else { return }
                var block = snapshot[snapshot.count - number].bytes
                sent += 1
                if faults.corruptRecord == sent { block = Array(repeating: 0xFF, count: block.count) }
                let value = [loggerCommand] + littleEndianBytes(number, 2) + block
                notify(daemon, device: device, characteristic: characteristic, peripheral: index, value)
                if faults.disconnectAfter == sent {
                    DeviceLinks.linkLost(daemon, device, dropNotifySessions: false)
                    return
                }
                do { try await Task.sleep(for: pace) } catch { return }
            }
            guard linkUp(daemon, device) else { return }
            notify(daemon, device: device, characteristic: characteristic, peripheral: index, [loggerCommand, 0, 0])
        }
    }

    private static func linkUp(_ daemon: isolated Bluetoothd, _ device: ObjectPath) -> Bool {
        daemon.devices[device]?.link == .up
    }

    /// Notifies `value` to the link, if it has notifications on; a read returns it after.
    private static func notify(
        _ daemon: isolated Bluetoothd, device: ObjectPath, characteristic: ObjectPath, peripheral index: Int,
        _ value: [UInt8]
    ) {
        daemon.world.withState { $0.peripherals[index].memory?.lastAnswer = value }
        guard daemon.devices[device]?.notifying.contains(characteristic) == true else { return }
        daemon.change(characteristic, BluetoothdAPI.characteristic, [("Value", .bytes(value))])
    }
}
