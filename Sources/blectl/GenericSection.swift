import BlectlProtocol

/// `blectl status` for a section it has no renderer for (one a newer daemon or another
/// output adds): a row headed by its name (`foo_bar` is `Foo bar:`) with its values as
/// `key value`, one a row, and each list of objects as a table below the summary, its
/// columns the objects' keys in upper case.
enum GenericSection {
    static func part(_ name: String, _ value: JSONValue) -> StatusPart {
        let heading = capitalized(words(name))
        var lines: [String] = []
        var tables: [StatusPart.Table] = []
        switch value {
        case .object(let members) where !members.isEmpty:
            collect(members, prefix: "", heading: heading, lines: &lines, tables: &tables)
        case .array(let elements) where isTable(elements):
            tables.append(table(elements, title: heading + ":"))
        default:
            lines.append(text(value))
        }
        let rows = lines.enumerated().map { index, line in [index == 0 ? heading + ":" : "", line] }
        return StatusPart(rows: rows, tables: tables)
    }

    /// The members in key order: scalars and lists of scalars as lines, nested objects
    /// flattened (`link.state up`), lists of objects as tables.
    private static func collect(
        _ members: [String: JSONValue], prefix: String, heading: String, lines: inout [String],
        tables: inout [StatusPart.Table]
    ) {
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            let label = prefix + key
            switch value {
            case .object(let inner) where !inner.isEmpty:
                collect(inner, prefix: label + ".", heading: heading, lines: &lines, tables: &tables)
            case .array(let elements) where isTable(elements):
                tables.append(table(elements, title: "\(heading) \(words(label)):"))
            default:
                lines.append("\(label) \(text(value))")
            }
        }
    }

    private static func isTable(_ elements: [JSONValue]) -> Bool {
        !elements.isEmpty && elements.allSatisfy { if case .object = $0 { true } else { false } }
    }

    /// One row per object, a column per key any of them has (in key order), `–` where one lacks it.
    private static func table(_ elements: [JSONValue], title: String) -> StatusPart.Table {
        let objects = elements.map { element -> [String: JSONValue] in
            if case .object(let members) = element { members } else { [:] }
        }
        let columns = Set(objects.flatMap(\.keys)).sorted()
        let header = [""] + columns.map { words($0).uppercased() }
        let rows = objects.map { object in [""] + columns.map { object[$0].map(text) ?? "–" } }
        return StatusPart.Table(title: title, rows: [header] + rows)
    }

    /// A value as one cell: scalars as they are (`null` as `–`), lists joined by commas
    /// (`none` when empty), an object as its JSON.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "–"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let text): text
        case .string(let text): text
        case .array(let elements): elements.isEmpty ? "none" : elements.map(text).joined(separator: ", ")
        case .object: (try? JSONLines.encodeString(value)) ?? "{…}"
        }
    }

    private static func words(_ key: String) -> String {
        key.replacing("_", with: " ")
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
