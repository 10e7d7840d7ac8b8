/// Text made safe for HTML and SVG: in element content and in double-quoted attributes.
///
/// Names come from the air (any device may advertise any name), so everything that is
/// not our own markup passes through here.
func escaped(_ text: String) -> String {
    text.replacingScalars { scalar in
        switch scalar {
        case "&": "&amp;"
        case "<": "&lt;"
        case ">": "&gt;"
        case "\"": "&quot;"
        case "'": "&#39;"
        case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}": "\u{FFFD}"
        default: nil
        }
    }
}

extension String {
    /// The text with each scalar `replacement` names replaced by its text.
    func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let text = replacement(scalar) {
                result += text
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// A number with at most `digits` decimals and no trailing zeros (`47.3`, `-0.5`, `12`).
func decimal(_ value: Double, digits: Int) -> String {
    let scale = (0..<digits).reduce(1.0) { product, _ in product * 10 }
    let rounded = (value * scale).rounded() / scale
    guard rounded.isFinite else { return "–" }
    if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
    var text = "\(rounded)"
    if text.contains("e") { return text }
    while text.hasSuffix("0") { text.removeLast() }
    return text
}

/// A number with exactly `digits` decimals (`47.0`, `-0.5`), as a reading is shown.
func fixed(_ value: Double, digits: Int) -> String {
    guard value.isFinite else { return "–" }
    let scale = (0..<digits).reduce(1.0) { product, _ in product * 10 }
    let scaled = Int64((abs(value) * scale).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return sign + String(scaled) }
    let whole = scaled / Int64(scale)
    let fraction = String(scaled % Int64(scale))
    return "\(sign)\(whole).\(String(repeating: "0", count: digits - fraction.count))\(fraction)"
}
