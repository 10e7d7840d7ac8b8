import DBusCore

/// A stock-firmware memory sensor's service ebe0ccb0 as Xiaomi's LYWSD03MMC firmware answers
/// it (docs/sensor-memory.md, "Xiaomi stock firmware"): the clock, the range, the index to
/// send from, the records sent oldest first once notifications are on, the live value.
enum StockMemoryGatt {
    /// The characteristics of the service.
    enum Role: Sendable, Equatable {
        /// `ebe0ccb7`: the clock, uint32 (read, write).
        case clock
        /// `ebe0ccb9`: the newest record's index and the next index (read).
        case range
        /// `ebe0ccba`: the index records are sent from (read, write).
        case index
        /// `ebe0ccbc`: the records (notify).
        case records
        /// `ebe0ccc1`: temperature, humidity, battery voltage (read, notify).
        case live
    }

    static func uuid(_ prefix: String) -> String { prefix + "-7a0a-4b0c-8a1a-6ff2997da3a6" }
    static let serviceUUID = uuid("ebe0ccb0")

    /// The characteristics of the service, in the firmware's handle order.
    static let characteristics: [(uuid: String, flags: [String], role: Role)] = [
        (uuid("ebe0ccb7"), ["read", "write"], .clock),
        (uuid("ebe0ccb9"), ["read"], .range),
        (uuid("ebe0ccba"), ["read", "write"], .index),
        (uuid("ebe0ccbc"), ["notify"], .records),
        (uuid("ebe0ccc1"), ["read", "notify"], .live),
    ]

    /// A read of the characteristic playing `role`.
    static func read(_ daemon: isolated Bluetoothd, peripheral index: Int, _ role: Role) -> [UInt8] {
        daemon.world.withState { world -> [UInt8] in
            guard var memory = world.peripherals[index].memory else { return [] }
            memory.catchUp()
            world.peripherals[index].memory = memory
            switch role {
            case .clock:
                // The LYWSD02 adds its display's zone hour (0 here).
                let zone: [UInt8] = memory.spec.firmware == .xiaomiStockLYWSD02 ? [0] : []
                return littleEndianBytes(Int(memory.time()), 4) + zone
            case .range:
                return littleEndianBytes(max(0, memory.written - 1), 4) + littleEndianBytes(memory.written, 4)
            case .index: return littleEndianBytes(Int(memory.sendFrom), 4)
            case .records: return []
            case .live:
                let advertiser = world.peripherals[index].advertiser
                let value =
                    littleEndianBytes(advertiser?.centiCelsius ?? 0, 2)
                    + [UInt8(clamping: (advertiser?.centiHumidity ?? 0) / 100)] + littleEndianBytes(2950, 2)
                return memory.spec.firmware == .xiaomiStockLYWSD02 ? Array(value.prefix(3)) : value
            }
        }
    }

    /// A write to the characteristic playing `role`: the clock (refused while a fault says
    /// so: `NotAuthorized`, as a write request to a protected characteristic fails) or the index.
    static func write(_ daemon: isolated Bluetoothd, peripheral index: Int, _ role: Role, _ value: [UInt8]) throws {
        switch role {
        case .clock:
            let refused = daemon.world.withState { world -> Bool in
                guard world.peripherals[index].memory?.faults.refusedClockWrites ?? 0 > 0 else { return false }
                world.peripherals[index].memory?.faults.refusedClockWrites -= 1
                return true
            }
            if refused { throw BluetoothdError.notPermitted("Not paired") }
            guard value.count >= 4 else { throw BluetoothdError.invalidArguments("Invalid Length") }
            daemon.world.withState { $0.peripherals[index].memory?.setClock(bytes: Array(value.prefix(4))) }
        case .index:
            guard value.count == 4 else { throw BluetoothdError.invalidArguments("Invalid Length") }
            let from = value.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            daemon.world.withState { $0.peripherals[index].memory?.sendFrom = from }
        case .range, .records, .live:
            throw BluetoothdError.notPermitted("Write not permitted")
        }
    }

    /// Notifications switched on for the records: sends them from the index held to the
    /// newest, one per pace, with the pvvx sensor's faults (a dropped link, an erased record).
    static func startDownload(
        _ daemon: isolated Bluetoothd, device: ObjectPath, characteristic: ObjectPath, peripheral index: Int
    ) {
        let (records, pace, faults) = daemon.world.withState {
            world -> ([[UInt8]], Duration, MemorySensorFaults) in
            guard var memory = world.peripherals[index].memory else { return ([], .zero, MemorySensorFaults()) }
            let faults = memory.startDownload()
            world.peripherals[index].memory = memory
            let records = memory.records.indices.compactMap { position -> [UInt8]? in
                let recordIndex = memory.index(at: position)
                let hundredths = memory.spec.firmware == .xiaomiStockLYWSD02
                return recordIndex >= memory.sendFrom
                    ? memory.records[position].stockBytes(index: recordIndex, hundredths: hundredths) : nil
            }
            return (records, memory.spec.pace, faults)
        }
        daemon.schedule(MemorySensorGatt.taskKey(device), after: pace) { daemon in
            var sent = 0
            for record in records {
                guard daemon.devices[device]?.link == .up, !Task.isCancelled else { return }
                sent += 1
                let value = faults.corruptRecord == sent ? Array(repeating: 0xFF, count: record.count) : record
                guard daemon.devices[device]?.notifying.contains(characteristic) == true else { return }
                daemon.change(characteristic, BluetoothdAPI.characteristic, [("Value", .bytes(value))])
                if faults.disconnectAfter == sent {
                    DeviceLinks.linkLost(daemon, device, dropNotifySessions: false)
                    return
                }
                do { try await Task.sleep(for: pace) } catch { return }
            }
        }
    }
}
