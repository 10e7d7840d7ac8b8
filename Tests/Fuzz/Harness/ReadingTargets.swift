import SensorModel
import ThermometerProfiles

extension FuzzTarget {
    /// A characteristic value, decoded by every GATT profile (Pi cputemp text, Health
    /// Thermometer, Environmental Sensing).
    static let gattValues = FuzzTarget(
        name: "gatt", summary: "a characteristic value through every GATT thermometer profile"
    ) { value in
        var accepted = false
        for profile in ProfileRegistry.standard.profiles {
            switch profile.decode(value) {
            case .success(let measurement):
                requirePlausible(measurement, from: profile.name)
                accepted = true
            case .failure(let error): require(error.raw == value, "\(profile.name): the error lost the raw value")
            }
        }
        return accepted
    }

    /// An advertisement field's payload through the decoder the daemon uses, with a BTHome
    /// key for one of the two senders.
    ///
    /// Byte 0 picks the field (its low bits index every field a format reads, then the names
    /// of senders whose manufacturer data is read under any company id: for those the next two
    /// bytes are the company id) and the sender (bit 7: the keyed one); the rest is the
    /// payload. For a field read together with another (SwitchBot's), the payload's first
    /// byte is the length of the other's payload, which follows. It is decoded twice, as a
    /// device repeats an advertisement.
    static let advertisements = FuzzTarget(
        name: "advertisements", summary: "byte 0 picks the field and sender, the rest is the payload"
    ) { input in
        guard let selector = input.first else { return false }
        let fields = advertisementFields
        let index = Int(selector & 0x7F) % (fields.count + advertisementNames.count)
        let sender = selector & 0x80 != 0 ? keyedSender : plainSender
        var payload = Array(input.dropFirst())
        var field: AdvertisementField
        var name: String?
        if index < fields.count {
            field = fields[index]
        } else {
            // A named sender: the payload's first two bytes are the company id, which is data.
            guard payload.count >= 2 else { return false }
            field = .manufacturerData(UInt16(payload[0]) | UInt16(payload[1]) << 8)
            payload.removeFirst(2)
            name = advertisementNames[index - fields.count]
        }
        var companion: [UInt8]?
        if AdvertisementRegistry.standard.companion(of: field) != nil, let length = payload.first {
            let count = min(Int(length), payload.count - 1)
            companion = Array(payload[1..<1 + count])
            payload.removeFirst(1 + count)
        }
        var decoder = AdvertisementDecoder(keys: [keyedSender: senderKey])
        var accepted = false
        for _ in 0..<2 {
            switch decoder.decode(payload, in: field, name: name, companion: companion, from: sender) {
            case .success(let reading)?:
                requirePlausible(reading.measurement, from: "\(field)")
                accepted = true
            case .failure(let error)?: require(error.raw == payload, "\(field): the error lost the raw payload")
            case nil: break
            }
        }
        return accepted
    }

    /// Every field some advertisement format reads.
    static let advertisementFields: [AdvertisementField] =
        AdvertisementRegistry.standard.serviceDataUUIDs.map(AdvertisementField.serviceData)
        + AdvertisementRegistry.standard.manufacturerIDs.map(AdvertisementField.manufacturerData)

    /// The names of the senders whose manufacturer data is read under any company id (selectors
    /// after the fields'): the beginnings of the names those formats read, names in their own right.
    static let advertisementNames: [String] = AdvertisementRegistry.standard.localNamePrefixes

    /// The sender with a BTHome key (the address and key of BTHome's published example).
    static let keyedSender = BluetoothAddress("54:48:E6:8F:80:A5")
    static let senderKey = try! AdvertisementKey.bthome(hex: "231d39c1d7cc1ab1aee224cd096db932")
    /// A sender without a key.
    static let plainSender = BluetoothAddress("A4:C1:38:8D:18:B2")
}

/// Every quantity a decoder accepts is a finite number inside its documented range.
private func requirePlausible(_ measurement: Measurement, from decoder: String) {
    for (quantity, value) in measurement.quantities.present {
        require(
            value.isFinite && ReadingLimits.plausibleRange(of: quantity).contains(value),
            "\(decoder): \(quantity) \(value) is outside its range")
    }
}
