import SensorModel
import UnixSupport

extension DaemonConfiguration {
    /// Applies a configuration file's `key = value` lines over the current settings.
    ///
    /// `#` starts a comment at the beginning of a line or after whitespace; values may be
    /// wrapped in double quotes (keeping a `#` or surrounding spaces); keys may be written
    /// with `-` or `_`. Each key may appear once; every mistake is reported as
    /// `path:line: message`.
    public mutating func apply(fileText text: String, path: String) throws(ConfigurationError) {
        var lineOfKey: [String: Int] = [:]
        // By `isNewline`, not "\n": in a file with CRLF line ends, "\r\n" is one Character.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let line = Self.strippingComment(rawLine).trimmed
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .file(path: path, line: number, message: "expected 'key = value', got '\(line)'")
            }
            let words = line[..<equals].split(whereSeparator: { $0 == " " || $0 == "\t" })
            let key = String((words.first ?? "").lowercased().map { $0 == "-" ? "_" : $0 })
            let value = Self.unquoted(line[line.index(after: equals)...].trimmed)
            if words.count == 2 || words.count == 3 {
                let qualifier = words.count == 3 ? String(words[2]).lowercased() : nil
                try applyDevice(
                    key, String(words[1]), qualifier, value, path: path, line: number, lineOfKey: &lineOfKey)
                continue
            }
            guard words.count == 1, let setting = ConfigurationSetting.named(key) else {
                throw .file(path: path, line: number, message: "unknown key '\(line[..<equals].trimmed)'")
            }
            if let first = lineOfKey[key] {
                throw .file(path: path, line: number, message: "'\(key)' is already set on line \(first)")
            }
            lineOfKey[key] = number
            do {
                try setting.apply(&self, Self.values(value, kind: setting.kind))
            } catch {
                throw .file(path: path, line: number, message: "\(key): \(error.message)")
            }
        }
        if thermometers.reconnect.maximumDelay < thermometers.reconnect.initialDelay {
            let line = lineOfKey["reconnect_max"] ?? lineOfKey["reconnect_min"] ?? 0
            throw .file(path: path, line: line, message: "reconnect_max is smaller than reconnect_min")
        }
    }

    /// A `key ADDRESS = value` line, or `key ADDRESS WHAT = value` (`qualifier`: `WHAT`).
    private mutating func applyDevice(
        _ key: String, _ addressText: String, _ qualifier: String?, _ value: String, path: String, line: Int,
        lineOfKey: inout [String: Int]
    ) throws(ConfigurationError) {
        guard let setting = DeviceSetting.named(key) else {
            throw .file(path: path, line: line, message: "unknown key '\(key)'")
        }
        guard let address = BluetoothAddress(addressText) else {
            throw .file(path: path, line: line, message: "\(key): not a Bluetooth address: '\(addressText)'")
        }
        let choices = setting.qualifiers.joined(separator: " or ")
        switch (qualifier, setting.qualifiers.isEmpty) {
        case (nil, false):
            throw .file(path: path, line: line, message: "\(key) \(address): expected \(choices) before '='")
        case (let qualifier?, true):
            throw .file(path: path, line: line, message: "\(key) \(address): unexpected '\(qualifier)' before '='")
        case (let qualifier?, false) where !setting.qualifiers.contains(qualifier):
            throw .file(
                path: path, line: line, message: "\(key) \(address): unknown '\(qualifier)', expected \(choices)")
        default:
            break
        }
        let where_ = ["\(key) \(address)", qualifier].compactMap(\.self).joined(separator: " ")
        if let first = lineOfKey[where_] {
            throw .file(path: path, line: line, message: "'\(where_)' is already set on line \(first)")
        }
        lineOfKey[where_] = line
        do {
            try setting.apply(&self, address, qualifier, value)
        } catch {
            throw .file(path: path, line: line, message: "\(where_): \(error.message)")
        }
    }

    private static func values(_ value: String, kind: SettingKind) throws(SettingError) -> [String] {
        switch kind {
        case .optional where value.isEmpty, .list where value.isEmpty:
            return []  // `key =`: the default (an optional value's, or an empty list)
        case .single, .boolean, .optional:
            guard !value.isEmpty else { throw SettingError("missing value") }
            return [value]
        case .list:
            break
        }
        let items = value.split(separator: ",", omittingEmptySubsequences: false).map { unquoted($0.trimmed) }
        guard !items.contains(where: \.isEmpty) else { throw SettingError("empty item in list '\(value)'") }
        return items
    }

    /// The line up to a `#` that starts it or follows whitespace, outside double quotes.
    static func strippingComment(_ line: Substring) -> Substring {
        var inQuotes = false
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if character == "\"" { inQuotes.toggle() }
            if character == "#", !inQuotes, previous == " " || previous == "\t" {
                return line[..<index]
            }
            previous = character
        }
        return line
    }

    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.first == "\"", value.last == "\"" else { return value }
        return String(value.dropFirst().dropLast())
    }
}
