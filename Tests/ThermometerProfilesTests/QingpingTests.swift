import SensorModel
import Testing
import ThermometerProfiles

/// Service data 0xFDCD (Qingping).
let qingpingField = AdvertisementField.serviceData(QingpingProfile.serviceUUID)

@Suite("Qingping (service data 0xFDCD)")
struct QingpingTests {
    @Test(
        "qingping-ble's published advertisements decode to the values it shows",
        arguments: [
            // CGD1 alarm clock, CGC1 clock, CGM1 (battery 40 %), CGG1, CGG3, CGF1W.
            ExpectedReading(
                bytes(hex: "080c344d56342d5801042001b201020164"), [.temperature: 28.8, .humidity: 43.4, .battery: 100]),
            ExpectedReading(
                bytes(hex: "081ef32654342d5801043601cc01020164"), [.temperature: 31, .humidity: 46, .battery: 100]),
            ExpectedReading(
                bytes(hex: "8a0fd12c63342d58010400011202020128"), [.temperature: 25.6, .humidity: 53, .battery: 40]),
            ExpectedReading(
                bytes(hex: "0816a72514342d580104d800bb01020164"), [.temperature: 21.6, .humidity: 44.3, .battery: 100]),
            ExpectedReading(
                bytes(hex: "884f3e0687342d580104f100a601020164"), [.temperature: 24.1, .humidity: 42.2, .battery: 100]),
            ExpectedReading(
                bytes(hex: "0815012740342d580104de00e901020164"), [.temperature: 22.2, .humidity: 48.9, .battery: 100]),
            // CGP23W with pressure; CGP22C with carbon dioxide (0x13, 0x02b3 = 691 ppm).
            ExpectedReading(
                bytes(hex: "8818072240342d5801041801cd0002016107027327"),
                [.temperature: 28, .humidity: 20.5, .battery: 97, .pressure: 1009.9]),
            ExpectedReading(
                bytes(hex: "0a5d931d86342d5801041701ce010201641302b302"),
                [.temperature: 27.9, .humidity: 46.2, .battery: 100, .co2: 691]),
        ])
    func published(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: qingpingField), expected, profile: "qingping")
    }

    @Test("frames with nothing measured here, or of a device type nobody lists, are nobody's")
    func notReadings() {
        // The CGPR1's motion, the CGH1's door, an unknown device type, a header cut short.
        for hex in [
            "4812cdd560342d580804000d00000f01ee", "c8044d3a40342d580401010f01ef", "08ee344d56342d58010420", "080c344d",
        ] {
            #expect(decode(bytes(hex: hex), in: qingpingField) == nil, "\(hex)")
        }
    }

    @Test("an object that runs past the end ends the frame; a wrong length is skipped; mains power is 100 %")
    func objects() throws {
        let cut = decode(bytes(hex: "080c344d56342d58 020132 010420"), in: qingpingField)
        #expect(cut?.success?.measurement.quantities == Quantities([.battery: 50]))
        let odd = decode(bytes(hex: "080c344d56342d58 01032001b2 0201ff"), in: qingpingField)
        #expect(odd?.success?.measurement.quantities == Quantities([.battery: 100]))
    }
}
