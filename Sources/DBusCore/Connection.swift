import CBlueZ
public import ConcurrencySupport

/// A private connection to a message bus, driven by its own event loop.
///
/// All libdbus work for the connection happens on ``executor``'s thread; the actor
/// runs there too, so libdbus callbacks enter it without hops. Method calls are
/// asynchronous (`dbus_connection_send_with_reply` plus a pending-call notify),
/// never a blocking `_and_block` call.
public actor DBusConnection {
    /// The event loop (and executor) that owns this connection's libdbus state.
    public nonisolated let executor: EventLoop
    /// The connection's unique name on the bus, such as `:1.42`.
    public nonisolated let uniqueName: String

    /// The connection's event loop, as the actor's executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let raw: RawConnection
    private let loop: MainLoop
    private let router: FilterContext
    /// Whether the API is usable: false once closed or dropped by the bus.
    private var isOpen = true
    /// Whether libdbus's connection and the loop's sources were released (by `close()`).
    private var isReleased = false
    /// Calls awaiting replies; failed when the connection drops, since libdbus
    /// then forgets them without ever calling their notify.
    private var outstandingCalls: [ObjectIdentifier: PendingReply] = [:]
    /// The budget of calls awaiting replies (see ``CallBudget``), and the calls waiting for a place.
    private var budget: CallBudget
    private var budgetWaiters: [UInt64: BudgetWaiter] = [:]
    private var nextToken: UInt64 = 0
    private var signalRoutes: [UInt64: SignalRoute] = [:]
    /// Owners of the well-known names subscriptions name as sender (see ``SenderOwners``).
    private var senderOwners = SenderOwners()
    /// Signals dropped because their sender does not own the well-known name their rule names.
    public private(set) var rejectedSignals: UInt64 = 0
    private var rejectedSignalHandler: (@Sendable (DBusMessage) -> Void)?
    private var disconnectHandlers: [UInt64: DisconnectHandler] = [:]
    /// Whether the bus dropped the connection (rather than `close()` closing it).
    private var wasDropped = false
    private var methodCallHandler: (@Sendable (DBusMessage) -> Bool)?

    private init(raw: RawConnection, executor: EventLoop, uniqueName: String, maxOutstandingCalls: Int) {
        self.raw = raw
        self.executor = executor
        self.uniqueName = uniqueName
        self.budget = CallBudget(limit: maxOutstandingCalls)
        self.loop = MainLoop(connection: raw.pointer, eventLoop: executor)
        self.router = FilterContext()
    }

    /// Opens a private connection and registers it with the bus.
    ///
    /// - Parameters:
    ///   - label: names the connection's thread (seen in `top -H` and debuggers).
    ///   - maxOutstandingCalls: the most calls awaiting replies at once; later calls wait
    ///     their turn (see ``call(_:timeout:priority:)``). The default, 32, stays well below
    ///     dbus-daemon's 128 pending replies per connection on the system bus.
    public static func connect(
        to bus: BusAddress, label: String = "dbus", maxOutstandingCalls: Int = defaultMaxOutstandingCalls
    ) async throws -> DBusConnection {
        let executor = EventLoop(label: "dbus-\(label)")
        let (raw, name) = try await withCheckedThrowingContinuation { continuation in
            // Connecting and the Hello handshake block; they run on the
            // connection's own thread, never on a Swift concurrency thread.
            executor.execute { continuation.resume(with: Result { try RawConnection.open(bus) }) }
        }
        let connection = DBusConnection(
            raw: raw, executor: executor, uniqueName: name, maxOutstandingCalls: maxOutstandingCalls)
        await connection.start()
        return connection
    }

    private func start() {
        router.connection = self
        let context = Unmanaged.passRetained(router).toOpaque()
        dbus_connection_add_filter(raw.pointer, filter, context) { Unmanaged<FilterContext>.fromOpaque($0!).release() }
        loop.start()
    }

    deinit {
        guard !isReleased else { return }
        let (raw, loop) = (raw, loop)
        executor.execute {
            loop.stop()
            dbus_connection_close(raw.pointer)
            dbus_connection_unref(raw.pointer)
        }
    }

    /// Whether the connection is still open (not closed, not dropped by the bus).
    public var isConnected: Bool { isOpen && dbus_connection_get_is_connected(raw.pointer) != 0 }

    /// Closes the connection: pending calls fail, signal streams finish.
    ///
    /// Also releases a connection the bus already dropped.
    public func close() {
        guard !isReleased else { return }
        isReleased = true
        dbus_connection_close(raw.pointer)
        // Dispatching what is left delivers the queued messages, then the local
        // Disconnected signal (→ handleDisconnect, which fails calls still waiting).
        while dbus_connection_dispatch(raw.pointer) == DBUS_DISPATCH_DATA_REMAINS {}
        handleDisconnect()
        loop.stop()
        router.connection = nil
        dbus_connection_unref(raw.pointer)
    }

    // MARK: Sending

    /// Sends a message without waiting for any reply (signals, replies, no-reply calls).
    public func send(_ message: DBusMessage) throws {
        guard isConnected else { throw DBusError.disconnected() }
        guard dbus_connection_send(raw.pointer, message.raw, nil) != 0 else {
            throw DBusError(name: DBusError.Name.noMemory, message: "cannot queue message")
        }
    }

    /// The default budget of calls awaiting replies on one connection.
    public static let defaultMaxOutstandingCalls = 32

    /// Calls awaiting replies now, and calls waiting for a place in the budget.
    public var callLoad: (outstanding: Int, waiting: Int) { (budget.outstanding, budget.waiting) }

    /// Sends a method call and waits for its reply, at most `timeout` in all.
    ///
    /// An error reply throws ``DBusError`` with the peer's error name; no reply in
    /// time throws `org.freedesktop.DBus.Error.NoReply`; a peer that leaves the bus
    /// mid-call and a dropped connection throw as well. Cancelling the task cancels
    /// the call.
    ///
    /// When the connection's budget of outstanding calls is spent, the call waits for a
    /// place (`priority` decides who goes first). `LimitsExceeded` from the bus is taken
    /// as back-pressure: the call waits for a place again and is sent again. A call that
    /// finds no place within `timeout` throws `org.freedesktop.DBus.Error.LimitsExceeded`
    /// without having been sent.
    public func call(
        _ message: DBusMessage, timeout: Duration = .seconds(25), priority: CallPriority = .normal
    ) async throws -> DBusMessage {
        let deadline = ContinuousClock.now + timeout
        var message = message
        while true {
            try await takePlace(priority, until: deadline)
            do {
                let reply = try await send(message, timeout: deadline - .now)
                returnPlace()
                return reply
            } catch let error as DBusError where error.name == DBusError.Name.limitsExceeded {
                // dbus-daemon's own limit, lower than our budget: wait for a reply, try again.
                wake(budget.refused())
                if budget.outstanding == 0 { try await executor.sleep(for: .milliseconds(50)) }
                message = try message.copy()
            } catch {
                returnPlace()
                throw error
            }
        }
    }

    /// Waits for a place in the budget until `deadline`.
    private func takePlace(_ priority: CallPriority, until deadline: ContinuousClock.Instant) async throws {
        try Task.checkCancellation()
        guard isConnected else { throw DBusError.disconnected() }
        nextToken += 1
        let id = nextToken
        guard !budget.request(id, priority) else { return }
        let executor = self.executor
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let timer = executor.schedule(after: deadline - .now) { [weak self] in
                    self?.assumeIsolated { $0.endWait(id, DBusError.noPlace(in: $0.budget)) }
                }
                budgetWaiters[id] = BudgetWaiter(continuation: continuation, deadline: timer)
                if Task.isCancelled { endWait(id, CancellationError()) }
            }
        } onCancel: {
            executor.execute { [weak self] in self?.assumeIsolated { $0.endWait(id, CancellationError()) } }
        }
    }

    /// Gives a place back after a reply (or a failure), letting the next calls go.
    private func returnPlace() { wake(budget.release()) }

    private func wake(_ ids: [UInt64]) {
        for id in ids {
            guard let waiter = budgetWaiters.removeValue(forKey: id) else { continue }
            waiter.deadline.cancel()
            waiter.continuation.resume()
        }
    }

    /// A waiting call gives up (deadline, cancellation).
    private func endWait(_ id: UInt64, _ error: any Error) {
        guard budget.withdraw(id), let waiter = budgetWaiters.removeValue(forKey: id) else { return }
        waiter.deadline.cancel()
        waiter.continuation.resume(throwing: error)
    }

    /// Sends a call now (its place in the budget taken) and waits for the reply.
    private func send(_ message: DBusMessage, timeout: Duration) async throws -> DBusMessage {
        try Task.checkCancellation()
        guard isConnected else { throw DBusError.disconnected() }
        var pendingCall: OpaquePointer?
        guard dbus_connection_send_with_reply(raw.pointer, message.raw, &pendingCall, Self.milliseconds(timeout)) != 0
        else { throw DBusError(name: DBusError.Name.noMemory, message: "cannot queue call") }
        guard let pendingCall else { throw DBusError.disconnected() }
        let pending = PendingReply(pendingCall)
        pending.arm()
        let key = ObjectIdentifier(pending)
        outstandingCalls[key] = pending
        defer { outstandingCalls[key] = nil }
        let executor = self.executor
        let reply = try await withTaskCancellationHandler {
            try await withCheckedContinuation { pending.outcome.wait($0) }.get()
        } onCancel: {
            executor.execute { pending.cancel() }
        }
        if let error = reply.error { throw error }
        return reply
    }

    /// Calls a method by its parts; see ``call(_:timeout:priority:)``.
    public func call(
        destination: String, path: ObjectPath, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25), priority: CallPriority = .normal
    ) async throws -> DBusMessage {
        let message = try DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        return try await call(message, timeout: timeout, priority: priority)
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(ms, 1))
    }

    // MARK: Receiving

    /// Calls `handler` on the connection's event loop for every signal matching `rule`.
    ///
    /// The rule is added on the bus before this returns, so no matching signal
    /// sent after the call is missed. Handlers run in arrival order.
    ///
    /// A well-known `sender` (`org.bluez`) is checked against the name's current owner:
    /// a signal from anyone else (sent straight to this connection, say) is dropped and
    /// counted in ``rejectedSignals``; while the name has no owner, every signal is.
    public func addSignalHandler(
        _ rule: MatchRule, handler: @escaping @Sendable (DBusMessage) -> Void
    ) async throws -> SignalSubscription {
        if SenderOwners.needsTracking(rule.sender), let name = rule.sender { try await trackOwner(of: name) }
        nextToken += 1
        let token = nextToken
        signalRoutes[token] = SignalRoute(rule: rule, handler: handler)
        do {
            _ = try await call(
                destination: BusDaemon.name, path: BusDaemon.path, interface: BusDaemon.interface,
                member: "AddMatch", arguments: [.string(rule.description)])
        } catch {
            signalRoutes[token] = nil
            throw error
        }
        return SignalSubscription(token: token, rule: rule)
    }

    /// Follows who owns `name`: `NameOwnerChanged` first, then `GetNameOwner`, so no change
    /// between the two is missed.
    private func trackOwner(of name: String) async throws {
        guard !senderOwners.isTracked(name) else { return }
        let generation = senderOwners.track(name)
        _ = try await watchNameOwner(name) { _ in }  // route() applies every change first
        senderOwners.resolved(name, owner: try await nameOwner(name), generation: generation)
    }

    /// Calls `handler` for each signal dropped because its sender does not own the
    /// well-known name its subscription names (for counting and logging).
    public func setRejectedSignalHandler(_ handler: (@Sendable (DBusMessage) -> Void)?) {
        rejectedSignalHandler = handler
    }

    /// Stops a subscription and removes its rule from the bus.
    func removeSignalHandler(_ subscription: SignalSubscription) {
        guard signalRoutes.removeValue(forKey: subscription.token) != nil, isConnected else { return }
        if let message = try? DBusMessage.methodCall(
            destination: BusDaemon.name, path: BusDaemon.path, interface: BusDaemon.interface,
            member: "RemoveMatch", arguments: [.string(subscription.rule.description)])
        {
            message.setNoReply(true)
            try? send(message)
        }
    }

    /// Signals matching `rule` as a bounded stream that keeps the newest
    /// `bufferSize` signals when its consumer falls behind.
    ///
    /// The stream finishes when the connection closes; ending the iteration
    /// removes the subscription.
    public func signals(matching rule: MatchRule, bufferSize: Int = 256) async throws -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: DBusMessage.self, bufferingPolicy: .bufferingNewest(bufferSize))
        let subscription = try await addSignalHandler(rule) { continuation.yield($0) }
        let token = addDisconnectHandler { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.endStream(subscription, disconnectToken: token) }
        }
        return stream
    }

    private func endStream(_ subscription: SignalSubscription, disconnectToken: UInt64) {
        removeSignalHandler(subscription)
        disconnectHandlers[disconnectToken] = nil
    }

    /// Calls `handler` once when the connection drops or is closed; returns a token.
    @discardableResult
    public func addDisconnectHandler(_ handler: @escaping @Sendable () -> Void) -> UInt64 {
        addHandler(DisconnectHandler(onlyWhenDropped: false, run: handler))
    }

    /// Calls `handler` once if the bus drops the connection (dbus-daemon exited or
    /// threw us out), but not when ``close()`` closes it; returns a token.
    @discardableResult
    public func addDropHandler(_ handler: @escaping @Sendable () -> Void) -> UInt64 {
        addHandler(DisconnectHandler(onlyWhenDropped: true, run: handler))
    }

    private func addHandler(_ handler: DisconnectHandler) -> UInt64 {
        guard isOpen else {
            if wasDropped || !handler.onlyWhenDropped { handler.run() }
            return 0
        }
        nextToken += 1
        disconnectHandlers[nextToken] = handler
        return nextToken
    }

    /// Installs the handler for incoming method calls (the object server's entry).
    ///
    /// It runs on the connection's event loop and returns whether it took the call;
    /// calls it does not take get libdbus's `UnknownMethod` error.
    func setMethodCallHandler(_ handler: (@Sendable (DBusMessage) -> Bool)?) {
        methodCallHandler = handler
    }

    /// Routes one incoming message; runs on the event loop inside `dbus_connection_dispatch`.
    fileprivate func route(_ message: DBusMessage) -> Bool {
        switch message.kind {
        case .signal:
            let header = SignalHeader(message)
            if header.interface == "org.freedesktop.DBus.Local", header.member == "Disconnected" {
                handleDisconnect()
                return true
            }
            if header.sender == BusDaemon.name, header.member == "NameOwnerChanged",
                header.interface == BusDaemon.interface, let change = NameOwnerChange(message)
            {
                senderOwners.changed(change)
            }
            var rejected = false
            for route in signalRoutes.values where route.rule.matches(header, message) {
                if let name = route.rule.sender, SenderOwners.needsTracking(name),
                    !senderOwners.accepts(header.sender, as: name)
                {
                    rejected = true
                    continue
                }
                route.handler(message)
            }
            if rejected {
                rejectedSignals += 1
                rejectedSignalHandler?(message)
            }
            // Handled: no object paths are registered with libdbus, and passing a signal on
            // costs its object-tree lookup (seven allocations to split the path).
            return true
        case .methodCall:
            return methodCallHandler?(message) ?? false
        case .methodReturn, .error:
            return false
        }
    }

    private func handleDisconnect() {
        guard isOpen else { return }
        isOpen = false
        // `close()` marks the connection released before it dispatches the end.
        wasDropped = !isReleased
        let handlers = disconnectHandlers.values.filter { wasDropped || !$0.onlyWhenDropped }
        disconnectHandlers = [:]
        signalRoutes = [:]
        methodCallHandler = nil
        let calls = outstandingCalls.values
        outstandingCalls = [:]
        for call in calls { call.fail(DBusError.disconnected("the connection dropped before the reply")) }
        for id in budget.removeAll() {
            guard let waiter = budgetWaiters.removeValue(forKey: id) else { continue }
            waiter.deadline.cancel()
            waiter.continuation.resume(throwing: DBusError.disconnected("the connection closed before the call went"))
        }
        for handler in handlers { handler.run() }
    }
}

/// A call waiting for a place in the budget.
private struct BudgetWaiter {
    let continuation: CheckedContinuation<Void, any Error>
    let deadline: LoopTimer
}

private struct DisconnectHandler {
    let onlyWhenDropped: Bool
    let run: @Sendable () -> Void
}

/// A live signal subscription; pass it to ``DBusConnection/removeSignalHandler(_:)``.
public struct SignalSubscription: Sendable, Hashable {
    let token: UInt64
    /// The rule the subscription matches.
    public let rule: MatchRule
}

struct SignalRoute {
    let rule: MatchRule
    let handler: @Sendable (DBusMessage) -> Void
}

/// The filter's user data: a weak way back to the actor, so a connection that
/// is released without `close()` leaves no dangling pointer in libdbus.
final class FilterContext: @unchecked Sendable {
    // @unchecked: read and written only on the connection's event loop.
    weak var connection: DBusConnection?
}

private let filter: DBusHandleMessageFunction = { _, message, data in
    let context = Unmanaged<FilterContext>.fromOpaque(data!).takeUnretainedValue()
    guard let connection = context.connection, let message else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    dbus_message_ref(message)
    let wrapped = DBusMessage(taking: message)
    let handled = connection.assumeIsolated(passing: wrapped) { $0.route($1) }
    return handled ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
