public import SensorModel

extension BluetoothAddress {
    /// Reads the address out of a BlueZ device path element (`dev_DC_A6_32_01_02_03`).
    public init?(devicePathElement element: Substring) {
        guard element.utf8.starts(with: "dev_".utf8) else { return nil }
        self.init(utf8: element.utf8.dropFirst(4), separator: UInt8(ascii: "_"))
    }

    /// The element BlueZ names this device's object with (`dev_DC_A6_32_01_02_03`).
    public var devicePathElement: String { "dev_" + text(separator: UInt8(ascii: "_")) }
}
