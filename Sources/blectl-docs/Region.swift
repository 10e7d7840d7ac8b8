import Foundation

/// A document's comment syntax, in which its region markers are written.
///
/// Markdown: `<!-- formats:KIND begin -->` … `<!-- formats:KIND end -->`, on one line (a
/// table cell's list) or on lines of their own (a table); scdoc: `; formats:KIND begin`
/// … `; formats:KIND end`; the sample configuration: `# formats:KIND begin` … `end`, each
/// on a line of its own, the region being the lines between.
enum DocumentStyle {
    case markdown, scdoc, configuration

    init(path: String) {
        self = path.hasSuffix(".md") ? .markdown : path.hasSuffix(".scd") ? .scdoc : .configuration
    }

    /// What comes before and after `formats:KIND begin` in a marker.
    var brackets: (open: String, close: String) {
        switch self {
        case .markdown: ("<!-- ", " -->")
        case .scdoc: ("\n; ", "\n")
        case .configuration: ("\n# ", "\n")
        }
    }
}

/// A failure to read the command line or a document's markers.
struct DocsError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One generated (or checked) part of a document: what sits between its two markers.
struct Region {
    let kind: RegionKind
    let content: Range<String.Index>
}

/// A document and its regions.
struct Document {
    let text: String
    let style: DocumentStyle
    let path: String
    let regions: [Region]

    /// Finds the regions of `text`; a marker of an unknown kind, or one without its end, is an error.
    init(text: String, style: DocumentStyle, path: String) throws(DocsError) {
        self.text = text
        self.style = style
        self.path = path
        let (open, close) = style.brackets
        var regions: [Region] = []
        var searchStart = text.startIndex
        while let begin = text[searchStart...].range(of: open + "formats:") {
            guard let nameEnd = text[begin.upperBound...].range(of: " begin" + close) else {
                throw DocsError("\(path): a formats: marker without ' begin'")
            }
            let name = String(text[begin.upperBound..<nameEnd.lowerBound])
            guard let kind = RegionKind(rawValue: name) else {
                throw DocsError("\(path): unknown region formats:\(name) (known: \(RegionKind.names))")
            }
            let endMarker = open + "formats:\(name) end" + close
            guard let end = text[nameEnd.upperBound...].range(of: endMarker) else {
                throw DocsError("\(path): region formats:\(name) has no '\(endMarker.trimmed)'")
            }
            // A line marker's newline before it belongs to the region's last line.
            let contentEnd = style == .markdown ? end.lowerBound : text.index(after: end.lowerBound)
            regions.append(Region(kind: kind, content: nameEnd.upperBound..<contentEnd))
            searchStart = end.upperBound
        }
        self.regions = regions
    }

    /// The text with every generated region as the code says it should be.
    func rewritten() -> String {
        var result = ""
        var last = text.startIndex
        for region in regions {
            result += text[last..<region.content.lowerBound]
            result += region.kind.render(style, current: String(text[region.content]))
            last = region.content.upperBound
        }
        return result + text[last...]
    }

    /// The kinds of the regions whose content is not what the code says.
    func staleRegions() -> [String] {
        regions.filter { region in
            let current = String(text[region.content])
            return region.kind.render(style, current: current) != current
        }.map(\.kind.rawValue)
    }

    /// What is wrong with the hand-written regions (every format has its row).
    func handWrittenProblems() -> [String] {
        regions.flatMap { region in
            region.kind.problems(in: String(text[region.content])).map { "\(path): \($0)" }
        }
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
