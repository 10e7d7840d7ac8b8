public import BlectlProtocol
import SensorModel

extension Hub {
    /// Stored readings and reading errors the query selects, from the history source: of
    /// all devices, of one address, or of every known device with a name (in any case), as
    /// `read` matches them.
    ///
    /// An address is asked for as it is, known or not (the store may hold readings of a
    /// device not seen since the daemon started). A name is looked up among the devices
    /// seen since then; one that none has is `not_found`.
    public func history(_ query: HistoryQuery) async throws(ErrorInfo) -> HistoryResult {
        guard let historySource else { throw ErrorInfo(.unavailable, "the daemon keeps no history") }
        let limit = min(max(query.limit ?? limits.historyPage, 1), limits.historyPage)
        var result: HistoryResult
        if let selector = query.selector {
            let addresses = try historyAddresses(selectedBy: selector)
            result = await merged(
                addresses.map { address in
                    var one = query
                    one.selector = nil
                    one.address = address
                    return one
                }, from: historySource, limit: limit)
        } else {
            result = await historySource.history(query, limit: limit)
        }
        result.lastSeq = lastSeq
        return result
    }

    /// The addresses a `history` selector stands for.
    private func historyAddresses(selectedBy selector: String) throws(ErrorInfo) -> [BluetoothAddress] {
        if let address = BluetoothAddress(selector) { return [address] }
        let named = table.records.values.filter { matches(selector, address: $0.address, name: $0.name) }
        guard !named.isEmpty else {
            throw ErrorInfo(
                .notFound,
                "no device named \"\(selector)\" has been seen since blectld started; give its address instead")
        }
        return named.map(\.address).sorted()
    }

    /// One page made of the pages of several queries (one per device): the first `limit`
    /// events in the order the query asks for. The next page starts after the last one, so
    /// what a device's page held beyond the cut comes again then.
    private func merged(_ queries: [HistoryQuery], from source: any HistorySource, limit: Int) async
        -> HistoryResult
    {
        guard queries.count > 1 else { return await source.history(queries[0], limit: limit) }
        var events: [Event] = []
        var more = false
        var complete = true
        var gaps = Set<HistoryGap>()
        for query in queries {
            let page = await source.history(query, limit: limit)
            events += page.events
            more = more || page.more
            complete = complete && page.complete
            gaps.formUnion(page.gaps)
        }
        if queries[0].isTimeRange {
            events.sort { ($0.time, $0.seq ?? 0) < ($1.time, $1.seq ?? 0) }
        } else {
            events.sort { ($0.seq ?? 0) < ($1.seq ?? 0) }
        }
        if events.count > limit {
            events.removeLast(events.count - limit)
            more = true
        }
        return HistoryResult(
            events: events, lastSeq: 0, complete: complete, more: more, gaps: gaps.sorted { $0.from < $1.from })
    }
}
