import CNettle
import DBusCore

/// An advertising sensor's state as it runs: its measurement and counter.
struct AdvertiserState: Sendable {
    let spec: MockAdvertiser
    /// Temperature in hundredths of a degree, humidity in hundredths of a percent.
    private(set) var centiCelsius: Int
    private(set) var centiHumidity = 4850
    private(set) var battery = 87
    /// The sensor's own counter, one more per measurement (BTHome's packet id, pvvx's and
    /// ATC1441's frame counter, Ruuvi's measurement sequence, BTHome's encryption counter).
    private(set) var counter: UInt32 = 1
    private var advertisementsOfMeasurement = 0

    init(_ spec: MockAdvertiser) {
        self.spec = spec
        centiCelsius = Int((spec.startCelsius * 100).rounded())
        if let stuck = spec.stuckHumidity { centiHumidity = Int((stuck * 100).rounded()) }
    }

    /// A sensor that measured the given values.
    init(_ spec: MockAdvertiser, centiCelsius: Int, centiHumidity: Int, battery: Int, counter: UInt32) {
        self.spec = spec
        self.centiCelsius = centiCelsius
        self.centiHumidity = centiHumidity
        self.battery = battery
        self.counter = counter
    }

    /// Counts one advertisement; every `repeats` of them the sensor measures anew.
    mutating func advance(using random: inout SplitMix64) {
        advertisementsOfMeasurement += 1
        guard advertisementsOfMeasurement > spec.repeats else { return }
        advertisementsOfMeasurement = 1
        counter &+= 1
        // Whole tenths, so every format (0.1 °C for ATC1441 and Govee) shows the same value.
        centiCelsius = min(max(centiCelsius + 10 * Int.random(in: -2...2, using: &random), 500), 3500)
        guard spec.stuckHumidity == nil else { return }
        centiHumidity = min(max(centiHumidity + 10 * Int.random(in: -5...5, using: &random), 2000), 8000)
    }

    /// The advertisement's data for the sensor at `address`, with what its scan response
    /// carries when `scanResponse` (active scanning asks for it).
    func advertisement(
        address: [UInt8], scanResponse: Bool = true
    ) -> (serviceData: [String: [UInt8]], manufacturerData: [UInt16: [UInt8]]) {
        switch spec.format {
        case .bthome: ([GattUUID.sig(0xFCD2): [0x40] + bthomeObjects(packetID: true)], [:])
        case .bthomeEncrypted: ([GattUUID.sig(0xFCD2): bthomeEncrypted(address: address)], [:])
        case .pvvx: ([GattUUID.sig(0x181A): pvvx(address: address)], [:])
        case .atc1441: ([GattUUID.sig(0x181A): atc1441(address: address)], [:])
        case .ruuvi: ([:], [0x0499: ruuvi(address: address)])
        case .goveeH5075:
            ([:], scanResponse ? [0x004C: GoveeBeacon.payload, 0xEC88: govee()] : [0x004C: GoveeBeacon.payload])
        case .miBeacon: ([GattUUID.sig(0xFE95): miBeacon(address: address, encrypted: false)], [:])
        case .miBeaconEncrypted: ([GattUUID.sig(0xFE95): miBeacon(address: address, encrypted: true)], [:])
        case .qingping: ([GattUUID.sig(0xFDCD): qingping(address: address)], [:])
        case .thermoBeacon: ([:], [0x0011: thermoBeacon(address: address)])
        case .inkbird: ([:], inkbird())
        case .inkbirdITH: ([:], [0x2449: inkbirdITH()])
        case .thermoPro: ([:], thermoPro())
        case .switchBot:
            (
                scanResponse
                    ? [GattUUID.sig(0xFD3D): [0x54, 0x00, 0x80 | UInt8(battery)] + switchBotMeasurement()] : [:],
                [0x0969: address + [0xDE, 0x03] + switchBotMeasurement()]
            )
        case .switchBotOutdoor:
            (
                scanResponse ? [GattUUID.sig(0xFD3D): [0x77, 0x00, 0x80 | UInt8(battery)]] : [:],
                [0x0969: address + [0xE0, 0x0F] + switchBotMeasurement() + [0x00]]
            )
        case .goveeH5051:
            (
                [:],
                [
                    0xEC88: [0x00] + littleEndian(centiCelsius, 2) + littleEndian(centiHumidity, 2) + [
                        UInt8(battery), 0x02, 0x01, 0x01,
                    ]
                ]
            )
        case .goveeH5100: ([:], [0x0001: [0x01, 0x01] + goveePacked() + [UInt8(battery)]])
        case .goveeH5106: ([:], [0x0001: [0x01, 0x01] + goveeH5106()])
        case .goveeB5178: ([:], [0x0001: [0x01, 0x01, 0x00] + goveePacked() + [UInt8(battery), 0x00, 0x03]])
        case .goveeH5179:
            (
                [:],
                scanResponse
                    ? [
                        0x8801: [0xEC, 0x00, 0x01, 0x01] + littleEndian(centiCelsius, 2)
                            + littleEndian(centiHumidity, 2) + [UInt8(battery)]
                    ]
                    : [:]
            )
        case .sensorPushHT1: ([:], companyIDIsData(sensorPushHT1()))
        case .sensorPushHTw: ([:], companyIDIsData(sensorPushHTw()))
        case .sensorPushHTPxw: ([:], companyIDIsData(sensorPushHTPxw()))
        case .bthomeV1: ([GattUUID.sig(0x181C): bthomeV1Objects(packetID: true)], [:])
        case .bthomeV1Encrypted: ([GattUUID.sig(0x181E): bthomeV1Encrypted(address: address)], [:])
        case .pvvxEncrypted:
            (
                [
                    GattUUID.sig(0x181A): pvvxEncrypted(
                        address: address,
                        littleEndian(centiCelsius, 2) + littleEndian(centiHumidity, 2) + [UInt8(battery), 0x00])
                ], [:]
            )
        case .blueMaestro: ([:], [0x0133: blueMaestro()])
        case .switchBotCO2:
            (
                scanResponse ? [GattUUID.sig(0xFD3D): [0x35, 0x00, UInt8(battery)]] : [:],
                [0x0969: address + [0xB7, 0xE4] + switchBotMeasurement() + [0x00, 0x37] + bigEndian(co2, 2) + [0x00]]
            )
        case .qingpingCO2: ([GattUUID.sig(0xFDCD): qingpingCO2(address: address)], [:])
        case .goveeMeat: ([:], [0x1B36: goveeMeat()])
        case .inkbirdBBQ: ([:], [0x0000: inkbirdBBQ(address: address)])
        case .thermoProProbe: ([:], companyIDIsData(thermoProProbe()))
        case .ruuviAir: ([:], [0x0499: ruuviAir(address: address)])
        case .atc1441Encrypted:
            // The firmware's rounding (C division: toward zero): (hundredths + 25) / 50 half units,
            // the temperature 80 of them above -40 °C.
            (
                [
                    GattUUID.sig(0x181A): pvvxEncrypted(
                        address: address,
                        [
                            UInt8((centiCelsius + 25) / 50 + 80), UInt8((centiHumidity + 25) / 50),
                            UInt8(battery),
                        ])
                ], [:]
            )
        }
    }

    /// `data` as BlueZ files it: its first two bytes (little-endian) as the company id.
    private func companyIDIsData(_ data: [UInt8]) -> [UInt16: [UInt8]] {
        [UInt16(data[1]) << 8 | UInt16(data[0]): Array(data.dropFirst(2))]
    }

    /// An HT1's 4 bytes: humidity and temperature readings of 12 and 14 bits, the device type
    /// 1. A reading at an exact midpoint of 0.01 (where Home Assistant's floating-point
    /// rounding and blectl's exact rounding part) is moved one step.
    private func sensorPushHT1() -> [UInt8] {
        var humidity = dividedNearest((centiHumidity + 600) * 4096, 12_500)
        if humidity % 1024 == 512 { humidity += 1 }
        var temperature = dividedNearest((centiCelsius + 4685) * 16_384, 17_572)
        if temperature % 4096 == 2048 { temperature += 1 }
        return [
            UInt8(humidity & 0xFF), UInt8(humidity >> 8 & 0x0F) | UInt8(temperature & 0x0F) << 4,
            UInt8(temperature >> 4 & 0xFF), UInt8(temperature >> 12 & 3) | 1 << 2,
        ]
    }

    /// An HT.w's 5 bytes: page 0 and type 1, then the temperature's 0.0025 °C steps from
    /// -40 °C plus 66001 times the humidity's 0.0025 % steps.
    private func sensorPushHTw() -> [UInt8] {
        [0x04] + littleEndian(centiCelsius * 4 + 16_000 + 66_001 * centiHumidity * 4, 4)
    }

    /// An HTP.xw's 7 bytes: page 0 and type 0, then temperature, humidity and pressure
    /// (pascals from 30000) by mixed radix 72001, 40001.
    private func sensorPushHTPxw() -> [UInt8] {
        let pascals = 101_325 - 50 * 100 + centiHumidity
        return [0x00]
            + littleEndian(centiCelsius * 4 + 16_000 + 72_001 * (centiHumidity * 4 + 40_001 * (pascals - 30_000)), 6)
    }

    /// Govee's packed measurement's three bytes: whole tenths of a degree × 1000 plus tenths
    /// of a percent, bit 23 the sign.
    private func goveePacked() -> [UInt8] {
        bigEndian(abs(centiCelsius / 10) * 1000 + centiHumidity / 10 | (centiCelsius < 0 ? 0x80_0000 : 0), 3)
    }

    /// An H5106's 4 bytes: tenths of a degree × 10⁶, tenths of a percent × 1000, a PM2.5 of
    /// 12 µg/m³; bit 31 the sign.
    private func goveeH5106() -> [UInt8] {
        bigEndian(
            abs(centiCelsius / 10) * 1_000_000 + centiHumidity / 10 * 1000 + 12 | (centiCelsius < 0 ? 0x8000_0000 : 0),
            4)
    }

    /// SwitchBot's three bytes: the tenths (low nibble), the whole degrees with bit 7 set
    /// above zero, the humidity (%).
    private func switchBotMeasurement() -> [UInt8] {
        let tenths = abs(centiCelsius / 10)
        return [
            UInt8(tenths % 10), UInt8(tenths / 10 & 0x7F) | (centiCelsius >= 0 ? 0x80 : 0), UInt8(centiHumidity / 100),
        ]
    }

    /// An IBS-TH1's 9 bytes: temperature (hundredths, where BlueZ reads the company id),
    /// humidity (hundredths), a zero, two bytes that vary (the mock's counter, little-endian),
    /// battery (%), 0x06.
    private func inkbird() -> [UInt16: [UInt8]] {
        [
            UInt16(truncatingIfNeeded: centiCelsius): littleEndian(centiHumidity, 2) + [0x00]
                + littleEndian(Int(counter), 2)
                + [UInt8(battery), 0x06]
        ]
    }

    /// An ITH-13-B's 18 bytes after the company id 0x2449: four bytes, temperature and
    /// humidity (tenths), battery (%), zeros.
    private func inkbirdITH() -> [UInt8] {
        [0x12, 0x23, 0x05, 0x2F] + littleEndian(centiCelsius / 10, 2) + littleEndian(centiHumidity / 10, 2)
            + [UInt8(battery)] + [UInt8](repeating: 0, count: 7)
    }

    /// A TP357S's data: 0xC2, temperature (tenths, its low byte in the company id), humidity
    /// (%), the battery level (0, 1, 2: low, half, full) with 0x20, 0x0B 0x01.
    private func thermoPro() -> [UInt16: [UInt8]] {
        let tenths = littleEndian(centiCelsius / 10, 2)
        let level: UInt8 = battery >= 67 ? 2 : battery >= 34 ? 1 : 0
        return [UInt16(tenths[0]) << 8 | 0xC2: [tenths[1], UInt8(centiHumidity / 100), 0x20 | level, 0x0B, 0x01]]
    }

    private var millivolts: Int { 2400 + battery * 6 }

    private func bthomeObjects(packetID: Bool) -> [UInt8] {
        (packetID ? [0x00, UInt8(truncatingIfNeeded: counter)] : []) + [0x01, UInt8(battery)]
            + [0x02] + littleEndian(centiCelsius, 2) + [0x03] + littleEndian(centiHumidity, 2)
    }

    /// The pvvx firmware's encrypted custom formats: the counter, `data` sealed with the bind key,
    /// the associated data 0x11 and the nonce address (least significant byte first) and the
    /// advertisement structure's header (length, 0x16, 0x181A, counter); then the tag.
    private func pvvxEncrypted(address: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let header: [UInt8] = [UInt8(3 + 1 + data.count + 4), 0x16, 0x1A, 0x18, UInt8(truncatingIfNeeded: counter)]
        let sealed = CCMSealer.seal(
            data, nonce: address.reversed() + header, key: MockAdvertiser.bthomeKey, associatedData: [0x11])
        return [header[4]] + sealed
    }

    /// BTHome v1's objects: a control byte (format, length), the type, the data.
    private func bthomeV1Objects(packetID: Bool) -> [UInt8] {
        (packetID ? [0x02, 0x00, UInt8(truncatingIfNeeded: counter)] : []) + [0x02, 0x01, UInt8(battery)]
            + [0x23, 0x02] + littleEndian(centiCelsius, 2) + [0x03, 0x03] + littleEndian(centiHumidity, 2)
    }

    /// BTHome v1 encrypted: the objects sealed with the associated data 0x11 and the nonce
    /// address, `1E 18`, counter; then the counter and the tag.
    private func bthomeV1Encrypted(address: [UInt8]) -> [UInt8] {
        let counterBytes = littleEndian(Int(counter), 4)
        let sealed = CCMSealer.seal(
            bthomeV1Objects(packetID: false), nonce: address + [0x1E, 0x18] + counterBytes,
            key: MockAdvertiser.bthomeKey, associatedData: [0x11])
        return sealed.dropLast(4) + counterBytes + sealed.suffix(4)
    }

    /// Device information 0x41 (v2, encrypted), the sealed objects, the counter, the tag.
    private func bthomeEncrypted(address: [UInt8]) -> [UInt8] {
        let counterBytes = littleEndian(Int(counter), 4)
        let nonce = address + [0xD2, 0xFC, 0x41] + counterBytes
        let sealed = CCMSealer.seal(bthomeObjects(packetID: false), nonce: nonce, key: MockAdvertiser.bthomeKey)
        return [0x41] + sealed.dropLast(4) + counterBytes + sealed.suffix(4)
    }

    private func pvvx(address: [UInt8]) -> [UInt8] {
        address.reversed() + littleEndian(centiCelsius, 2) + littleEndian(centiHumidity, 2)
            + littleEndian(millivolts, 2) + [UInt8(battery), UInt8(truncatingIfNeeded: counter), 0x04]
    }

    private func atc1441(address: [UInt8]) -> [UInt8] {
        address + bigEndian(centiCelsius / 10, 2) + [UInt8(centiHumidity / 100), UInt8(battery)]
            + bigEndian(millivolts, 2) + [UInt8(truncatingIfNeeded: counter)]
    }

    private func ruuvi(address: [UInt8]) -> [UInt8] {
        let power = (millivolts - 1600) << 5 | (4 + 40) / 2
        return [0x05] + bigEndian(centiCelsius * 2, 2) + bigEndian(centiHumidity * 4, 2)
            + bigEndian(101_325 - 50_000 + centiCelsius % 100, 2) + bigEndian(4, 2) + bigEndian(-8, 2)
            + bigEndian(1036, 2) + bigEndian(power, 2) + [0x02] + bigEndian(Int(counter & 0xFFFF), 2) + address
    }

    /// A stock LYWSD03MMC's frame: the frame counter is the counter's low byte, the
    /// encrypted frame's extension the rest.
    private func miBeacon(address: [UInt8], encrypted: Bool) -> [UInt8] {
        let objects =
            MiBeaconEncoder.object(0x100D, littleEndian(centiCelsius / 10, 2) + littleEndian(centiHumidity / 10, 2))
            + MiBeaconEncoder.object(0x100A, [UInt8(battery)])
        return MiBeaconEncoder.frame(
            productID: spec.memory?.firmware == .xiaomiStockLYWSD02
                ? MiBeaconEncoder.lywsd02 : MiBeaconEncoder.lywsd03mmc,
            frameCounter: UInt8(truncatingIfNeeded: counter), address: address,
            objects: objects,
            encryption: encrypted ? .v5(key: MiBeaconEncoder.mockKey, counterExtension: counter >> 8) : .none)
    }

    /// A CGP1W's frame: frame control, device type 0x09, the address (least significant
    /// byte first), then temperature and humidity (0x01), pressure (0x07), battery (0x02).
    private func qingping(address: [UInt8]) -> [UInt8] {
        [0x08, 0x09] + address.reversed()
            + [0x01, 0x04] + littleEndian(centiCelsius / 10, 2) + littleEndian(centiHumidity / 10, 2)
            + [0x07, 0x02] + littleEndian(10_132 + centiCelsius % 10, 2) + [0x02, 0x01, UInt8(battery)]
    }

    /// An H5184's 17 bytes: a counter byte, the header govee-ble skips, byte 6 the pair of
    /// probes (1: probes 1 and 2, 2: probes 3 and 4; in turn by measurement), then each probe's
    /// temperature (hundredths, big-endian) after 0x86 and before its unset alarm (0xFFFF).
    /// The probes read 40, 30, 20 and 10 °C above the walk's temperature.
    private func goveeMeat() -> [UInt8] {
        let second = counter % 2 == 0
        let (first, next) = second ? (2000, 1000) : (4000, 3000)
        return [UInt8(truncatingIfNeeded: counter), 0x01, 0x00, 0x01, 0x01, 0xE4, second ? 0x02 : 0x01, 0x86]
            + bigEndian(centiCelsius + first, 2) + [0xFF, 0xFF, 0x86] + bigEndian(centiCelsius + next, 2) + [
                0xFF, 0xFF,
            ]
    }

    /// An IBT-4XS's 16 bytes after the company id 0x0000: two zeros, the address (not read),
    /// then each probe's temperature (tenths, little-endian, signed): 40, 30, 20 and 10 °C
    /// above the walk's temperature, the fourth probe unplugged (0xFFFF) every other measurement.
    private func inkbirdBBQ(address: [UInt8]) -> [UInt8] {
        let tenths = centiCelsius / 10
        let fourth = counter % 2 == 0 ? -1 : tenths + 100
        return [0x00, 0x00] + address + littleEndian(tenths + 400, 2) + littleEndian(tenths + 300, 2)
            + littleEndian(tenths + 200, 2) + littleEndian(fourth, 2)
    }

    /// A TP962R probe's 7 bytes: the probe (0, 1: in turn by measurement), its internal
    /// temperature (whole °C + 30, little-endian: 20 and 10 °C above the walk's), its battery
    /// (mV), its ambient temperature (the walk's, whole °C + 30).
    private func thermoProProbe() -> [UInt8] {
        let probe = Int(counter % 2)
        let celsius = dividedNearest(centiCelsius, 100)
        return [UInt8(probe)] + littleEndian(celsius + 20 - 10 * probe + 30, 2) + littleEndian(millivolts, 2)
            + littleEndian(celsius + 30, 2)
    }

    /// A Ruuvi Air's data format 6 (20 bytes) or E1 (40 bytes), in turn by advertisement and
    /// measurement: temperature, humidity, pressure, CO₂, the measurement sequence (a device up
    /// a while: 0x012300 above the counter in E1, its low byte in format 6), a PM2.5 of
    /// 1.2 µg/m³ and fixed indices, luminosity and sound (not read).
    private func ruuviAir(address: [UInt8]) -> [UInt8] {
        let head =
            bigEndian(centiCelsius * 2, 2) + bigEndian(centiHumidity * 4, 2)
            + bigEndian(101_325 - 50_000 + centiCelsius % 100, 2)
        guard (Int(counter) + advertisementsOfMeasurement) % 2 == 0 else {
            return [0x06] + head + bigEndian(12, 2) + bigEndian(co2, 2) + [50, 1, 200, 40]
                + [UInt8(truncatingIfNeeded: counter), 0x00] + address.suffix(3)
        }
        return [0xE1] + head + bigEndian(10, 2) + bigEndian(12, 2) + bigEndian(13, 2) + bigEndian(14, 2)
            + bigEndian(co2, 2) + [50, 1] + bigEndian(12_345, 3) + [0xFF, 0xFF, 0xFF]
            + bigEndian(Int((counter &+ 0x01_2300) & 0xFF_FFFF), 3) + [0x00] + [UInt8](repeating: 0xFF, count: 5)
            + address
    }

    /// The carbon dioxide the CO₂ sensors send, in ppm: it moves with the humidity's walk.
    private var co2: Int { 600 + centiHumidity / 10 }

    /// A CGP22C's frame: frame control, device type 0x33, the address (least significant byte
    /// first), then temperature and humidity (0x01), carbon dioxide (0x13), battery (0x02).
    private func qingpingCO2(address: [UInt8]) -> [UInt8] {
        [0x88, 0x33] + address.reversed()
            + [0x01, 0x04] + littleEndian(centiCelsius / 10, 2) + littleEndian(centiHumidity / 10, 2)
            + [0x13, 0x02] + littleEndian(co2, 2) + [0x02, 0x01, UInt8(battery)]
    }

    /// A Tempo Disc THD's data: type 0x17, battery, a 3600 s logging interval, the log count
    /// (the counter), temperature, humidity and a dew point (tenths, big-endian; the dew point
    /// by the rough rule of 1 °C per 5 % below saturation), the mode, then statistics as the
    /// disc sends them (not read).
    private func blueMaestro() -> [UInt8] {
        let tenths = centiCelsius / 10
        let dewPoint = tenths - (10_000 - centiHumidity) / 50
        return [0x17, UInt8(battery), 0x0E, 0x10] + bigEndian(Int(counter & 0xFFFF), 2) + bigEndian(tenths, 2)
            + bigEndian(centiHumidity / 10, 2) + bigEndian(dewPoint, 2) + [0x01, 0x00, 0x01]
            + bigEndian(tenths + 20, 2) + bigEndian(tenths - 20, 2) + [0x00, 0x00, 0x00, 0x00]
    }

    /// A smart hygrometer's 18 bytes: two zero bytes, the address (least significant byte
    /// first), voltage (mV), temperature and humidity (sixteenths), its uptime counter.
    private func thermoBeacon(address: [UInt8]) -> [UInt8] {
        [0x00, 0x00] + address.reversed() + littleEndian(millivolts, 2)
            + littleEndian(dividedNearest(centiCelsius * 16, 100), 2)
            + littleEndian(dividedNearest(centiHumidity * 16, 100), 2)
            + littleEndian(Int(counter), 4)
    }

    private func dividedNearest(_ numerator: Int, _ denominator: Int) -> Int {
        (numerator + (numerator >= 0 ? denominator / 2 : -denominator / 2)) / denominator
    }

    private func govee() -> [UInt8] {
        [0x00] + goveePacked() + [UInt8(battery), 0x00]
    }

    private func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private func bigEndian(_ value: Int, _ count: Int) -> [UInt8] { littleEndian(value, count).reversed() }
}

extension MockAdvertiser {
    /// What a sensor of this format advertises (with its scan response) when it measured the
    /// given values: the mock's own encoders, for tests that hold them against other decoders
    /// (`make test-oracle`). Formats round the values to their own steps.
    public func advertisement(
        address: [UInt8], centiCelsius: Int, centiHumidity: Int, battery: Int, counter: UInt32
    ) -> (serviceData: [String: [UInt8]], manufacturerData: [UInt16: [UInt8]]) {
        AdvertiserState(
            self, centiCelsius: centiCelsius, centiHumidity: centiHumidity, battery: battery, counter: counter
        ).advertisement(address: address)
    }
}

/// AES-128-CCM with a 4-byte tag through Nettle, as encrypted sensors seal their data
/// (BTHome; Xiaomi MiBeacon with associated data `0x11`).
public enum CCMSealer {
    /// The ciphertext followed by the tag.
    public static func seal(
        _ plaintext: [UInt8], nonce: [UInt8], key: [UInt8], associatedData: [UInt8] = []
    ) -> [UInt8] {
        // The mock's encrypted sensors need Nettle, as blectld's keys do (loaded when first used).
        if let failure = cnettle_load() { fatalError("blectl-mock: libnettle: \(String(cString: failure))") }
        let nettle = cnettle_table().pointee
        var sealed = [UInt8](repeating: 0, count: plaintext.count + 4)
        var context = ccm_aes128_ctx()
        key.withUnsafeBufferPointer { nettle.set_key(&context, $0.baseAddress) }
        nonce.withUnsafeBufferPointer { nonce in
            associatedData.withUnsafeBufferPointer { data in
                plaintext.withUnsafeBufferPointer { plaintext in
                    sealed.withUnsafeMutableBufferPointer { sealed in
                        nettle.encrypt_message(
                            &context, nonce.count, nonce.baseAddress, data.count, data.baseAddress, 4, sealed.count,
                            sealed.baseAddress, plaintext.baseAddress)
                    }
                }
            }
        }
        return sealed
    }
}
