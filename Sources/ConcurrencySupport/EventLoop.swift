import Dispatch
import UnixSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A thread that waits in `epoll_wait` and runs, one at a time, submitted work, due
/// timers and descriptor handlers; also a Swift serial executor.
///
/// It is the one context that owns a D-Bus connection's libdbus state, and the actors
/// that work closely with it run on it. It replaces a dispatch queue with dispatch
/// sources because every wake-up counts on a busy bus: libdispatch hands each descriptor
/// event from its manager thread to a worker thread and re-arms it through the manager
/// again; here the thread that waits is the thread that works.
///
/// The thread ends once the loop is released and the work already submitted has run;
/// descriptors still watched then are dropped, not closed.
public final class EventLoop: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `reactor` locks what other threads touch (its mailbox); the
    // rest of it is confined to the loop's thread, which the methods that use it check.
    let reactor: Reactor

    /// Starts a loop on a new thread named after `label` (at most 15 bytes are kept).
    public init(label: String) {
        reactor = Reactor()
        reactor.startThread(name: label)
    }

    deinit {
        reactor.requestStop()
    }

    /// Whether the caller runs on this loop's thread.
    public var isCurrent: Bool { reactor.isCurrent }

    /// Runs `work` on the loop's thread, after the work already submitted.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        reactor.submit(.block(work))
    }

    /// Runs `body` on the loop's thread and returns its result; inline when the caller
    /// already runs there, otherwise blocking the caller until it has run.
    public func sync<T>(_ body: () -> T) -> T {
        if isCurrent { return body() }
        return withoutActuallyEscaping(body) { body in
            let call = BlockingCall(body)
            execute { call.run() }
            return call.wait()
        }
    }

    /// Calls `handler` on this thread whenever `fd` is ready for what the watch asks.
    ///
    /// Call on the loop's thread. The watch starts wanting nothing; set
    /// ``IOWatch/wantsRead`` or ``IOWatch/wantsWrite``. Cancel it before closing `fd`.
    public func watch(_ fd: Int32, handler: @escaping (IOEvents) -> Void) -> IOWatch {
        precondition(isCurrent, "EventLoop.watch is called on the loop's thread")
        return IOWatch(fd: fd, reactor: reactor, handler: handler)
    }

    /// Calls `body` on this thread once `delay` has passed, unless cancelled first.
    ///
    /// Call on the loop's thread.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> LoopTimer {
        precondition(isCurrent, "EventLoop.schedule is called on the loop's thread")
        let timer = LoopTimer(reactor: reactor, body: body)
        reactor.timers.insert(timer, deadline: MonotonicClock.nanoseconds() &+ delay.nanoseconds)
        return timer
    }

    // MARK: SerialExecutor

    /// Runs `job` on the loop's thread, after the work already submitted.
    public func enqueue(_ job: consuming ExecutorJob) {
        reactor.submit(.job(UnownedJob(job), asUnownedSerialExecutor()))
    }

    /// This executor, unowned, for actors that run on it.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed in plain work on the loop (libdbus callbacks).
    public func checkIsolated() {
        precondition(isCurrent, "not on the event loop's thread")
    }

    /// Whether the caller runs on this loop's thread.
    public func isIsolatingCurrentContext() -> Bool? { isCurrent }
}

/// A call handed to the loop's thread while its caller blocks until it has run.
private final class BlockingCall<T>: @unchecked Sendable {
    // @unchecked Sendable: `body` and `result` are touched by the loop's thread between
    // `execute` and `signal()`, and by the caller only after `wait()` returned.
    private var body: (() -> T)?
    private var result: T?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping () -> T) { self.body = body }

    func run() {
        result = body?()
        // Released before the caller resumes: `withoutActuallyEscaping` checks that
        // nothing holds the closure any more.
        body = nil
        done.signal()
    }

    func wait() -> T {
        done.wait()
        return result!
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `0...Int64.max` as a `UInt64`.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? UInt64(Int64.max) : whole &+ UInt64(attoseconds / 1_000_000_000)
    }
}
