import BlectlProtocol
import SensorModel
import ReadingHub

/// The plot series of the devices the page shows, kept between requests and brought up
/// to date from the history with the readings that arrived since the last request.
///
/// The first request for a device and window reads the window's readings (in pages of
/// the history's size, at most ``maxPagesPerRequest`` of them: a longer backlog is read
/// by the next requests); later ones read only what is new. At most ``capacity`` series
/// are kept; the one used longest ago goes first.
actor PlotCache {
    static let capacity = 32
    static let maxPagesPerRequest = 200

    private struct Key: Hashable {
        var address: BluetoothAddress
        var window: Int64
    }

    private struct Entry {
        var series: PlotSeries
        var lastUsed: UInt64
    }

    private let hub: Hub
    private var entries: [Key: Entry] = [:]
    private var uses: UInt64 = 0

    init(hub: Hub) {
        self.hub = hub
    }

    /// The reduced temperatures of `address` over `window` ending at `now`; nil when the
    /// daemon keeps no history.
    func points(address: BluetoothAddress, window: Duration, now: Timestamp) async -> [PlotSeries.Point]? {
        let key = Key(address: address, window: Int64(window.components.seconds))
        var series = entries[key]?.series ?? PlotSeries(window: window)
        let start = Timestamp(millisecondsSince1970: now.millisecondsSince1970 - series.window)
        for _ in 0..<Self.maxPagesPerRequest {
            let cursor: (time: Timestamp, seq: UInt64) =
                series.cursor.map { $0.time >= start ? $0 : (start, 0) } ?? (start, 0)
            let query = HistoryQuery(address: address, since: cursor.seq, from: cursor.time)
            guard let page = try? await hub.history(query) else { return nil }
            series.add(page.events)
            if !page.more { break }
        }
        series.trim(endingAt: now)
        uses += 1
        entries[key] = Entry(series: series, lastUsed: uses)
        if entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            entries[oldest.key] = nil
        }
        return series.points(endingAt: now)
    }
}
