import CLinux
#if canImport(Glibc)
    import Glibc
#endif

/// What a descriptor is ready for.
public struct IOEvents: OptionSet, Sendable {
    /// The bit mask.
    public let rawValue: UInt8

    /// Wraps a bit mask.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Data can be read (or the peer closed its end).
    public static let readable = IOEvents(rawValue: 1 << 0)
    /// Data can be written.
    public static let writable = IOEvents(rawValue: 1 << 1)
    /// The peer hung up; reported to every watch of the descriptor that wants anything.
    /// As the whole interest, it keeps a descriptor watched for hang-ups and errors alone.
    public static let hangup = IOEvents(rawValue: 1 << 2)
    /// An error is pending; reported like ``hangup``.
    public static let error = IOEvents(rawValue: 1 << 3)

    init(epoll mask: UInt32) {
        var events = IOEvents()
        if mask & EPOLLIN.rawValue != 0 { events.insert(.readable) }
        if mask & EPOLLOUT.rawValue != 0 { events.insert(.writable) }
        if mask & EPOLLHUP.rawValue != 0 { events.insert(.hangup) }
        if mask & EPOLLERR.rawValue != 0 { events.insert(.error) }
        self = events
    }

    /// The epoll interest for `readable` and `writable` (epoll always reports the others).
    var epollMask: UInt32 {
        (contains(.readable) ? EPOLLIN.rawValue : 0) | (contains(.writable) ? EPOLLOUT.rawValue : 0)
    }
}

/// A descriptor watched by an ``EventLoop``: its handler runs on the loop's thread when
/// the descriptor is ready for what the watch wants (level-triggered, like `poll`).
///
/// Confined to the loop's thread. Cancel it before closing the descriptor.
public final class IOWatch {
    let fd: Int32
    let handler: (IOEvents) -> Void
    private unowned let reactor: Reactor
    private(set) var isActive = true

    init(fd: Int32, reactor: Reactor, handler: @escaping (IOEvents) -> Void) {
        self.fd = fd
        self.reactor = reactor
        self.handler = handler
        reactor.add(self)
    }

    /// What the handler is called for: `.readable`, `.writable`, both or neither; hang-ups
    /// and errors come with either, and `.hangup` alone asks for just those.
    public var interest: IOEvents = [] {
        didSet {
            guard isActive, interest != oldValue else { return }
            reactor.updateInterest(fd)
        }
    }

    /// Whether the handler is called when the descriptor is readable.
    public var wantsRead: Bool {
        get { interest.contains(.readable) }
        set { if newValue { interest.insert(.readable) } else { interest.remove(.readable) } }
    }

    /// Whether the handler is called when the descriptor is writable.
    public var wantsWrite: Bool {
        get { interest.contains(.writable) }
        set { if newValue { interest.insert(.writable) } else { interest.remove(.writable) } }
    }

    /// Stops watching; the handler is not called again.
    public func cancel() {
        guard isActive else { return }
        isActive = false
        interest = []
        reactor.remove(self)
    }
}

/// A one-shot timer on an ``EventLoop``; confined to the loop's thread.
public final class LoopTimer {
    private unowned let reactor: Reactor
    private var body: (() -> Void)?

    init(reactor: Reactor, body: @escaping () -> Void) {
        self.reactor = reactor
        self.body = body
    }

    /// Whether the timer neither fired nor was cancelled yet.
    public var isPending: Bool { body != nil }

    /// Keeps the timer from firing (if it has not yet).
    public func cancel() {
        guard body != nil else { return }
        body = nil
        reactor.timers.remove(self)
    }

    func fire() {
        guard let body else { return }
        self.body = nil
        body()
    }
}

/// Pending timers ordered by deadline; a few hundred at most (one per D-Bus call in
/// flight), so a sorted array beats a heap's bookkeeping.
struct TimerQueue {
    private var entries: [(deadline: UInt64, timer: LoopTimer)] = []

    var nextDeadline: UInt64? { entries.first?.deadline }

    mutating func insert(_ timer: LoopTimer, deadline: UInt64) {
        // After every entry with the same deadline: timers fire in the order they were set.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
        }
        entries.insert((deadline, timer), at: low)
    }

    mutating func remove(_ timer: LoopTimer) {
        if let index = entries.firstIndex(where: { $0.timer === timer }) { entries.remove(at: index) }
    }

    mutating func popDue(now: UInt64) -> LoopTimer? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        return entries.removeFirst().timer
    }
}
