#if canImport(Glibc)
    import Glibc
#endif

/// Checks values against the D-Bus specification before they reach libdbus.
///
/// Limits: container nesting 64 (at most 32 arrays and 32 structs deep), 64 MiB
/// per array, 128 MiB per message, strings without NUL, array elements of the
/// declared type, dictionary keys of a basic type, unix descriptors that are open (a
/// message read from a peer can hold `-1`: libdbus's value for an index past the
/// descriptors that came with it).
enum ValueValidator {
    static let maximumArrayBytes = 64 * 1024 * 1024
    static let maximumMessageBytes = 128 * 1024 * 1024
    static let maximumDepth = 64
    static let maximumArrayDepth = 32
    static let maximumStructDepth = 32

    static func validate(_ values: [DBusValue]) throws {
        var total = 0
        for value in values {
            total += try size(of: value, depth: Depth())
            guard total <= maximumMessageBytes else {
                throw DBusEncodingError("message body over \(maximumMessageBytes) bytes")
            }
        }
    }

    private struct Depth {
        var all = 0, arrays = 0, structs = 0

        func entering(array: Bool = false, structure: Bool = false) throws -> Depth {
            var next = self
            next.all += 1
            if array { next.arrays += 1 }
            if structure { next.structs += 1 }
            guard next.all <= maximumDepth, next.arrays <= maximumArrayDepth,
                next.structs <= maximumStructDepth
            else { throw DBusEncodingError("value nested deeper than D-Bus allows") }
            return next
        }
    }

    /// Returns an estimate of the marshalled size, throwing on any violation.
    private static func size(of value: DBusValue, depth: Depth) throws -> Int {
        switch value {
        case .string(let s):
            guard !s.utf8.contains(0) else { throw DBusEncodingError("string contains a NUL byte") }
            return s.utf8.count + 5
        case .objectPath(let p): return p.rawValue.utf8.count + 5
        case .signature(let g): return g.rawValue.utf8.count + 2
        case .array(let element, let items):
            guard element.isSingleCompleteType, !element.rawValue.hasPrefix("{") else {
                throw DBusEncodingError("invalid array element type '\(element)'")
            }
            let inner = try depth.entering(array: true)
            var bytes = 0
            for item in items {
                guard item.signatureText == element.rawValue else {
                    throw DBusEncodingError("array of '\(element)' holds a '\(item.signatureText)'")
                }
                bytes += try size(of: item, depth: inner)
                guard bytes <= maximumArrayBytes else {
                    throw DBusEncodingError("array over \(maximumArrayBytes) bytes")
                }
            }
            return bytes + 8
        case .dictionary(let dictionary):
            return try dictionarySize(
                key: dictionary.key, valueType: dictionary.value, dictionary.entries, depth: depth)
        case .structure(let fields):
            guard !fields.isEmpty else { throw DBusEncodingError("empty struct") }
            let inner = try depth.entering(structure: true)
            return try fields.reduce(8) { $0 + (try size(of: $1, depth: inner)) }
        case .variant(let inner):
            return try size(of: inner, depth: try depth.entering()) + inner.signatureText.utf8.count + 2
        case .unixFD(let descriptor):
            guard fcntl(descriptor.rawValue, F_GETFD) >= 0 else {
                throw DBusEncodingError("file descriptor \(descriptor.rawValue) is not open")
            }
            return 8
        default:
            return 8
        }
    }

    private static func dictionarySize(
        key: Signature, valueType: Signature, _ entries: [DBusDictionaryEntry], depth: Depth
    ) throws -> Int {
        guard Signature("a{\(key.rawValue)\(valueType.rawValue)}") != nil else {
            throw DBusEncodingError("invalid dictionary type a{\(key)\(valueType)}")
        }
        let inner = try depth.entering(array: true).entering(structure: true)
        var bytes = 0
        for entry in entries {
            guard entry.key.signatureText == key.rawValue, entry.value.signatureText == valueType.rawValue else {
                throw DBusEncodingError(
                    "dictionary a{\(key)\(valueType)} holds {\(entry.key.signatureText)\(entry.value.signatureText)}")
            }
            bytes += try size(of: entry.key, depth: inner) + size(of: entry.value, depth: inner) + 8
            guard bytes <= maximumArrayBytes else { throw DBusEncodingError("array over \(maximumArrayBytes) bytes") }
        }
        return bytes + 8
    }
}
