import SensorModel
import Testing
import ThermometerProfiles

/// Formats that tell the model apart (a product id, a device type byte, the device's name)
/// name it on the reading; the others leave the family's label.
struct ModelTests {
    /// A payload, its field and sender's name, and the model its reading must name (nil: none).
    struct Case: Sendable, CustomTestStringConvertible {
        var payload: [UInt8]
        var field: AdvertisementField
        var name: String?
        var model: String?
        var testDescription: String { "\(model ?? "no model"): \(payload.hexString)" }
    }

    static let cases: [Case] = [
        Case(
            payload: bytes(hex: "40 50 5b05 01 0d10 04 fe00 4802"),
            field: .serviceData(XiaomiMiBeaconProfile.serviceUUID), model: "LYWSD03MMC"),
        Case(
            payload: bytes(hex: "0816a72514342d580104d800bb01020164"),
            field: .serviceData(QingpingProfile.serviceUUID), model: "CGG1"),
        Case(
            payload: bytes(hex: "1b570000000000f201f22794"),
            field: .manufacturerData(BlueMaestroProfile.companyID), model: "Tempo Disc THPD"),
        Case(
            payload: bytes(hex: "5400e4069835"), field: .serviceData(SwitchBotProfile.serviceUUID), model: "Meter"),
        Case(
            payload: bytes(hex: "6900e4069835"), field: .serviceData(SwitchBotProfile.serviceUUID),
            model: "Meter Plus"),
        Case(
            payload: bytes(hex: "7700e4069835"), field: .serviceData(SwitchBotProfile.serviceUUID),
            model: "Indoor/Outdoor Meter"),
        Case(
            payload: bytes(hex: "010103465464"), field: .manufacturerData(GoveeH5100Profile.companyID),
            name: "GVH5100_7738", model: "H5100"),
        Case(
            payload: bytes(hex: "010103465464"), field: .manufacturerData(GoveeH5100Profile.companyID),
            name: "GVH5104_7738", model: "H5104"),
        // Eight bytes from a device whose name tells nothing: the family's label.
        Case(
            payload: bytes(hex: "010100002af7640003"), field: .manufacturerData(GoveeH5100Profile.companyID),
            model: nil),
        Case(
            payload: bytes(hex: "00170a4300"), field: .manufacturerData(0x4300), name: "TP962R (0000)",
            model: "TP962R"),
        // Inkbird iBBQ: the number of probes tells the model (four here).
        Case(
            payload: bytes(hex: "000030e2837db5020401fa000401fa00"), field: .manufacturerData(0x0000), name: "iBBQ",
            model: "IBT-4XS"),
        Case(
            payload: bytes(hex: "00002c1100006dd3cefffa00"), field: .manufacturerData(0x0001), name: "xBBQ",
            model: "IBT-2X"),
        Case(
            payload: bytes(hex: "c9a546"), field: .manufacturerData(0x9A04), name: "SensorPush HT.w 0CA1",
            model: "HT.w"),
    ]

    @Test("the reading names the model the payload or the name tells", arguments: cases)
    func modelOfReading(_ test: Case) throws {
        let reading = try #require(decode(test.payload, in: test.field, name: test.name)).get()
        let family = try #require(KnownSensors.catalog[reading.measurement.profile])
        let named = reading.measurement.modelIndex.map { family.models[Int($0)] }
        #expect(named == test.model)
        let maker = KnownSensors.catalog.maker(of: family.id, modelIndex: reading.measurement.modelIndex)
        #expect(maker?.model == test.model ?? family.modelLabel)
    }

    @Test("every model index a decoder gives is one of its family's models")
    func indicesAreInRange() throws {
        for (payload, field, name) in goodAdvertisements {
            let keys =
                payload == EncryptedVectors.counter1000
                ? EncryptedVectors.keys : payload == PVVXEncryptedVectors.custom ? PVVXEncryptedVectors.keys : [:]
            let reading = try #require(decode(payload, in: field, name: name, keys: keys)).get()
            let family = try #require(KnownSensors.catalog[reading.measurement.profile])
            if let index = reading.measurement.modelIndex { #expect(Int(index) < family.models.count, "\(family.id)") }
        }
    }

    @Test("an index outside the family's models gives the family's label, as none does")
    func outOfRangeIndex() {
        let catalog = SensorCatalog([
            SensorFamily(id: "t", name: "T", manufacturer: "M", models: ["A", "B"], quantities: [.temperature])
        ])
        #expect(catalog.maker(of: "t", modelIndex: 1)?.model == "B")
        #expect(catalog.maker(of: "t", modelIndex: 2)?.model == "A / B")
        #expect(catalog.maker(of: "t")?.model == "A / B")
        #expect(catalog["t"]?.modelIndex(named: "sensor B 12") == 1)
        #expect(catalog["t"]?.modelIndex(named: "C") == nil)
    }
}
