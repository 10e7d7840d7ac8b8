/// Which waiters a change can concern, so that only those are checked again.
public enum WaitTrigger<Scope: Hashable>: Equatable {
    /// None: the change touched nothing a waiter looks at.
    case none
    /// The waiters scoped to this, and the unscoped ones.
    case scope(Scope)
    /// Every waiter.
    case everything
}

/// Tasks waiting, on an event loop, for a condition over state that the loop owns.
///
/// The owner (an actor whose executor is `loop`) calls ``evaluate(_:)`` after each change
/// of its state; a waiter's condition is checked once at once, then only after the changes
/// that can concern it, so waiting costs nothing between changes: no polling. A waiter
/// scoped to a key is checked after changes of that key and after global ones. Deadlines
/// are loop timers, cancelled with their waiter.
public final class ConditionWaiters<Scope: Hashable & SendableMetatype>: @unchecked Sendable {
    // @unchecked Sendable: every member is used on `loop` only (the methods check it);
    // other threads reach a waiter through `loop.execute`, as cancellation does.

    @usableFromInline
    struct Entry {
        let scope: Scope?
        let check: () -> Bool
        let expire: () -> Void
        var deadline: LoopTimer?
    }

    /// The loop the owner runs on.
    public let loop: EventLoop
    // Visible to the inlined `evaluate` (its check for nobody waiting), nothing else.
    @usableFromInline private(set) var entries: [UInt64: Entry] = [:]
    private var byScope: [Scope: Set<UInt64>] = [:]
    private var global: Set<UInt64> = []
    private var next: UInt64 = 0

    /// Waiters for an owner that runs on `loop`.
    public init(loop: EventLoop) { self.loop = loop }

    /// How many tasks are waiting.
    public var count: Int { entries.count }

    /// Suspends until `condition` returns a value (checked now and after every change that
    /// concerns `scope`); nil when `timeout` passes first or the task is cancelled.
    ///
    /// Call from the owner, on the loop; `condition` runs there, in the owner's isolation.
    public func wait<T: Sendable>(
        timeout: Duration?, scope: Scope? = nil, isolation: isolated (any Actor)? = #isolation,
        until condition: @escaping () -> T?
    ) async -> T? {
        precondition(loop.isCurrent, "ConditionWaiters.wait is called on its loop")
        let id = Locked<UInt64?>(nil)
        // The operation captures `isolation`, so it runs there, on the loop (SE-0420).
        return await withTaskCancellationHandler {
            _ = isolation
            return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                let check: () -> Bool = {
                    guard let value = condition() else { return false }
                    continuation.resume(returning: value)
                    return true
                }
                guard let added = add(scope: scope, check: check, expire: { continuation.resume(returning: nil) })
                else { return }
                id.withLock { $0 = added }
                if Task.isCancelled { return expire(added) }
                if let timeout { entries[added]?.deadline = loop.schedule(after: timeout) { [self] in expire(added) } }
            }
        } onCancel: {
            loop.execute { [self] in if let added = id.withLock({ $0 }) { expire(added) } }
        }
    }

    /// Registers a check that returns true once it has resumed its waiter; nil when it
    /// did at once.
    func add(scope: Scope?, check: @escaping () -> Bool, expire: @escaping () -> Void) -> UInt64? {
        if check() { return nil }
        next += 1
        entries[next] = Entry(scope: scope, check: check, expire: expire, deadline: nil)
        if let scope {
            byScope[scope, default: []].insert(next)
        } else {
            global.insert(next)
        }
        return next
    }

    /// Re-checks the waiters `trigger` can concern, dropping those that finished.
    @inlinable
    public func evaluate(_ trigger: WaitTrigger<Scope>) {
        precondition(loop.isCurrent, "ConditionWaiters.evaluate is called on its loop")
        // The hub and the central call this for every notification, which concerns nobody
        // (`.none`) or finds nobody waiting. Inlined, so specialised in the owner's module:
        // the generic function cost two metadata look-ups per call even when it returned at
        // once (about 1,200 instructions; callgrind, docs/benchmarks-log.md item 26).
        if case .none = trigger { return }
        guard !entries.isEmpty else { return }
        recheck(trigger)
    }

    @usableFromInline
    func recheck(_ trigger: WaitTrigger<Scope>) {
        switch trigger {
        case .none:
            return
        case .scope(let scope):
            evaluate(ids: global)
            if let scoped = byScope[scope] { evaluate(ids: scoped) }
        case .everything:
            evaluate(ids: Set(entries.keys))
        }
    }

    private func evaluate(ids: Set<UInt64>) {
        for id in ids {
            guard let entry = entries[id], entry.check() else { continue }
            remove(id)
        }
    }

    /// Ends a waiter without a result (deadline or cancellation).
    func expire(_ id: UInt64) {
        remove(id)?.expire()
    }

    @discardableResult
    private func remove(_ id: UInt64) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        entry.deadline?.cancel()
        if let scope = entry.scope {
            byScope[scope]?.remove(id)
            if byScope[scope]?.isEmpty == true { byScope[scope] = nil }
        } else {
            global.remove(id)
        }
        return entry
    }
}
