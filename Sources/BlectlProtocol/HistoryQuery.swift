public import SensorModel

/// Which stored readings and reading errors a `history` request asks for, oldest first.
public struct HistoryQuery: Equatable, Sendable {
    /// The device as the client named it, its address or its name (the request's
    /// `address` field), or all when nil; the hub resolves it into ``address``.
    public var selector: String?
    /// The one device a history source answers for, or all when nil.
    public var address: BluetoothAddress?
    /// Only those with a greater `seq` (0: from the first): a client resumes with the last
    /// `seq` it has. In a time range (``isTimeRange``) it counts only at exactly `from`: the
    /// next page of a range asks `from` the last event's time, `since` its `seq`.
    public var since: UInt64
    /// Only those taken at or after this time.
    public var from: Timestamp?
    /// Only those taken before this time.
    public var until: Timestamp?
    /// At most this many (the daemon has a page size of its own, and says when there is more).
    public var limit: Int?

    /// Whether the query is a time range (`from` or `until` given), answered in (time, seq)
    /// order; otherwise it asks by `seq`.
    public var isTimeRange: Bool { from != nil || until != nil }

    /// A query.
    public init(
        address: BluetoothAddress? = nil, selector: String? = nil, since: UInt64 = 0, from: Timestamp? = nil,
        until: Timestamp? = nil, limit: Int? = nil
    ) {
        self.address = address
        self.selector = selector
        self.since = since
        self.from = from
        self.until = until
        self.limit = limit
    }
}
