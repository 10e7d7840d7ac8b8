/// A sensor that broadcasts its measurements in advertisements, in one of the formats
/// blectld decodes (docs/advertisements.md).
///
/// Each advertisement carries the current measurement; a new one (values moved a step, the
/// sensor's counter up by one) every ``repeats`` advertisements, as real sensors repeat a
/// measurement in several advertisements.
public struct MockAdvertiser: Sendable, Equatable {
    /// How the measurement is encoded.
    public enum Format: String, Sendable, Equatable, CaseIterable {
        /// BTHome v2 service data (0xFCD2), unencrypted: packet id, battery, temperature, humidity.
        case bthome
        /// BTHome v2 encrypted with ``MockAdvertiser/bthomeKey`` (AES-CCM, Nettle).
        case bthomeEncrypted = "bthome-encrypted"
        /// pvvx custom service data (0x181A, 15 bytes).
        case pvvx
        /// ATC1441 service data (0x181A, 13 bytes).
        case atc1441
        /// RuuviTag data format 5 (manufacturer 0x0499): with pressure and battery voltage.
        case ruuvi
        /// Govee H5075 (manufacturer 0xEC88), only in the scan response, beside an iBeacon
        /// (0x004C) in the advertisement itself: BlueZ's dictionary shows both.
        case goveeH5075 = "govee-h5075"
        /// Xiaomi MiBeacon v3 (service data 0xFE95) of a stock LYWSD03MMC, plain: temperature
        /// and humidity (object 0x100D), battery (0x100A).
        case miBeacon = "mibeacon"
        /// Xiaomi MiBeacon v5 encrypted with ``MiBeaconEncoder/mockKey`` (AES-CCM, Nettle).
        case miBeaconEncrypted = "mibeacon-encrypted"
        /// Qingping CGP1W (service data 0xFDCD): temperature and humidity, pressure, battery.
        case qingping
        /// ThermoBeacon smart hygrometer (manufacturer data 0x0011): voltage, temperature and
        /// humidity in sixteenths.
        case thermoBeacon = "thermobeacon"
        /// Inkbird IBS-TH1 (named `sps`): 9 bytes whose first two, the temperature, BlueZ
        /// reads as the company id, so the `ManufacturerData` key changes with the temperature
        /// (and BlueZ keeps the old keys beside the new one).
        case inkbird
        /// Inkbird ITH-13-B (named `ITH-13-B`): 18 bytes under 0x2449, tenths.
        case inkbirdITH = "inkbird-ith"
        /// ThermoPro TP357S (named `TP357S (…)`): the temperature's low byte in the company
        /// id, so its key changes too; humidity in %, a two-bit battery level.
        case thermoPro = "thermopro"
        /// SwitchBot Meter: the model, battery, temperature and humidity in service data
        /// 0xFD3D (the scan response), the address, temperature and humidity in manufacturer
        /// data 0x0969 (the advertisement).
        case switchBot = "switchbot"
        /// SwitchBot Indoor/Outdoor Meter: only the model and battery in service data 0xFD3D,
        /// the temperature and humidity only in manufacturer data 0x0969.
        case switchBotOutdoor = "switchbot-outdoor"
        /// Govee H5051 (manufacturer data 0xEC88, 9 bytes): hundredths, in the advertisement.
        case goveeH5051 = "govee-h5051"
        /// Govee H5100 (manufacturer data 0x0001, 6 bytes, named `GVH5100_…`): Govee's packed
        /// temperature and humidity, battery.
        case goveeH5100 = "govee-h5100"
        /// Govee H5106 (manufacturer data 0x0001, 6 bytes, named `GVH5106_…`): temperature,
        /// humidity and PM2.5 packed in 32 bits.
        case goveeH5106 = "govee-h5106"
        /// Govee B5178 (manufacturer data 0x0001, 9 bytes): the display unit's packed
        /// measurement (sensor 0).
        case goveeB5178 = "govee-b5178"
        /// Govee H5179 (manufacturer data 0x8801, 9 bytes), only in the scan response.
        case goveeH5179 = "govee-h5179"
        /// SensorPush HT1 (named `s`): humidity and temperature readings of 12 and 14 bits,
        /// where BlueZ reads the company id, so its key changes with them.
        case sensorPushHT1 = "sensorpush-ht1"
        /// SensorPush HT.w (named `SensorPush HT.w …`): temperature and humidity packed by
        /// mixed radix, their low bytes in the company id.
        case sensorPushHTw = "sensorpush-htw"
        /// SensorPush HTP.xw (named `SensorPush HTP.xw …`): temperature, humidity and pressure
        /// packed by mixed radix.
        case sensorPushHTPxw = "sensorpush-htpxw"
        /// BTHome v1 service data (0x181C), unencrypted: packet id, battery, temperature, humidity.
        case bthomeV1 = "bthome-v1"
        /// BTHome v1 encrypted (0x181E) with ``MockAdvertiser/bthomeKey`` (AES-CCM, Nettle).
        case bthomeV1Encrypted = "bthome-v1-encrypted"
        /// pvvx custom encrypted (0x181A, 11 bytes) with ``MockAdvertiser/bthomeKey`` as bind key.
        case pvvxEncrypted = "pvvx-encrypted"
        /// pvvx firmware's atc1441 encrypted (0x181A, 8 bytes: half degrees, half percents).
        case atc1441Encrypted = "atc1441-encrypted"
        /// BlueMaestro Tempo Disc THD (manufacturer data 0x0133, big-endian): battery, the
        /// logging interval and count, temperature, humidity and the dew point (tenths).
        case blueMaestro = "bluemaestro"
        /// SwitchBot Meter Pro CO₂: a Meter's fields (model `5`) with the carbon dioxide in
        /// manufacturer data 0x0969's bytes 13-14.
        case switchBotCO2 = "switchbot-co2"
        /// Qingping CGP22C (service data 0xFDCD): temperature and humidity, carbon dioxide
        /// (object 0x13), battery.
        case qingpingCO2 = "qingping-co2"
        /// Govee H5184 meat thermometer (manufacturer data 0x1B36, big-endian): four probes,
        /// two an advertisement (byte 6 says which pair), the pairs in turn by measurement.
        case goveeMeat = "govee-meat"
        /// Inkbird IBT-4XS (named `iBBQ`, manufacturer data 0x0000 whose id is data,
        /// little-endian): four probes in tenths, the fourth unplugged (0xFFFF) every other
        /// measurement.
        case inkbirdBBQ = "inkbird-bbq"
        /// ThermoPro TP962R (named `TP962R (…)`): two probes, one an advertisement (in turn by
        /// measurement), the probe number and its temperature's low byte in the company id.
        case thermoProProbe = "thermopro-probe"
        /// Ruuvi Air (manufacturer 0x0499): each measurement in data format 6 and in E1 in
        /// turn, as its legacy and extended advertisements carry it, with CO₂.
        case ruuviAir = "ruuvi-air"
    }

    /// The key of the mock's encrypted BTHome sensors (Home Assistant's test key).
    public static let bthomeKey: [UInt8] = [
        0x23, 0x1D, 0x39, 0xC1, 0xD7, 0xCC, 0x1A, 0xB1, 0xAE, 0xE2, 0x24, 0xCD, 0x09, 0x6D, 0xB9, 0x32,
    ]

    /// The format.
    public var format: Format
    /// The temperature of the first measurement, °C.
    public var startCelsius: Double
    /// Advertisements per measurement.
    public var repeats: Int
    /// A humidity the sensor keeps sending, in %, instead of its walk: a sensor artefact such
    /// as a RuuviTag's 100.5 % in condensation. Ruuvi, pvvx and BTHome carry up to 163 %.
    public var stuckHumidity: Double?
    /// The share of its advertisements nobody hears (0 to 1), drawn from the scenario's seed:
    /// the sensor advertises and counts on, the gateway misses them.
    public var loss: Double = 0
    /// The memory and clock it keeps, served over GATT (a pvvx sensor; it then accepts
    /// connections); nil for a sensor that only advertises.
    public var memory: MockSensorMemory?

    /// Creates an advertiser.
    public init(format: Format, startCelsius: Double = 21.5, repeats: Int = 2, loss: Double = 0) {
        self.format = format
        self.startCelsius = startCelsius
        self.repeats = max(1, repeats)
        self.loss = min(max(loss, 0), 1)
    }
}

extension MockPeripheral {
    /// Advertising sensor `index`: the formats in turn (BTHome, encrypted BTHome, pvvx,
    /// ATC1441, Ruuvi, Govee), at `A4:C1:38:AD:<index>`, named as such sensors name
    /// themselves (or `namePrefix` and the index, as a pvvx firmware in BTHome mode names
    /// itself `ATC_…`), non-connectable.
    public static func advertiser(
        index: Int, format: MockAdvertiser.Format? = nil, namePrefix: String? = nil
    ) -> MockPeripheral {
        let formats = MockAdvertiser.Format.allCases
        let format = format ?? formats[index % formats.count]
        let address = "A4:C1:38:AD:" + hexByte(index >> 8) + ":" + hexByte(index + 1)
        let suffix = hexByte(index >> 8) + hexByte(index + 1)
        let formatName =
            switch format {
            case .bthome, .bthomeEncrypted, .bthomeV1, .bthomeV1Encrypted: "BTHome " + suffix
            case .pvvx, .atc1441, .pvvxEncrypted, .atc1441Encrypted: "ATC_AD" + suffix
            case .ruuvi: "Ruuvi " + suffix
            case .goveeH5075: "GVH5075_" + suffix
            case .miBeacon, .miBeaconEncrypted: "LYWSD03MMC " + suffix
            case .qingping: "Qingping Temp RH Barometer " + suffix
            case .thermoBeacon: "ThermoBeacon " + suffix
            // Inkbird's models name themselves alike: the name tells the model.
            case .inkbird: "sps"
            case .inkbirdITH: "ITH-13-B"
            case .thermoPro: "TP357S (" + suffix + ")"
            case .switchBot: "WoSensorTH " + suffix
            case .switchBotOutdoor: "WoIOSensorTH " + suffix
            case .goveeH5051: "GVH5051_" + suffix
            case .goveeH5100: "GVH5100_" + suffix
            case .goveeH5106: "GVH5106_" + suffix
            case .goveeB5178: "B5178" + suffix
            case .goveeH5179: "Govee_H5179_" + suffix
            // HT1s all name themselves `s`.
            case .sensorPushHT1: "s"
            case .sensorPushHTw: "SensorPush HT.w " + suffix
            case .sensorPushHTPxw: "SensorPush HTP.xw " + suffix
            case .blueMaestro: "Tempo Disc THD " + suffix
            case .switchBotCO2: "WoTHPc " + suffix
            case .qingpingCO2: "Qingping CO2 Temp RH " + suffix
            case .goveeMeat: "GVH5184_" + suffix
            case .inkbirdBBQ: "iBBQ"
            case .thermoProProbe: "TP962R (" + suffix + ")"
            case .ruuviAir: "Ruuvi Air " + suffix
            }
        let name: String? = namePrefix.map { $0 + suffix } ?? formatName
        var peripheral = MockPeripheral(
            address: address, advertisedName: name, gapName: name,
            kind: .advertiser(MockAdvertiser(format: format, startCelsius: 18 + Double(index % 8))),
            rssi: Int16(-60 - (index % 5) * 5), connectable: false)
        if format == .goveeH5075 { peripheral.manufacturerData = [0x004C: GoveeBeacon.payload] }
        return peripheral
    }

    /// The advertiser details, for an advertising sensor.
    public var advertiser: MockAdvertiser? {
        if case .advertiser(let advertiser) = kind { return advertiser }
        return nil
    }
}

extension MockScenario {
    /// Adds `count` advertising sensors (``MockPeripheral/advertiser(index:format:)``), each
    /// advertising every `interval` (nil: the timings' interval), in `formats` in turn (empty:
    /// every format in turn), named `namePrefix` and their index (nil: as their format's
    /// sensors name themselves).
    ///
    /// - Parameters:
    ///   - repeats: advertisements per measurement (nil: the advertiser's default, 2).
    ///   - loss: the share of each one's advertisements nobody hears (``MockAdvertiser/loss``).
    public mutating func addAdvertisers(
        _ count: Int, interval: Duration? = nil, formats: [MockAdvertiser.Format] = MockAdvertiser.Format.allCases,
        namePrefix: String? = nil, repeats: Int? = nil, loss: Double = 0
    ) {
        let formats = formats.isEmpty ? MockAdvertiser.Format.allCases : formats
        for index in 0..<max(0, count) {
            var sensor = MockPeripheral.advertiser(
                index: index, format: formats[index % formats.count], namePrefix: namePrefix)
            if case .advertiser(var advertiser) = sensor.kind {
                if let repeats { advertiser.repeats = max(1, repeats) }
                advertiser.loss = min(max(loss, 0), 1)
                sensor.kind = .advertiser(advertiser)
            }
            sensor.advertisingInterval = interval
            peripherals.append(sensor)
        }
    }
}

/// The iBeacon a Govee H5075 sends in its advertisement (its readings are in the scan response).
enum GoveeBeacon {
    static let payload: [UInt8] =
        [0x02, 0x15, 0x49, 0x4E, 0x54, 0x45, 0x4C, 0x4C, 0x49, 0x5F, 0x52, 0x4F, 0x43, 0x4B, 0x53, 0x5F, 0x48, 0x57]
        + [0x50, 0x75, 0xF2, 0xFF, 0xC2]
}
