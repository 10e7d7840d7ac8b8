#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Pi's CPU temperature as it moves from sample to sample.
struct TemperatureSource: Sendable {
    /// The plausible range of a Pi's CPU temperature that the walks stay in.
    static let range = 40.0...65.0

    /// The temperature in tenths of a degree Celsius: whole tenths keep the counter
    /// pattern exact (no floating-point creep over millions of steps).
    private(set) var tenths: Int
    var pattern: MockTemperaturePattern

    init(celsius: Double, pattern: MockTemperaturePattern) {
        tenths = Int((celsius * 10).rounded())
        self.pattern = pattern
    }

    var celsius: Double { Double(tenths) / 10 }

    mutating func set(celsius: Double) { tenths = Int((celsius * 10).rounded()) }

    /// Moves to the next sample and returns it, in °C.
    mutating func next(using generator: inout SplitMix64) -> Double {
        let low = Int(Self.range.lowerBound * 10)
        let high = Int(Self.range.upperBound * 10)
        switch pattern {
        case .constant:
            break
        case .counter:
            tenths = tenths >= high || tenths < low ? low : tenths + 1
        case .drift:
            // A CPU warms and cools slowly: steps of a few tenths, mostly small, reflected at
            // the range's edges.
            let step = Int.random(in: -3...3, using: &generator) + Int.random(in: -1...1, using: &generator)
            var next = tenths + step
            if next > high { next = 2 * high - next }
            if next < low { next = 2 * low - next }
            tenths = min(max(next, low), high)
        }
        return celsius
    }
}

/// The thermometer's value text exactly as cputemp formats it: `str(round(t, 1)) + " " + unit`.
///
/// `%.1f` rounds the exact binary value half-to-even, as Python's `round` does, and prints
/// the same digits as `str` of the rounded float (`45.0`, `112.5`).
func temperatureText(celsius: Double, unit: MockTemperatureUnit) -> String {
    let value = unit == .fahrenheit ? celsius * 1.8 + 32 : celsius
    return oneDecimal(value) + " " + unit.rawValue
}

private func oneDecimal(_ value: Double) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([value]) { arguments in
        buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%.1f", arguments) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
