import DBusCore
public import SensorModel

/// The path of one of BlueZ's objects: an adapter (`/org/bluez/hci0`), a device
/// (`…/dev_DC_A6_32_01_02_03`) or a GATT object below one (`…/service000a/char000b`).
///
/// Paths of GATT objects follow handles, which shift when a peripheral's GATT application
/// restarts: find those objects by UUID, and keep their paths only while they exist.
public struct BlueZPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    let objectPath: ObjectPath

    init(_ objectPath: ObjectPath) { self.objectPath = objectPath }

    /// The path as text.
    public var description: String { objectPath.rawValue }

    /// Orders paths by their text, so parents sort before their children.
    public static func < (lhs: BlueZPath, rhs: BlueZPath) -> Bool { lhs.objectPath < rhs.objectPath }

    /// The last element, e.g. `hci0` for an adapter.
    public var lastElement: String { String(objectPath.lastElement) }

    /// The device object at or above this path (the `dev_…` element), if any.
    public var device: BlueZPath? {
        guard let element = deviceElement else { return nil }
        // A GATT object's path: up to the device's, through its parents (rare; the events of
        // a device's own path, every advertisement among them, stop here at once).
        let length = objectPath.rawValue.utf8.distance(from: objectPath.rawValue.startIndex, to: element.upperBound)
        var path = objectPath
        while path.rawValue.utf8.count > length, let parent = path.parent { path = parent }
        return BlueZPath(path)
    }

    /// The adapter a device or GATT path is under (`/org/bluez/hci1`), if it names a device.
    public var adapter: BlueZPath? { device?.objectPath.parent.map(BlueZPath.init) }

    /// The address in a device's path element, for a device path or one below it.
    public var deviceAddress: BluetoothAddress? {
        deviceElement.flatMap { BluetoothAddress(devicePathElement: objectPath.rawValue[$0]) }
    }

    /// The last element that names a device (`dev_…`), the nearest to the end; found in the
    /// UTF-8 bytes, as this runs for every advertisement (with `Character`s it cost more
    /// than the rest of the advertisement's handling in BlueZClient).
    private var deviceElement: Range<String.Index>? {
        let text = objectPath.rawValue.utf8
        var end = text.endIndex
        while let slash = text[..<end].lastIndex(of: UInt8(ascii: "/")) {
            let start = text.index(after: slash)
            if text[start..<end].starts(with: "dev_".utf8) { return start..<end }
            end = slash
        }
        return nil
    }

    /// Whether this path is directly below `parent` (a device of an adapter), compared
    /// without building the parent's path.
    public func isChild(of parent: BlueZPath) -> Bool {
        let text = objectPath.rawValue.utf8
        let prefix = parent.objectPath.rawValue.utf8
        guard text.count > prefix.count + 1, text.starts(with: prefix) else { return false }
        let rest = text.dropFirst(prefix.count)
        return rest.first == UInt8(ascii: "/") && !rest.dropFirst().contains(UInt8(ascii: "/"))
    }

    /// The interface name of the adapter a device or GATT path is under (`hci1`): the
    /// element after `/org/bluez/`.
    public var adapterName: String {
        let elements = objectPath.rawValue.split(separator: "/")
        return elements.count > 2 ? String(elements[2]) : ""
    }

    /// Whether this path is below `ancestor` at any depth (a device or GATT object of an
    /// adapter), compared without building paths.
    ///
    /// Asked for every notification (which adapter heard it): `hasPrefix` cost about 360
    /// instructions a call, the generic `starts(with:)` over two UTF-8 views about 1,300 and a
    /// byte compare through `withUTF8` about 600 (callgrind, 2026-12-05).
    public func isBelow(_ ancestor: BlueZPath) -> Bool {
        let text = objectPath.rawValue
        let prefix = ancestor.objectPath.rawValue
        let length = prefix.utf8.count
        guard text.utf8.count > length + 1, text.hasPrefix(prefix) else { return false }
        return text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: length)] == UInt8(ascii: "/")
    }

    /// The path BlueZ gives the device with `address` on this adapter.
    public func device(_ address: BluetoothAddress) -> BlueZPath? {
        objectPath.appending(address.devicePathElement).map(BlueZPath.init)
    }
}
