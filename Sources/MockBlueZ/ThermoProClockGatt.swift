import Glibc

/// A ThermoPro TP358's display clock (docs/sensor-memory.md, "ThermoPro"): service
/// `…1910`, characteristic `…2b11` taking 10 bytes of local time (`A5`, year − 2000, month,
/// day, hour, minute, second, weekday, 24-hour flag, `5A`), never read back. The time is
/// turned into seconds since 1970 with this machine's time zone (`mktime`), not with blectl's
/// code, and set on the sensor's clock (``MockSensorMemoryStatus/lastSetTime``).
enum ThermoProClockGatt {
    static let serviceUUID = "00010203-0405-0607-0809-0a0b0c0d1910"
    static let clockUUID = "00010203-0405-0607-0809-0a0b0c0d2b11"

    /// A write: refused while a fault says so; a value not in the layout is refused as the
    /// firmware would ignore it (`InvalidValueLength`, `InvalidArguments`).
    static func write(_ daemon: isolated Bluetoothd, peripheral index: Int, _ value: [UInt8]) throws {
        guard value.count == 10 else { throw BluetoothdError.invalidArguments("Invalid Length") }
        guard value[0] == 0xA5, value[9] == 0x5A, (1...12).contains(value[2]), (1...31).contains(value[3]),
            value[4] < 24, value[5] < 60, value[6] < 60, (1...7).contains(value[7])
        else { throw BluetoothdError.invalidArguments("Invalid value") }
        var local = tm()
        local.tm_year = Int32(value[1]) + 100
        local.tm_mon = Int32(value[2]) - 1
        local.tm_mday = Int32(value[3])
        local.tm_hour = Int32(value[4])
        local.tm_min = Int32(value[5])
        local.tm_sec = Int32(value[6])
        local.tm_isdst = -1
        let seconds = mktime(&local)
        guard seconds >= 0 else { throw BluetoothdError.invalidArguments("Invalid value") }
        try daemon.world.withState { world in
            guard var memory = world.peripherals[index].memory else { return }
            if memory.faults.refusedClockWrites > 0 {
                memory.faults.refusedClockWrites -= 1
                world.peripherals[index].memory = memory
                throw BluetoothdError.notPermitted("Not paired")
            }
            memory.setClock(to: UInt32(truncatingIfNeeded: seconds))
            world.peripherals[index].memory = memory
        }
    }
}
