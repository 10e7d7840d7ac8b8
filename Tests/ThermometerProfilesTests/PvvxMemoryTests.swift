import SensorModel
import Testing
import ThermometerProfiles

/// Vectors built from the firmware's own definitions (pvvx/ATC_MiThermometer at 7363cc8,
/// docs/sensor-memory.md): `memo_blk_t` in `src/logger.h` (uint32 time, int16 temperature
/// × 0.01 °C, uint16 humidity × 0.01 %, uint16 battery mV), framed by `send_memo_blk` in
/// `src/ble.c` (`35`, the 16-bit record number, the block; `35 00 00` at the end), and the
/// `CMD_ID_UTC_TIME` branch of `cmd_parser` in `src/cmd_parser.c`. The request vector
/// `35 b0 4c 00 00` is what pvvx's own GraphMemo.html writes.
@Suite("pvvx memory protocol (0x1F10/0x1F1F)")
struct PvvxMemoryTests {
    let memory = PvvxMemory()

    @Test("the command characteristic and the family")
    func identity() {
        #expect(memory.service == BluetoothUUID(UInt16(0x1F10)))
        #expect(memory.notifyCharacteristic == BluetoothUUID(UInt16(0x1F1F)))
        #expect(memory.family.id == "pvvx")
        #expect(memory.recordOrder == .newestFirst)
        #expect(SensorMemoryProtocols.forFamily("pvvx")?.family.id == "pvvx")
        #expect(SensorMemoryProtocols.forFamily("pvvx-encrypted")?.family.id == "pvvx")
        #expect(SensorMemoryProtocols.forFamily("bthome") == nil)
    }

    @Test(
        "requests: count then skip, 16 bits each, little-endian, written without response",
        arguments: [
            // GraphMemo.html: "get-memo (0..19632 samples)".
            (MemoryRequest.newest(count: 19632), "35b04c0000"),
            (.newest(count: 10), "350a000000"),
            // The firmware counts skipped records in its count: numbers 6...15.
            (.newest(count: 10, skipping: 5), "350f000500"),
            (.newer(than: 1_700_000_000), "35ffff0000"),
            (.newer(than: 1_700_000_000, skipping: 300), "35ffff2c01"),
            (.newest(count: 100_000), "35ffff0000"),
        ])
    func requests(_ request: MemoryRequest, _ hex: String) {
        let writes = memory.requestWrites(for: request)
        #expect(
            writes == [
                MemoryWrite(characteristic: PvvxMemory.characteristicUUID, value: bytes(hex: hex), withResponse: false)
            ])
    }

    @Test("nothing to ask: no write", arguments: [MemoryRequest.newest(count: 0), .newest(count: 1, skipping: 0xFFFF)])
    func emptyRequests(_ request: MemoryRequest) {
        #expect(memory.requestWrites(for: request).isEmpty)
    }

    @Test("stop, clock read and clock set")
    func commands() {
        #expect(memory.stopWrites.map(\.value) == [bytes(hex: "350000")])
        #expect(memory.readClockWrites.map(\.value) == [[0x23]])
        // 1700000000 = 0x6553F100.
        #expect(memory.setClockWrites(to: 1_700_000_000).map(\.value) == [bytes(hex: "2300f15365")])
    }

    @Test(
        "records: number, time, temperature, humidity, voltage",
        arguments: [
            ("3501 00 00f15365 2f09 aa17 3d0b", 1, 1_700_000_000, 23.51, 60.58, 2.877),
            // Below zero (int16), humidity 100.00 %, number 300.
            ("352c 01 00f15365 62fd 1027 470c", 300, 1_700_000_000, -6.7, 100, 3.143),
            // A clock never set counts from 0 (1970): a real record, for the drift to correct.
            ("3502 00 10270000 3408 8813 b80b", 2, 10_000, 21.0, 50, 3.0),
        ] as [(String, UInt32, UInt32, Double, Double, Double)])
    func records(
        _ hex: String, _ number: UInt32, _ time: UInt32, _ celsius: Double, _ humidity: Double, _ volts: Double
    ) throws {
        let notification = try memory.parse(bytes(hex: hex))
        guard case .record(let record) = notification else {
            Issue.record("not a record: \(notification)")
            return
        }
        #expect(record.number == number)
        #expect(record.deviceTime == time)
        #expect(record.measurement.profile == "pvvx")
        #expect(
            record.measurement.quantities == Quantities([.temperature: celsius, .humidity: humidity, .voltage: volts]))
        #expect(record.measurement.raw == bytes(hex: hex).hexString)
        #expect(record.dropped.isEmpty)
    }

    @Test("the end marker, clock answers, error replies and other commands")
    func otherNotifications() throws {
        #expect(try memory.parse(bytes(hex: "350000")) == .end)
        #expect(try memory.parse(bytes(hex: "2300f15365")) == .clock(SensorClockReading(deviceTime: 1_700_000_000)))
        #expect(
            try memory.parse(bytes(hex: "2300f1536580f15365"))
                == .clock(SensorClockReading(deviceTime: 1_700_000_000, lastSetTime: 1_700_000_128)))
        #expect(try memory.parse(bytes(hex: "23ff")) == .refused(command: 0x23))
        // CMD_ID_MEASURE's notification on the same characteristic.
        #expect(try memory.parse(bytes(hex: "332f09aa173d0b4b")) == .unrelated)
    }

    @Test("a humidity out of range is left out; the record stands")
    func droppedHumidity() throws {
        guard case .record(let record) = try memory.parse(bytes(hex: "3501 00 00f15365 2f09 ffff 3d0b")) else {
            Issue.record("not a record")
            return
        }
        #expect(record.measurement.quantities[.humidity] == nil)
        #expect(record.measurement.quantities[.temperature] == 23.51)
        #expect(record.dropped.map(\.kind) == [.outOfRange])
    }

    @Test(
        "malformed notifications are typed errors",
        arguments: [
            ("", SensorMemoryError.Kind.truncated),
            ("35", .truncated),
            ("3501", .truncated),
            ("3501 00 00f15365 2f09 aa17 3d", .truncated),
            ("3501 00 00f15365 2f09 aa17 3d0b 00", .oversized),
            ("23 00f153", .truncated),
            ("23 00f1536580ef536500", .oversized),
            // Erased flash, as a record torn by a power cut reads.
            ("3501 00 ffffffff ffff ffff ffff", .erasedRecord),
            // write_memo stamps 0xfffffffe when the clock reads 0xffffffff.
            ("3501 00 feffffff 2f09 aa17 3d0b", .impossibleTime),
            // 200.01 °C and −60.01 °C.
            ("3501 00 00f15365 214e aa17 3d0b", .impossibleValue),
            ("3501 00 00f15365 8fe8 aa17 3d0b", .impossibleValue),
        ] as [(String, SensorMemoryError.Kind)])
    func malformed(_ hex: String, _ kind: SensorMemoryError.Kind) {
        #expect(throws: SensorMemoryError.self) { try memory.parse(bytes(hex: hex)) }
        do {
            _ = try memory.parse(bytes(hex: hex))
        } catch {
            #expect(error.kind == kind)
            #expect(error.raw == bytes(hex: hex))
        }
    }

    @Test("every short or random value parses or throws, never traps")
    func neverTraps() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<20 {
            for _ in 0..<200 {
                var value = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if !value.isEmpty, Bool.random(using: &generator) { value[0] = [0x35, 0x23][Int.random(in: 0...1)] }
                _ = try? memory.parse(value)
            }
        }
    }
}
