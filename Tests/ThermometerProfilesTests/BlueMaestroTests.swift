import SensorModel
import Testing
import ThermometerProfiles

/// Manufacturer data 0x0133 (BlueMaestro).
let blueMaestroField = AdvertisementField.manufacturerData(BlueMaestroProfile.companyID)

@Suite("BlueMaestro Tempo Disc (manufacturer data 0x0133)")
struct BlueMaestroTests {
    @Test(
        "bluemaestro-ble's published advertisements decode to the values it shows",
        arguments: [
            // Tempo Disc THD (its own dew point), THPD, T; Maxi THD and THPD (the dew point worked
            // out), Maxi T.
            ExpectedReading(
                bytes(hex: "17640e10000200f201f200830100010d02ab00f201f2010d02ab00f201f200ff024e0000000000"),
                [.battery: 100, .temperature: 24.2, .humidity: 49.8, .dewPoint: 13.1]),
            ExpectedReading(
                bytes(hex: "1b570000000000f201f22794"),
                [.battery: 87, .temperature: 24.2, .humidity: 49.8, .pressure: 1013.2]),
            ExpectedReading(bytes(hex: "0d61070817a000600100"), [.battery: 97, .temperature: 9.6]),
            ExpectedReading(
                bytes(hex: "2a570000000000000000000000000074097413"),
                [.battery: 87, .temperature: 24.2, .humidity: 49.8, .dewPoint: 13.07]),
            ExpectedReading(
                bytes(hex: "2b570000000000000000000000000032fb3421cd8b0100"),
                [.battery: 87, .temperature: -12.3, .humidity: 85, .pressure: 1013.25, .dewPoint: -14.3]),
            ExpectedReading(
                bytes(hex: "2a5700000000000000000000000000c4090a00"),
                [.battery: 87, .temperature: 25, .humidity: 0.1, .dewPoint: -55.88]),
            ExpectedReading(bytes(hex: "2957000000000000000000000000007409"), [.battery: 87, .temperature: 24.2]),
        ])
    func published(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: blueMaestroField), expected, profile: "bluemaestro")
    }

    @Test("a Maxi at 0 % humidity has no dew point, as bluemaestro-ble shows none")
    func noDewPointAtZeroHumidity() throws {
        let reading = try #require(decode(bytes(hex: "2a5700000000000000000000000000c4090000"), in: blueMaestroField))
            .get()
        #expect(reading.measurement.quantities[.humidity] == 0)
        #expect(reading.measurement.quantities[.dewPoint] == nil)
    }

    @Test("every truncated length of every type is nobody's; what follows the fields is not read")
    func truncations() throws {
        for hex in [
            "17640e10000200f201f20083", "1b570000000000f201f22794", "0d570000000000f2",
            "2b570000000000000000000000000032fb3421cd8b0100", "2a570000000000000000000000000074097413",
            "2957000000000000000000000000007409",
        ] {
            let whole = bytes(hex: hex)
            for length in 1..<whole.count {
                #expect(decode(Array(whole.prefix(length)), in: blueMaestroField) == nil, "\(hex) cut to \(length)")
            }
            let reading = try #require(decode(whole, in: blueMaestroField)).get()
            let longer = try #require(decode(whole + (0..<32).map(UInt8.init), in: blueMaestroField)).get()
            #expect(longer.measurement.quantities == reading.measurement.quantities, "\(hex)")
        }
    }

    @Test("device types bluemaestro-ble does not list are nobody's")
    func unknownTypes() {
        for type: UInt8 in [0x00, 0x0A, 0x64, 0x65, 0xFF] {
            #expect(decode([type] + [UInt8](repeating: 0, count: 30), in: blueMaestroField) == nil, "\(type)")
        }
    }

    @Test("the Magnus dew point is bluemaestro-ble's, rounded half up to hundredths")
    func magnus() {
        #expect(BlueMaestroProfile.dewPointHundredths(celsius: 24.2, humidity: 49.8) == 1307)
        #expect(BlueMaestroProfile.dewPointHundredths(celsius: 0, humidity: 100) == 0)
        #expect(BlueMaestroProfile.dewPointHundredths(celsius: 25, humidity: 0) == nil)
        #expect(BlueMaestroProfile.dewPointHundredths(celsius: -243.5, humidity: 50) == nil)
    }
}
