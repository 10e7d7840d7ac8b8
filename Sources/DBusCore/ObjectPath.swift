/// A validated D-Bus object path, such as `/org/bluez/hci0`.
public struct ObjectPath: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The path as text.
    public let rawValue: String

    /// The root path `/`.
    public static let root = ObjectPath(unchecked: "/")

    /// Creates a path, or returns nil when `rawValue` breaks the specification's rules.
    public init?(_ rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a path from a literal; traps on an invalid literal (a programming error).
    public init(stringLiteral value: String) {
        precondition(Self.isValid(value), "invalid D-Bus object path literal: \(value)")
        self.rawValue = value
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The path as text.
    public var description: String { rawValue }

    /// Orders paths by their text, so parents sort before their children.
    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Appends one element, such as `dev_00_11_22_33_44_55`; nil when the element is invalid.
    public func appending(_ element: String) -> ObjectPath? {
        ObjectPath(rawValue == "/" ? "/\(element)" : "\(rawValue)/\(element)")
    }

    /// The parent path; nil for the root.
    public var parent: ObjectPath? {
        guard rawValue != "/", let slash = rawValue.lastIndex(of: "/") else { return nil }
        let head = rawValue[..<slash]
        return ObjectPath(unchecked: head.isEmpty ? "/" : String(head))
    }

    /// Whether `self` equals `ancestor` or lies below it.
    public func isDescendant(of ancestor: ObjectPath, includingSelf: Bool = true) -> Bool {
        if self == ancestor { return includingSelf }
        if ancestor.rawValue == "/" { return true }
        return rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    /// The last element of the path (empty for the root).
    public var lastElement: Substring {
        // Bytes, not `Character`s: the Character search cost about 12,000 instructions a
        // call, and every device path's element is looked at per advertisement.
        let utf8 = rawValue.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return rawValue[...] }
        return rawValue[utf8.index(after: slash)...]
    }

    /// Checks the rules: starts with `/`, elements of `[A-Za-z0-9_]`, no empty
    /// element, no trailing `/` except for the root.
    static func isValid(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
                continue
            }
            previousWasSlash = false
            guard isElementByte(byte) else { return false }
        }
        return !previousWasSlash
    }

    private static func isElementByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
