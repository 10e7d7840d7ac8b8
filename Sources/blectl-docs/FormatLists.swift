import MockBlueZ
import SensorModel
import ThermometerProfiles

/// What a region holds, by the name its markers give.
enum RegionKind: String, CaseIterable {
    /// The advertisement formats' profile ids, in lookup order (`advert_profiles`, a reading's `profile`).
    case ids
    /// The ids of the formats whose data comes in scan responses (they need active scanning).
    case scanResponse = "scan-response"
    /// A Markdown table of what each format's ``SensorFamily`` and profile declare.
    case table
    /// blectl-mock's `--advertiser-formats`, in its order.
    case mockFormats = "mock-formats"
    /// A hand-written Markdown table with one row per format, its ids in backquotes in the
    /// first column: checked to name every format once, never written.
    case handRows = "hand-rows"
    /// blectld's settings, each with its details and default (blectld.conf(5)'s KEYS, the sample
    /// configuration's keys), from the settings tables.
    case settings

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The region's content in `style`; a hand-written region stays `current`.
    ///
    /// Lists in a Markdown line stand alone (`a`, `b`); lists on lines of their own end in a
    /// full stop, as the sentence they close (their markers leave no room for one after).
    func render(_ style: DocumentStyle, current: String) -> String {
        switch self {
        case .ids: list(AdvertisementRegistry.standard.profiles.map(\.id.rawValue), style, current)
        case .scanResponse:
            list(
                AdvertisementRegistry.standard.profiles.filter(\.needsActiveScanning).map(\.id.rawValue), style,
                current)
        case .mockFormats: list(MockAdvertiser.Format.allCases.map(\.rawValue), style, current)
        case .table: "\n" + FormatTable.markdown() + "\n"
        case .handRows: current
        case .settings:
            switch style {
            case .scdoc: SettingsText.scdoc()
            case .configuration: SettingsText.configuration()
            case .markdown: current
            }
        }
    }

    /// What is wrong with a hand-written region: a format without its row, or a row of none.
    func problems(in content: String) -> [String] {
        guard self == .handRows else { return [] }
        let named = content.split(separator: "\n").filter { $0.hasPrefix("|") }.dropFirst(2).flatMap { row in
            (row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first ?? "")
                .split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        let ids = AdvertisementRegistry.standard.profiles.map(\.id.rawValue)
        let table = "a hand-written table (formats:hand-rows)"
        var problems = ids.filter { !named.contains($0) }.map { "\(table) has no row for \($0)" }
        problems += named.filter { !ids.contains($0) }.map { "\(table) names \($0), no format's id" }
        problems += Set(named.filter { id in named.count { $0 == id } > 1 }).sorted().map {
            "\(table) names \($0) twice"
        }
        return problems
    }

    /// `items` as `style` spells them; lines keep the indentation of the region's first line
    /// (`current`), so a list may sit under an indented paragraph.
    private func list(_ items: [String], _ style: DocumentStyle, _ current: String) -> String {
        let indent = current.prefix { $0 == "#" || $0 == " " || $0 == "\t" }
        switch style {
        case .markdown: return items.map { "`\($0)`" }.joined(separator: ", ")
        case .scdoc: return wrap(items.map { "_\($0)_" }, prefix: indent.isEmpty ? "\t" : String(indent))
        case .configuration: return wrap(items, prefix: indent.hasPrefix("# ") ? String(indent) : "# ")
        }
    }

    /// `items`, comma-separated and closed by a full stop, in lines of at most 90 characters
    /// (a tab counting as 2).
    private func wrap(_ items: [String], prefix: String) -> String {
        let width = 90 - prefix.count - prefix.count { $0 == "\t" }
        var lines: [String] = []
        var line = ""
        for (index, item) in items.enumerated() {
            let word = item + (index == items.count - 1 ? "." : ",")
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.map { prefix + $0 + "\n" }.joined()
    }
}

/// The Markdown table of the advertisement formats: what each declares, in lookup order.
enum FormatTable {
    static func markdown() -> String {
        var lines = [
            "| profile id | name | models | field (BlueZ key) | quantities | counter | key |",
            "|---|---|---|---|---|---|---|",
        ]
        for profile in AdvertisementRegistry.standard.profiles {
            let family = profile.family
            let cells = [
                "`\(family.id.rawValue)`", family.name, family.models.joined(separator: ", "), fields(of: profile),
                family.quantities.map(\.name).joined(separator: ", "), counter(family.counterModulus),
                key(family.key),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// `service data 0x181C, 0x181E`, `manufacturer data under any company id, from a device
    /// named …`, and whether the fields are read together or come in the scan response.
    static func fields(of profile: any AdvertisementProfile) -> String {
        var services: [String] = []
        var companies: [String] = []
        for field in profile.fields {
            switch field {
            case .serviceData(let uuid): services.append(uuid.shortValue.map { hex($0) } ?? uuid.uuidString)
            case .manufacturerData(let company): companies.append(hex(UInt32(company)))
            }
        }
        var parts: [String] = []
        if !services.isEmpty { parts.append("service data " + services.joined(separator: ", ")) }
        if !companies.isEmpty { parts.append("manufacturer data " + companies.joined(separator: ", ")) }
        if let names = profile.manufacturerDataNames {
            let spelled = names.rules.map { rule in
                switch rule {
                case .equalsIgnoringCase(let whole): "`\(whole)`"
                case .hasPrefix(let start): "`\(start)…`"
                case .containsIgnoringCase(let part): "`…\(part)…`"
                }
            }
            parts.append(
                "manufacturer data under any company id, from a device named " + spelled.joined(separator: ", "))
        }
        var text = parts.joined(separator: " and ")
        if profile.fields.contains(where: { profile.companion(of: $0) != nil }) { text += ", read together" }
        if profile.needsActiveScanning { text += " (scan response)" }
        return text
    }

    static func counter(_ modulus: UInt64?) -> String {
        guard let modulus else { return "none" }
        return modulus.nonzeroBitCount == 1 ? "\(modulus.trailingZeroBitCount) bits" : "modulo \(modulus)"
    }

    static func key(_ use: SensorFamily.KeyUse) -> String {
        switch use {
        case .none: "none"
        case .optional: "optional"
        case .required: "required"
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
