import SensorModel
import Testing
import ThermometerProfiles

/// ThermoPro's display clock: the bytes written, and which sensors have one.
struct ThermoProClockTests {
    /// (seconds since 1970, the zone's offset, the value) as thermopro-ble 1.1.4's
    /// `ThermoProDevice.pack_datetime(datetime.fromtimestamp(t, timezone(offset)), False)` gives it.
    static let vectors: [(UInt32, Int, String)] = [
        (1_765_000_000, 0, "a5190c06052e2806015a"),
        (1_765_000_000, 3600, "a5190c06062e2806015a"),
        (1_765_000_000, -18_000, "a5190c06002e2806015a"),
        (951_782_400, 0, "a500021d00000002015a"),  // 2000-02-29, a Tuesday
        (2_000_000_000, 19_800, "a521051209031403015a"),  // India, +05:30
    ]

    @Test("the value written is thermopro-ble's for the same time and zone, with a response")
    func written() throws {
        let clock = ThermoProClock()
        for (time, offset, hex) in Self.vectors {
            let writes = clock.setClockWrites(to: time, utcOffset: offset)
            #expect(writes.count == 1)
            let write = try #require(writes.first)
            #expect(write.value.hexString == hex, "\(time) at \(offset)")
            #expect(write.characteristic == ThermoProClock.clockUUID && write.withResponse)
        }
        #expect(clock.setClockWrites(to: 1_765_000_000) == clock.setClockWrites(to: 1_765_000_000, utcOffset: 0))
    }

    @Test("only the TP358 and TP393 have the clock, told by the name; no records, nothing notified or read")
    func whichSensors() throws {
        let clock = ThermoProClock()
        for (name, has) in [("TP358 (0001)", true), ("TP393 (1A2B)", true), ("TP357S (2142)", false), ("TP357", false)]
        {
            let reading = try #require(decode(bytes(hex: "0029220b01"), in: .manufacturerData(0xEEC2), name: name))
            #expect(clock.keepsMemory(try reading.get().measurement) == has, "\(name)")
        }
        #expect(!clock.readsRecords && !clock.notifies && !clock.clockCanBeRead)
        #expect(clock.requestWrites(for: .newest(count: 10)).isEmpty)
        #expect(SensorMemoryProtocols.forFamily("thermopro") is ThermoProClock)
        #expect(throws: SensorMemoryError.self) { try clock.parse([0x01]) }
    }

    @Test("a ThermoPro names its model by the longest model its name holds")
    func modelByName() throws {
        let family = ThermoProProfile.family
        #expect(family.modelIndex(named: "TP357S (2142)").map { family.models[Int($0)] } == "TP357S")
        #expect(family.modelIndex(named: "TP357 (2142)").map { family.models[Int($0)] } == "TP357")
        #expect(family.modelIndex(named: "TP960R") == nil)
    }
}
