import BlectlProtocol

/// One device's temperatures over a window, reduced to at most two points per bucket of
/// time (the lowest and the highest, in the order they came), so a plot of any number of
/// readings has at most ``bucketCount`` × 2 points and keeps its spikes.
///
/// Buckets are aligned on multiples of their width since the epoch, so a series can be
/// extended with newer readings and trimmed at the window's start as time goes on,
/// without reading the history again.
struct PlotSeries: Sendable {
    /// The most buckets a window touches.
    static let bucketCount = 150

    /// A temperature at a time.
    struct Point: Sendable, Equatable {
        var time: Int64
        var celsius: Double
    }

    private struct Bucket: Sendable {
        var low: Point
        var high: Point

        mutating func add(_ point: Point) {
            if point.celsius < low.celsius { low = point }
            if point.celsius > high.celsius { high = point }
        }
    }

    /// The window's length, milliseconds.
    let window: Int64
    /// One bucket's width, milliseconds.
    let width: Int64
    private var buckets: [Int64: Bucket] = [:]
    /// The newest reading taken in (its time and `seq`): the next history page starts after it.
    private(set) var cursor: (time: Timestamp, seq: UInt64)?

    init(window: Duration) {
        let milliseconds = max(Int64(window.components.seconds) * 1000, Int64(Self.bucketCount))
        self.window = milliseconds
        // A window not aligned on bucket boundaries touches one bucket more than it spans.
        let spanned = Int64(Self.bucketCount - 1)
        self.width = (milliseconds + spanned - 1) / spanned
    }

    /// Takes in readings (oldest first, as history pages come); other events only move the cursor.
    mutating func add(_ events: [Event]) {
        for event in events {
            guard case .reading(let reading) = event else {
                if case .readingError(let failure) = event { cursor = (failure.time, failure.seq) }
                continue
            }
            cursor = (reading.time, reading.seq)
            guard let celsius = reading.celsius, celsius.isFinite else { continue }
            let point = Point(time: reading.time.millisecondsSince1970, celsius: celsius)
            let index = Self.floorDivide(point.time, width)
            buckets[index, default: Bucket(low: point, high: point)].add(point)
        }
    }

    /// Forgets the buckets wholly before the window that ends at `now`.
    mutating func trim(endingAt now: Timestamp) {
        let first = Self.floorDivide(now.millisecondsSince1970 - window, width)
        buckets = buckets.filter { $0.key >= first }
    }

    /// The kept points within the window ending at `now`, oldest first.
    func points(endingAt now: Timestamp) -> [Point] {
        let start = now.millisecondsSince1970 - window
        return buckets.keys.sorted().flatMap { index -> [Point] in
            let bucket = buckets[index]!
            let pair = bucket.low.time <= bucket.high.time ? [bucket.low, bucket.high] : [bucket.high, bucket.low]
            return (pair[0] == pair[1] ? [pair[0]] : pair).filter {
                $0.time >= start && $0.time <= now.millisecondsSince1970
            }
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}
