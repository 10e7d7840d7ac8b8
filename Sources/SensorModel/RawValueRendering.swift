/// Renders untrusted characteristic bytes for log lines and error messages.
///
/// Text goes out quoted only if it cannot disturb a terminal or a log: valid UTF-8 with no
/// control, format (bidi overrides, zero-width), private-use or unassigned characters.
/// Anything else is shown as hex. Long values are cut, and the length is always given.
public enum RawValueRendering {
    /// How many bytes (hex) or characters (text) are shown before the rest is elided.
    public static let shownLimit = 32

    /// `"44.7 K" (6 bytes)` for printable text, `<ff fe 34> (3 bytes)` otherwise.
    public static func render(_ bytes: [UInt8]) -> String {
        snippet(bytes) + " (\(bytes.count) \(bytes.count == 1 ? "byte" : "bytes"))"
    }

    /// A part of an untrusted value, such as its unit: `"K"`, or `<1b 5b>` if unprintable.
    public static func render(part text: some StringProtocol) -> String {
        snippet(Array(text.utf8))
    }

    /// The bytes quoted or in hex, elided past ``shownLimit``, without a length.
    private static func snippet(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self), isPrintable(text) {
            return quoted(text)
        }
        let shown = bytes.prefix(shownLimit).map(hexByte).joined(separator: " ")
        let elided = bytes.count > shownLimit ? " …" : ""
        return "<" + shown + elided + ">"
    }

    /// Quotes text, escaping the quote and backslash so the quoted span stays unambiguous.
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == shownLimit {
                result += "…"
                break
            }
            if scalar == "\"" || scalar == "\\" { result += "\\" }
            result.unicodeScalars.append(scalar)
        }
        return result + "\""
    }

    private static func isPrintable(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned,
                .lineSeparator, .paragraphSeparator:
                false
            default:
                true
            }
        }
    }

    private static func hexByte(_ byte: UInt8) -> String {
        (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
    }
}
