import DBusCore

/// One pattern of an `or_patterns` advertisement monitor (BlueZ's
/// `org.bluez.AdvertisementMonitor1.Patterns`): an advertisement matches when one of its AD
/// structures of type ``adType`` holds ``content`` at ``startPosition``.
public struct AdvertisementPattern: Sendable, Equatable, CustomStringConvertible {
    /// Where in the AD structure's data the content starts (0: right after the type byte).
    public var startPosition: UInt8
    /// The AD type (Bluetooth Assigned Numbers, "Common Data Types").
    public var adType: UInt8
    /// The bytes to find; at most 31.
    public var content: [UInt8]

    /// AD type 0x16: service data with a 16-bit UUID.
    public static let serviceData16: UInt8 = 0x16
    /// AD type 0x09: the complete local name.
    public static let completeLocalName: UInt8 = 0x09
    /// AD type 0xFF: manufacturer-specific data.
    public static let manufacturerData: UInt8 = 0xFF

    /// Creates a pattern.
    public init(startPosition: UInt8 = 0, adType: UInt8, content: [UInt8]) {
        self.startPosition = startPosition
        self.adType = adType
        self.content = content
    }

    /// Service data of a 16-bit UUID (such as 0xFCD2, BTHome): the UUID comes first in the
    /// AD structure, little-endian.
    public static func serviceData(uuid16: UInt16) -> AdvertisementPattern {
        AdvertisementPattern(adType: serviceData16, content: littleEndian(uuid16))
    }

    /// Manufacturer data of a company (such as 0x0499, Ruuvi): the company id comes first,
    /// little-endian.
    public static func manufacturer(_ company: UInt16) -> AdvertisementPattern {
        AdvertisementPattern(adType: manufacturerData, content: littleEndian(company))
    }

    /// The complete local name (AD type 0x09) beginning with `prefix` (at most 31 bytes of it).
    public static func localName(prefix: String) -> AdvertisementPattern {
        AdvertisementPattern(adType: completeLocalName, content: Array(prefix.utf8.prefix(31)))
    }

    /// `0x16@0 d2fc`.
    public var description: String {
        "0x" + String(adType, radix: 16) + "@\(startPosition) "
            + content.map { byte in
                (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }.joined()
    }

    /// The `(yyay)` structure BlueZ reads.
    var dbusValue: DBusValue { .structure([.byte(startPosition), .byte(adType), .bytes(content)]) }

    private static func littleEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
}
