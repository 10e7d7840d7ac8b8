/// A temperature plot as inline SVG: the line of the reduced series, the lowest and
/// highest value as labels, and the window's start, middle and end on the time axis.
///
/// The drawing is ours (coordinates computed here, text escaped); its colours come from
/// the page's style sheet, so it follows the light or dark scheme.
struct PlotSVG {
    static let width = 600.0
    static let height = 160.0
    private static let left = 44.0
    private static let right = 8.0
    private static let top = 10.0
    private static let bottom = 22.0

    let points: [PlotSeries.Point]
    /// The window's end and length, milliseconds.
    let end: Int64
    let window: Int64
    /// Says what is plotted, for screen readers.
    let label: String

    func render() -> String {
        var svg =
            "<svg class=\"plot\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" "
            + "aria-label=\"\(escaped(label))\" data-points=\"\(points.count)\">"
        svg += axes()
        if points.isEmpty {
            svg += "<text class=\"empty\" x=\"\(Int(Self.width / 2))\" y=\"\(Int(Self.height / 2))\" "
            svg += "text-anchor=\"middle\">no readings in this time</text>"
        } else {
            let (low, high) = range
            svg += "<text class=\"value\" x=\"\(Int(Self.left - 4))\" y=\"\(Int(Self.top + 4))\" "
            svg += "text-anchor=\"end\">\(decimal(high, digits: 1))</text>"
            svg += "<text class=\"value\" x=\"\(Int(Self.left - 4))\" y=\"\(Int(Self.height - Self.bottom))\" "
            svg += "text-anchor=\"end\">\(decimal(low, digits: 1))</text>"
            svg += "<path class=\"line\" d=\"\(path(low: low, high: high))\"/>"
        }
        return svg + "</svg>"
    }

    /// The lowest and highest value, spread by at least 1 °C so a flat line sits mid-plot.
    private var range: (Double, Double) {
        let values = points.map(\.celsius)
        var low = values.min()!
        var high = values.max()!
        if high - low < 1 {
            let middle = (low + high) / 2
            (low, high) = (middle - 0.5, middle + 0.5)
        }
        return (low, high)
    }

    private func axes() -> String {
        let plotBottom = Self.height - Self.bottom
        var svg = "<path class=\"axis\" d=\"M\(Int(Self.left)) \(Int(Self.top))V\(Int(plotBottom))"
        svg += "H\(Int(Self.width - Self.right))\"/>"
        let hours = Double(window) / 3_600_000
        let ticks: [(Double, String, String)] = [
            (0, "start", "−\(decimal(hours, digits: 1)) h"), (0.5, "middle", "−\(decimal(hours / 2, digits: 1)) h"),
            (1, "end", "now"),
        ]
        for (fraction, anchor, text) in ticks {
            let x = Self.left + fraction * (Self.width - Self.left - Self.right)
            svg += "<text class=\"tick\" x=\"\(decimal(x, digits: 1))\" y=\"\(Int(Self.height - 6))\" "
            svg += "text-anchor=\"\(anchor)\">\(escaped(text))</text>"
        }
        return svg
    }

    /// The line: one segment per run of points without a long silence between them; a
    /// lone point is drawn as a dot (a zero-length segment with round caps).
    private func path(low: Double, high: Double) -> String {
        let spanX = Self.width - Self.left - Self.right
        let spanY = Self.height - Self.top - Self.bottom
        let start = end - window
        let breakAfter = silence
        var d = ""
        var previous: PlotSeries.Point?
        var segmentLength = 0
        for point in points {
            let x = Self.left + Double(point.time - start) / Double(window) * spanX
            let y = Self.top + (high - point.celsius) / (high - low) * spanY
            let coordinates = "\(decimal(x, digits: 1)) \(decimal(y, digits: 1))"
            if let previous, point.time - previous.time <= breakAfter {
                d += "L\(coordinates)"
                segmentLength += 1
            } else {
                if previous != nil, segmentLength == 0 { d += "l0 0" }
                d += "M\(coordinates)"
                segmentLength = 0
            }
            previous = point
        }
        if segmentLength == 0 { d += "l0 0" }
        return d
    }

    /// A gap longer than this breaks the line: three times the usual interval between
    /// points (the median), and at least three buckets.
    private var silence: Int64 {
        let gaps = zip(points.dropFirst(), points).map { $0.time - $1.time }.sorted()
        let median = gaps.isEmpty ? 0 : gaps[gaps.count / 2]
        return max(3 * median, 3 * window / Int64(PlotSeries.bucketCount))
    }
}
