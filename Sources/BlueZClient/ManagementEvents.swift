public import SensorModel

/// One advertisement the kernel's Bluetooth management socket reported (`MGMT_EV_DEVICE_FOUND`),
/// in the form BlueZ's signals give the central (``AdvertisementUpdate``).
public struct ManagementAdvertisement: Sendable, Equatable {
    /// The controller that heard it (`hciN`'s N).
    public var index: UInt16
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// 0 BR/EDR, 1 LE public, 2 LE random.
    public var addressType: UInt8
    /// The event's flags (confirm name, legacy pairing, not connectable…).
    public var flags: UInt32
    /// The data of the advertisement (and of its scan response, which the kernel appends).
    public var update: AdvertisementUpdate
}

/// Why a management event could not be read: the event is dropped, the socket read on.
public struct ManagementDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public var description: String
}

/// Decodes the kernel's management events (the layout of BlueZ's doc/mgmt-api.txt: a header of
/// event code, controller index and parameter length, all little-endian, then the parameters).
///
/// Only `Device Found` is read; every other event (the kernel sends the control channel's
/// events to every socket on it) is skipped. The decoding allocates nothing but the update's
/// fields: it runs for every advertisement the controllers hear.
public enum ManagementEvents {
    /// `MGMT_EV_DEVICE_FOUND`.
    static let deviceFound: UInt16 = 0x0012
    /// The header: event code, controller index, parameter length.
    static let headerLength = 6
    /// Device Found's fixed parameters: address (6), address type, RSSI, flags (4), data length (2).
    static let deviceFoundLength = 14
    /// The RSSI a controller reports when it has none.
    static let rssiUnknown: Int8 = 127

    /// The advertisement in one event read from the socket; nil for an event of another kind.
    public static func decode(_ event: UnsafeRawBufferPointer) throws(ManagementDecodeError) -> ManagementAdvertisement?
    {
        guard event.count >= headerLength else {
            throw ManagementDecodeError(description: "an event of \(event.count) bytes, shorter than its header")
        }
        let code = le16(event, 0)
        let index = le16(event, 2)
        let length = Int(le16(event, 4))
        guard event.count == headerLength + length else {
            throw ManagementDecodeError(
                description: "event 0x\(String(code, radix: 16)) says \(length) bytes of parameters, has "
                    + "\(event.count - headerLength)")
        }
        guard code == deviceFound else { return nil }
        let parameters = UnsafeRawBufferPointer(rebasing: event[headerLength...])
        guard parameters.count >= deviceFoundLength else {
            throw ManagementDecodeError(description: "Device Found with \(parameters.count) bytes of parameters")
        }
        let dataLength = Int(le16(parameters, 12))
        guard parameters.count == deviceFoundLength + dataLength else {
            throw ManagementDecodeError(
                description:
                    "Device Found says \(dataLength) bytes of data, has \(parameters.count - deviceFoundLength)"
            )
        }
        // bdaddr_t is little-endian: the last byte is the address's first.
        var address: UInt64 = 0
        for offset in (0..<6).reversed() { address = address << 8 | UInt64(parameters[offset]) }
        let rssi = Int8(bitPattern: parameters[7])
        var update = try advertisingData(UnsafeRawBufferPointer(rebasing: parameters[deviceFoundLength...]))
        update.rssi = rssi == rssiUnknown ? nil : Int16(rssi)
        return ManagementAdvertisement(
            index: index, address: BluetoothAddress(value: address), addressType: parameters[6],
            flags: UInt32(le16(parameters, 8)) | UInt32(le16(parameters, 10)) << 16, update: update)
    }

    /// The fields the central reads from advertising data (EIR/AD structures: length, type,
    /// data): the local name, manufacturer data by company id, service data by lower-case
    /// 128-bit UUID, as BlueZ's `Device1` properties key them.
    ///
    /// A structure running past the end is an error (the advertisement is dropped: its other
    /// fields cannot be trusted either); a zero length ends the data, as the specification says.
    public static func advertisingData(_ data: UnsafeRawBufferPointer) throws(ManagementDecodeError)
        -> AdvertisementUpdate
    {
        var update = AdvertisementUpdate()
        var offset = 0
        while offset < data.count {
            let length = Int(data[offset])
            if length == 0 { break }
            guard offset + 1 + length <= data.count else {
                throw ManagementDecodeError(
                    description: "an advertising data structure of \(length) bytes at byte \(offset) runs past "
                        + "the end (\(data.count) bytes)")
            }
            let type = data[offset + 1]
            let field = UnsafeRawBufferPointer(rebasing: data[(offset + 2)..<(offset + 1 + length)])
            offset += 1 + length
            switch type {
            case 0x08, 0x09:
                // Shortened or complete local name; the complete one wins when both come.
                if type == 0x09 || update.name == nil { update.name = String(decoding: field, as: UTF8.self) }
            case 0xFF where field.count >= 2:
                update.manufacturerData[le16(field, 0)] = Array(field[2...])
            case 0x16 where field.count >= 2:
                update.serviceData[uuid16(UInt32(le16(field, 0)))] = Array(field[2...])
            case 0x20 where field.count >= 4:
                update.serviceData[uuid16(UInt32(le16(field, 0)) | UInt32(le16(field, 2)) << 16)] = Array(field[4...])
            case 0x21 where field.count >= 16:
                update.serviceData[uuid128(field)] = Array(field[16...])
            case 0x02...0x07:
                update.uuidsChanged = true
            default:
                break
            }
        }
        return update
    }

    private static func le16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// A 16- or 32-bit UUID on the Bluetooth base, as BlueZ writes it: `0000fcd2-0000-1000-8000-00805f9b34fb`.
    private static func uuid16(_ value: UInt32) -> String {
        hex(value, digits: 8) + "-0000-1000-8000-00805f9b34fb"
    }

    /// A 128-bit UUID given little-endian, in BlueZ's lower-case text.
    private static func uuid128(_ bytes: UnsafeRawBufferPointer) -> String {
        var text = ""
        text.reserveCapacity(36)
        for position in 0..<16 {
            if [4, 6, 8, 10].contains(position) { text.append("-") }
            text += hex(UInt32(bytes[15 - position]), digits: 2)
        }
        return text
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
