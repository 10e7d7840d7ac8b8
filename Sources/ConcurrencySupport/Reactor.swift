import CLinux
import UnixSupport
#if canImport(Glibc)
    import Glibc
#endif

/// The machinery behind ``EventLoop``: an epoll set, an eventfd that wakes it, a mailbox
/// of submitted work, the watched descriptors and the timers.
final class Reactor: @unchecked Sendable {
    // @unchecked Sendable: `inbox` is its own lock; everything else is touched only on the
    // loop's thread (`run()` and the handlers it calls; the public entry points check
    // `isCurrent`).

    enum Work {
        case job(UnownedJob, UnownedSerialExecutor)
        case block(@Sendable () -> Void)
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    /// What other threads hand the loop, behind the one lock.
    private struct Inbox {
        var mailbox: [Work] = []
        /// The loop waits (or is about to) with nothing to do: a submission must wake it.
        var sleeping = false
        var stopRequested = false
    }
    private let inbox = Locked(Inbox())
    /// The work being run this turn (the loop's thread only).
    private var running: [Work] = []

    /// Watches by descriptor; libdbus watches one socket twice (reading, writing).
    private var watches: [Int32: [IOWatch]] = [:]
    /// The epoll interest registered for each descriptor.
    private var registered: [Int32: UInt32] = [:]
    var timers = TimerQueue()

    init() {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(epollFD >= 0 && wakeFD >= 0, "cannot create an event loop: \(String(cString: strerror(errno)))")
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeFD))
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    /// Whether the caller runs on this reactor's thread.
    var isCurrent: Bool {
        pthread_getspecific(currentReactorKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    // MARK: Any thread

    func submit(_ work: Work) {
        let wake = inbox.withLock { inbox in
            inbox.mailbox.append(work)
            defer { inbox.sleeping = false }
            return inbox.sleeping
        }
        if wake { eventfd_write(wakeFD, 1) }
    }

    func requestStop() {
        let wake = inbox.withLock { inbox in
            inbox.stopRequested = true
            defer { inbox.sleeping = false }
            return inbox.sleeping
        }
        if wake { eventfd_write(wakeFD, 1) }
    }

    func startThread(name: String) {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                let reactor = Unmanaged<Reactor>.fromOpaque(argument!).takeRetainedValue()
                pthread_setspecific(currentReactorKey, argument)
                reactor.run()
                pthread_setspecific(currentReactorKey, nil)
                return nil
            }, retained)
        precondition(status == 0, "cannot start an event loop thread: \(String(cString: strerror(status)))")
        pthread_setname_np(thread, String(name.utf8.prefix(15)) ?? "event-loop")
        pthread_detach(thread)
    }

    // MARK: The loop's thread

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            runMailbox()
            runDueTimers()
            guard let timeout = prepareToWait() else { break }
            let count = epoll_wait(epollFD, &events, Int32(events.count), timeout)
            inbox.withLock { $0.sleeping = false }
            guard count > 0 else {
                precondition(count == 0 || errno == EINTR, "epoll_wait: \(String(cString: strerror(errno)))")
                continue
            }
            for event in events[0..<Int(count)] { deliver(event) }
        }
        watches = [:]
        timers = TimerQueue()
    }

    /// Runs the submitted work, then what that work submitted, for up to `turnsPerPoll`
    /// turns: a notification's chain of hand-offs (dispatch, hub, clients) then finishes
    /// without an `epoll_wait` between links, and a chain that never ends still lets the
    /// descriptors and timers in.
    private func runMailbox() {
        for _ in 0..<Self.turnsPerPoll {
            // Two buffers swapped under the lock: no allocation per turn.
            inbox.withLock { swap(&$0.mailbox, &running) }
            guard !running.isEmpty else { return }
            for item in running {
                switch item {
                case .job(let job, let executor): job.runSynchronously(on: executor)
                case .block(let body): body()
                }
            }
            running.removeAll(keepingCapacity: true)
        }
    }

    private static let turnsPerPoll = 8

    private func runDueTimers() {
        let now = MonotonicClock.nanoseconds()
        while let timer = timers.popDue(now: now) { timer.fire() }
    }

    /// The `epoll_wait` timeout in milliseconds, or nil when the loop should end.
    private func prepareToWait() -> Int32? {
        let wait: Int32?? = inbox.withLock { inbox in
            if !inbox.mailbox.isEmpty { return .some(0) }
            if inbox.stopRequested { return .some(nil) }
            inbox.sleeping = true
            return nil
        }
        if let wait { return wait }
        guard let deadline = timers.nextDeadline else { return -1 }
        let now = MonotonicClock.nanoseconds()
        guard deadline > now else { return 0 }
        // Rounded up: waking a little early would only spin until the deadline.
        return Int32(clamping: (deadline - now + 999_999) / 1_000_000)
    }

    private func deliver(_ event: epoll_event) {
        let fd = event.data.fd
        if fd == wakeFD {
            var count: eventfd_t = 0
            eventfd_read(wakeFD, &count)
            return
        }
        let ready = IOEvents(epoll: event.events)
        for watch in watches[fd] ?? [] where watch.isActive {
            let wanted = ready.intersection(watch.interest.union([.hangup, .error]))
            if !wanted.isEmpty, !watch.interest.isEmpty { watch.handler(wanted) }
        }
    }

    // MARK: Registrations (the loop's thread)

    func add(_ watch: IOWatch) {
        watches[watch.fd, default: []].append(watch)
    }

    func remove(_ watch: IOWatch) {
        watches[watch.fd]?.removeAll { $0 === watch }
        if watches[watch.fd]?.isEmpty == true { watches[watch.fd] = nil }
        updateInterest(watch.fd)
    }

    /// Registers the union of the descriptor's watches' interests with epoll. A descriptor
    /// that nobody wants to hear from leaves the set: epoll reports hang-ups regardless,
    /// and a level-triggered hang-up nobody handles would spin the loop. One watched for
    /// hang-ups alone stays in the set with an empty mask, which epoll still wakes for
    /// `EPOLLHUP` and `EPOLLERR`.
    func updateInterest(_ fd: Int32) {
        let interest = (watches[fd] ?? []).reduce(IOEvents()) { $0.union($1.interest) }
        let wanted = interest.isEmpty ? nil : interest.epollMask
        let current = registered[fd]
        guard wanted != current else { return }
        var event = epoll_event(events: wanted ?? 0, data: epoll_data_t(fd: fd))
        registered[fd] = wanted
        if wanted == nil {
            epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        } else {
            epoll_ctl(epollFD, current == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
        }
    }
}

/// Which reactor the current thread runs, for ``Reactor/isCurrent``.
private let currentReactorKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()
