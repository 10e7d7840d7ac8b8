import Daemon
import UnixSupport

/// blectld's settings as the man page and the sample configuration list them: each section's
/// heading and introduction, then each setting's details, written from the settings tables
/// (`ConfigurationSetting.sections`), so that a setting is documented where it is declared.
enum SettingsText {
    /// The KEYS of blectld.conf(5): `## Title`, its introduction, and `*key* = _VALUE_` entries.
    static func scdoc() -> String {
        DaemonConfiguration.settingSections.map { section in
            var parts = ["## \(section.title)\n"]
            if let introduction = section.introduction {
                parts.append(wrap(introduction, prefix: "", width: 90))
            }
            parts += section.settings.map(entry)
            return parts.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The sample configuration: a heading per section, then each setting's details as comments
    /// and its `# key = default` line.
    static func configuration() -> String {
        DaemonConfiguration.settingSections.map { section in
            var parts = ["# ---- \(section.title) ----\n" + (section.introduction.map { plain($0) } ?? "")]
            parts += section.settings.map { setting in
                var text = plain(sentences(setting, withDefault: false))
                text += "# \(setting.key) = \(shown(setting))".trimmingTrailingSpaces + "\n"
                return text
            }
            return parts.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Settings without details (the documents would say nothing of them).
    static func undocumented() -> [String] {
        DaemonConfiguration.settingSections.flatMap(\.settings).filter { ($0.details ?? "").isEmpty }.map(\.key)
    }

    /// `*key* = _VALUE_` and the indented paragraph.
    private static func entry(_ setting: Setting<DaemonConfiguration>) -> String {
        let value =
            switch setting.kind {
            case .boolean: "_yes_|_no_"
            case .list: "_\(setting.valueName)_, ..."
            case .single, .optional: "_\(setting.valueName)_"
            }
        return "*\(setting.key)* = \(value)\n" + wrap(sentences(setting, withDefault: true), prefix: "\t", width: 90)
    }

    /// The details, then the default unless they speak of it themselves, then the option.
    private static func sentences(_ setting: Setting<DaemonConfiguration>, withDefault: Bool) -> String {
        var text = setting.details ?? ""
        let value = shown(setting)
        if withDefault, !value.isEmpty, !text.lowercased().contains("default") {
            text += " Default " + (value.first?.isNumber == true ? value : "_\(value)_") + "."
        }
        if let flag = setting.flag {
            text += " Option *--\(flag)*" + (setting.kind == .list ? ", repeated." : ".")
        }
        return text
    }

    /// The default's spelling in the file.
    private static func shown(_ setting: Setting<DaemonConfiguration>) -> String {
        setting.shown?(DaemonConfiguration()) ?? ""
    }

    /// `text` without scdoc's markup, as comments of at most 92 columns.
    private static func plain(_ text: String) -> String {
        wrap(stripped(text), prefix: "# ", width: 92)
    }

    /// `*bold*` and `_italic_` as plain text: an underscore stays between letters or digits
    /// (`mqtt_url`), a backslash keeps the character it escapes.
    static func stripped(_ text: String) -> String {
        let characters = Array(text)
        var result = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let before = index > 0 ? characters[index - 1] : " "
            let after = index + 1 < characters.count ? characters[index + 1] : " "
            switch character {
            case "\\" where index + 1 < characters.count:
                result.append(after)
                index += 1
            case "*": break
            case "_" where !(before.isLetter || before.isNumber) || !(after.isLetter || after.isNumber): break
            default: result.append(character)
            }
            index += 1
        }
        return result
    }

    /// `text` in lines of at most `width` columns (a tab counting as 2) after `prefix`. No
    /// unindented line starts with `*` (a definition, to the man page's test), no comment with
    /// `word =` (a setting, to the sample configuration's readers and test): the word before
    /// goes down with it.
    static func wrap(_ text: String, prefix: String, width: Int) -> String {
        let room = width - prefix.count - prefix.count { $0 == "\t" }
        let words = text.split(separator: " ").map(String.init)
        var lines: [[String]] = []
        var line: [String] = []
        var length = 0
        for (index, word) in words.enumerated() {
            if !line.isEmpty, length + 1 + word.count > room {
                let next = index + 1 < words.count ? words[index + 1] : ""
                var carried: [String] = []
                let definition = prefix.isEmpty && word.hasPrefix("*")
                let setting = prefix.hasPrefix("#") && next == "="
                if definition || setting, line.count > 1 { carried = [line.removeLast()] }
                lines.append(line)
                line = carried
                length = carried.first?.count ?? 0
            }
            length += (line.isEmpty ? 0 : 1) + word.count
            line.append(word)
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { prefix + $0.joined(separator: " ") + "\n" }.joined()
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        String(self[..<(lastIndex { $0 != " " }.map { index(after: $0) } ?? startIndex)])
    }
}
