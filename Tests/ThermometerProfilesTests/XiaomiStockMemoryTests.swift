import SensorModel
import Testing
import ThermometerProfiles

/// Vectors from the public descriptions of the stock firmware (docs/sensor-memory.md,
/// "Xiaomi stock firmware"): the record layout `<IIhBhB` (lywsd02 and lywsd03mmc on PyPI,
/// keks51/lywsd03mmc-client, whose example record is index 107, 1702803600, 21.7/39, 20.6/37),
/// the range `11 05 00 00 12 05 00 00` (1297, 1298) a sensor answered in
/// JsBergbau/MiTemperature2 issue 36, and the clock `65 FC 54 5E` of issue 1 there.
@Suite("Xiaomi stock firmware memory protocol (ebe0ccb0)")
struct XiaomiStockMemoryTests {
    let memory = XiaomiStockMemory()
    /// The range the sensor of JsBergbau/MiTemperature2 issue 36 answered.
    let range = bytes(hex: "1105000012050000")
    /// Its clock, 0x5E54FC65 = 1582627941 (2020-02-25 10:52:21 UTC): hour 439618 since 1970.
    let clock = bytes(hex: "65fc545e")
    static let hour: UInt32 = 1_582_624_800

    private func reads(range: [UInt8]? = nil, clock: [UInt8]? = nil) -> [BluetoothUUID: [UInt8]] {
        var reads: [BluetoothUUID: [UInt8]] = [:]
        reads[XiaomiStockMemory.rangeUUID] = range ?? self.range
        reads[XiaomiStockMemory.clockUUID] = clock ?? self.clock
        return reads
    }

    private func indexWrite(_ hex: String) -> [MemoryWrite] {
        [MemoryWrite(characteristic: XiaomiStockMemory.indexUUID, value: bytes(hex: hex), withResponse: true)]
    }

    @Test("the service, the characteristics and the family")
    func identity() {
        #expect(memory.service == BluetoothUUID("ebe0ccb0-7a0a-4b0c-8a1a-6ff2997da3a6"))
        #expect(memory.notifyCharacteristic == BluetoothUUID("ebe0ccbc-7a0a-4b0c-8a1a-6ff2997da3a6"))
        #expect(memory.clockCharacteristic == BluetoothUUID("ebe0ccb7-7a0a-4b0c-8a1a-6ff2997da3a6"))
        #expect(memory.requestReads == [XiaomiStockMemory.rangeUUID, XiaomiStockMemory.clockUUID])
        #expect(memory.recordOrder == .oldestFirst)
        #expect(memory.subscribesAfterRequest)
        #expect(memory.family.id == "mibeacon")
        #expect(SensorMemoryProtocols.forFamily("mibeacon")?.family.id == "mibeacon")
        #expect(memory.stopWrites.isEmpty && memory.readClockWrites.isEmpty)
    }

    /// A live reading of `model` (as a MiBeacon frame's product id names it; nil: none told).
    static func heard(_ model: String?, profile: ProfileID = "mibeacon") -> Measurement {
        var measurement = Measurement(profile: profile, quantities: Quantities([.temperature: 21]), raw: "00")
        measurement.modelIndex = model.flatMap(XiaomiMiBeaconProfile.family.modelIndex(of:))
        return measurement
    }

    @Test("only the models that keep these records, as the product id names them; the LYWSD02 its own")
    func models() {
        func heard(_ model: String?, profile: ProfileID = "mibeacon") -> Measurement {
            Self.heard(model, profile: profile)
        }
        #expect(memory.keepsMemory(heard("LYWSD03MMC")) && memory.keepsMemory(heard("MHO-C401")))
        #expect(!memory.keepsMemory(heard("LYWSDCGQ")) && !memory.keepsMemory(heard("LYWSD02")))
        #expect(!memory.keepsMemory(heard(nil)) && !memory.keepsMemory(heard("LYWSD03MMC", profile: "pvvx")))
        let lywsd02 = XiaomiStockMemory(.lywsd02)
        #expect(lywsd02.keepsMemory(heard("LYWSD02")) && !lywsd02.keepsMemory(heard("LYWSD03MMC")))
        func model(_ memory: (any SensorMemoryProtocol)?) -> XiaomiStockMemory.Model? {
            (memory as? XiaomiStockMemory)?.model
        }
        #expect(model(SensorMemoryProtocols.forMeasurement(heard("LYWSD03MMC"))) == .lywsd03mmc)
        #expect(model(SensorMemoryProtocols.forMeasurement(heard("LYWSD02"))) == .lywsd02)
        #expect(model(SensorMemoryProtocols.forFamily("mibeacon", model: "LYWSD02")) == .lywsd02)
        #expect(model(SensorMemoryProtocols.forFamily("mibeacon", model: "MHO-C401")) == .lywsd03mmc)
        #expect(SensorMemoryProtocols.forMeasurement(heard("LYWSDCGQ")) == nil)
        #expect(SensorMemoryProtocols.forMeasurement(heard(nil, profile: "pvvx"))?.family.id == "pvvx")
    }

    @Test("the LYWSD02: records in 0.01 °C, the clock written with its display's zone hour")
    func lywsd02() throws {
        let lywsd02 = XiaomiStockMemory(.lywsd02)
        // Index 7, 09:00 UTC, highest 23.45 °C and 50 %, lowest 22.55 °C and 46 %.
        let record = bytes(hex: "07000000 90e47e65 2909 32 cf08 2e")
        guard case .record(let read) = try lywsd02.parse(record) else {
            Issue.record("not a record")
            return
        }
        #expect(read.measurement.quantities[.temperature] == 23 && read.measurement.quantities[.humidity] == 48)
        #expect(read.deviceTime == 0x657E_E490 && read.number == 7)
        // The same bytes from a LYWSD03MMC are tenths: 230 °C is refused.
        #expect(throws: SensorMemoryError.self) { try memory.parse(record) }
        #expect(lywsd02.setClockWrites(to: 0x657E_E490, utcOffset: 3600).first?.value == bytes(hex: "90e47e65 01"))
        #expect(lywsd02.setClockWrites(to: 0x657E_E490, utcOffset: -18_000).first?.value == bytes(hex: "90e47e65 fb"))
        #expect(memory.setClockWrites(to: 0x657E_E490, utcOffset: 3600).first?.value == bytes(hex: "90e47e65"))
        #expect(try lywsd02.parseClockRead(bytes(hex: "90e47e65 01")).deviceTime == 0x657E_E490)
    }

    @Test(
        "requests: the index to send from, one record an hour back from the sensor's clock and one more",
        arguments: [
            // 5 whole hours since the time asked (its hour 439613, at 10 past): 6 records, 1292...1297.
            (MemoryRequest.newer(than: hour - 5 * 3600 + 600), "0c050000", 1292, 6),
            (.newer(than: hour - 5 * 3600 + 600, skipping: 2), "0e050000", 1292, 6),
            // The same hour: only the newest record, which is not newer (it ends this hour).
            (.newer(than: hour + 60), "11050000", 1297, 1),
            (.newest(count: 10), "08050000", 1288, 10),
            (.newest(count: 10, skipping: 4), "0c050000", 1288, 10),
            // More than the sensor holds: from index 0.
            (.newest(count: 5000), "00000000", 0, 1298),
            (.newer(than: 0), "00000000", 0, 1298),
        ] as [(MemoryRequest, String, UInt32, UInt32)])
    func requests(_ request: MemoryRequest, _ hex: String, _ first: UInt32, _ last: UInt32) {
        let plan = memory.plan(for: request, reads: reads())
        #expect(plan.writes == indexWrite(hex))
        #expect(plan.firstNumber == first)
        #expect(plan.lastNumber == last)
    }

    @Test("nothing to ask: an empty memory, everything skipped, no range read")
    func emptyRequests() {
        #expect(memory.plan(for: .newest(count: 10), reads: reads(range: bytes(hex: "0000000000000000"))).writes == [])
        #expect(memory.plan(for: .newest(count: 10, skipping: 10), reads: reads()).writes == [])
        #expect(memory.plan(for: .newest(count: 10), reads: [:]).writes == [])
        #expect(memory.plan(for: .newest(count: 10), reads: reads(range: bytes(hex: "11050000"))).writes == [])
        // No clock: the whole memory, from index 0.
        let noClock = memory.plan(for: .newer(than: Self.hour), reads: [XiaomiStockMemory.rangeUUID: range])
        #expect(noClock.writes == indexWrite("00000000"))
    }

    @Test("the clock: read as 4 bytes or 5 (the LYWSD02's zone hour), set as 4 bytes with a response")
    func clockValues() throws {
        #expect(try memory.parseClockRead(clock) == SensorClockReading(deviceTime: 0x5E54_FC65))
        #expect(try memory.parseClockRead(clock + [0x03]) == SensorClockReading(deviceTime: 0x5E54_FC65))
        #expect(throws: SensorMemoryError.self) { try memory.parseClockRead([0x65, 0xFC, 0x54]) }
        #expect(throws: SensorMemoryError.self) { try memory.parseClockRead(clock + [0, 0]) }
        #expect(
            memory.setClockWrites(to: 1_700_000_000) == [
                MemoryWrite(
                    characteristic: XiaomiStockMemory.clockUUID, value: bytes(hex: "00f15365"), withResponse: true)
            ])
    }

    @Test(
        "records: index, time, the midpoints of the hour's extremes",
        arguments: [
            // keks51/lywsd03mmc-client's example: 21.7/39 and 20.6/37.
            ("6b000000 90b87e65 d900 27 ce00 25", 107, 1_702_803_600, 21.15, 38.0),
            // Below zero: -3.5/95 and -5.2/90.
            ("11050000 20f0545e ddff 5f ccff 5a", 1297, 1_582_624_800, -4.35, 92.5),
        ] as [(String, UInt32, UInt32, Double, Double)])
    func records(_ hex: String, _ number: UInt32, _ time: UInt32, _ celsius: Double, _ humidity: Double) throws {
        let notification = try memory.parse(bytes(hex: hex))
        guard case .record(let record) = notification else {
            Issue.record("not a record: \(notification)")
            return
        }
        #expect(record.number == number)
        #expect(record.deviceTime == time)
        #expect(record.measurement.profile == "mibeacon")
        #expect(record.measurement.quantities == Quantities([.temperature: celsius, .humidity: humidity]))
        // Both extremes stay in the raw value.
        #expect(record.measurement.raw == hex.split(separator: " ").joined())
    }

    @Test(
        "refused records",
        arguments: [
            ("6b000000 90b87e65 d900 27 ce00", SensorMemoryError.Kind.truncated),
            ("6b000000 90b87e65 d900 27 ce00 25 00", .oversized),
            ("6b000000 ffffffff d900 27 ce00 25", .erasedRecord),
            // The lowest above the highest.
            ("6b000000 90b87e65 ce00 27 d900 25", .impossibleValue),
            // 250 °C.
            ("6b000000 90b87e65 c409 27 c409 25", .impossibleValue),
        ] as [(String, SensorMemoryError.Kind)])
    func refused(_ hex: String, _ kind: SensorMemoryError.Kind) {
        #expect {
            try memory.parse(bytes(hex: hex))
        } throws: { error in
            (error as? SensorMemoryError)?.kind == kind
        }
    }

    private func record(_ index: UInt32, time: UInt32) -> [UInt8] {
        [index, time].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
            + bytes(hex: "d900 27 ce00 25")
    }

    @Test("a download by time: the older record passed over, renumbered from 1, over at the last one")
    func download() {
        let since = Self.hour - 5 * 3600 + 600
        var download = SensorMemoryDownload(memory, request: .newer(than: since), reads: reads())
        #expect(download.startWrites == indexWrite("0c050000"))
        // Before the index asked for: not this download's.
        if case .rejected(let error) = download.receive(record(1200, time: Self.hour - 97 * 3600)) {
            #expect(error.kind == .unexpectedRecord)
        } else {
            Issue.record("a record before the index asked for was taken")
        }
        // Index 1292, the hour the time asked is in: not newer.
        #expect(download.receive(record(1292, time: Self.hour - 5 * 3600)) == .ignored)
        var numbers: [UInt32] = []
        for index in UInt32(1293)...1297 {
            #expect(!download.isFinished)
            if case .record(let taken) = download.receive(record(index, time: Self.hour - (1297 - index) * 3600)) {
                numbers.append(taken.number)
            }
        }
        #expect(numbers == [2, 3, 4, 5, 6])
        #expect(download.isFinished && download.end == .sensorEnded && download.received == 5)
    }
}

/// The live value of `ebe0ccc1`: JsBergbau/MiTemperature2's README example `f8 07 4a d6 0b`
/// (quoted in its issue 76: 20.40 °C, 74 %, 3030 mV) and lhvo/LYWSD02MMC's README's
/// `c3 0a 36` (27.55 °C, 54 %).
@Suite("Xiaomi stock firmware live value over GATT (ebe0ccc1)")
struct XiaomiStockGATTProfileTests {
    let profile = XiaomiStockGATTProfile()

    @Test("the service and characteristic: in the standard registry, but no device is a thermometer by it")
    func identity() {
        #expect(profile.serviceUUIDs == [BluetoothUUID("ebe0ccb0-7a0a-4b0c-8a1a-6ff2997da3a6")])
        #expect(profile.isTemperatureCharacteristic(BluetoothUUID("ebe0ccc1-7a0a-4b0c-8a1a-6ff2997da3a6")!))
        #expect(ProfileRegistry.standard.profile(forService: XiaomiStockMemory.serviceUUID) is XiaomiStockGATTProfile)
        // Once connected a stock sensor lists ebe0ccb0: found by it, blectld would hold a link to every one.
        #expect(!profile.isFoundByService)
        #expect(!ProfileRegistry.standard.identifyingServiceUUIDs.contains(XiaomiStockMemory.serviceUUID))
    }

    @Test(
        "values: 5 bytes with the battery voltage, the LYWSD02's 3 without",
        arguments: [
            ("f8074ad60b", Quantities([.temperature: 20.4, .humidity: 74, .voltage: 3.03])),
            ("c30a36", Quantities([.temperature: 27.55, .humidity: 54])),
            ("62fd32b80b", Quantities([.temperature: -6.7, .humidity: 50, .voltage: 3])),
        ])
    func values(_ hex: String, _ quantities: Quantities) throws {
        let measurement = try profile.decode(bytes(hex: hex)).get()
        #expect(measurement.profile == "xiaomi-gatt")
        #expect(measurement.quantities == quantities)
        #expect(measurement.raw == hex)
    }

    @Test("other lengths are malformed; an impossible temperature is out of range")
    func refused() {
        for hex in ["f807", "f8074a", "f8074ad6", "f8074ad60b00"] where hex != "f8074a" {
            #expect(throws: ReadingError.self) { try profile.decode(bytes(hex: hex)).get() }
        }
        #expect(throws: ReadingError.self) { try profile.decode(bytes(hex: "c05d32")).get() }  // 240.00 °C
    }
}
