public import UnixSupport

/// Exponential backoff with jitter for reconnecting.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The first delay.
    public var initialDelay: Duration
    /// The longest delay.
    public var maximumDelay: Duration
    /// The growth factor per failed attempt.
    public var multiplier: Double
    /// The random spread, as a fraction of the delay (0.2 = ±20 %).
    public var jitter: Double

    /// Creates a policy; the defaults retry within a quarter second, then back off to 10 s.
    public init(
        initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(10), multiplier: Double = 2,
        jitter: Double = 0.2
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(multiplier, 1)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before attempt `attempt` (1 for the first retry).
    public func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let base = seconds(initialDelay) * pow(multiplier, Double(max(attempt - 1, 0)))
        let capped = min(base, seconds(maximumDelay))
        let spread = jitter == 0 ? 1 : Double.random(in: (1 - jitter)...(1 + jitter), using: &generator)
        return .milliseconds(Int((capped * spread * 1000).rounded()))
    }

    private func seconds(_ duration: Duration) -> Double {
        let (s, attoseconds) = duration.components
        return Double(s) + Double(attoseconds) / 1e18
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent.rounded()) where result < 1e9 { result *= base }
        return result
    }
}

extension ReconnectPolicy {
    /// The back-off's settings (`reconnect_*`), in the order help lists them; the defaults are
    /// the initialiser's.
    public static let settings: [Setting<Self>] = [
        .duration(
            "reconnect_min", "SECONDS", "First reconnection delay", at: \.initialDelay,
            within: .milliseconds(100)...Duration.seconds(3600)
        )
        .documented(
            "The first reconnection delay after a thermometer is lost, 0.1 s to 1 h."),
        .duration(
            "reconnect_max", "SECONDS", "Largest reconnection delay", at: \.maximumDelay,
            within: .milliseconds(100)...Duration.seconds(86400)
        )
        .documented(
            "The largest reconnection delay (delays double up to it), 0.1 s to 1 day, and not below "
                + "*reconnect_min*."),
        .value("reconnect_jitter", "FRACTION", "Random spread of delays, 0–1", at: \.jitter) {
            text throws(SettingError) in
            guard let jitter = Double(text), (0...1).contains(jitter) else {
                throw SettingError("expected a fraction between 0 and 1, got '\(text)'")
            }
            return jitter
        }
        .documented(
            "The random spread of each delay, 0 to 1 (0.2 = ±20 %)."),
    ]
}
