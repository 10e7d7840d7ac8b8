public import BlectlProtocol
public import ReadingHub

extension HistoryStore: HistorySource {
    /// The page a `history` request asks for: by `seq`, or by time when the query has
    /// `from` or `until` (then in time order, `since` counting only at exactly `from`, as a
    /// next page asks).
    public func history(_ query: HistoryQuery, limit: Int) async -> HistoryResult {
        let page =
            if query.isTimeRange {
                await page(
                    address: query.address, from: query.from ?? Timestamp(millisecondsSince1970: 0), after: query.since,
                    until: query.until, limit: limit)
            } else {
                await page(address: query.address, since: query.since, limit: limit)
            }
        return HistoryResult(events: page.events, lastSeq: 0, complete: page.complete, more: page.more)
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
