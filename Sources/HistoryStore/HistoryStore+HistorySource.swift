public import BlectlProtocol
public import ReadingHub

extension HistoryStore: HistorySource {
    /// The page a `history` request asks for: by `seq`, or by time when the query has
    /// `from` or `until` (then in time order, `since` counting only at exactly `from`, as a
    /// next page asks).
    ///
    /// A time range also has the gaps recorded in the span its page covers (up to the last
    /// event when more follow).
    public func history(_ query: HistoryQuery, limit: Int) async -> HistoryResult {
        guard query.isTimeRange else {
            let page = await page(address: query.address, since: query.since, limit: limit)
            return HistoryResult(events: page.events, lastSeq: 0, complete: page.complete, more: page.more)
        }
        let from = query.from ?? Timestamp(millisecondsSince1970: 0)
        let page = await page(address: query.address, from: from, after: query.since, until: query.until, limit: limit)
        let spanEnd = page.more ? page.events.last?.storedTime : query.until
        let gaps = await gaps(address: query.address, from: from, until: spanEnd)
        return HistoryResult(events: page.events, lastSeq: 0, complete: page.complete, more: page.more, gaps: gaps)
    }

    /// Keeps a gap (``recordGap(_:)``).
    public func record(gap: HistoryGap) {
        recordGap(gap)
    }
}

extension HistoryStore: HubOutput {
    /// `"history"`.
    public var outputName: String { "history" }

    /// Keeps every reading from now on, answers `history` requests and adds the store's part
    /// of `status` (``Hub/attach(history:)``).
    public func attach(to hub: Hub) async {
        await hub.attach(history: self)
    }
}
