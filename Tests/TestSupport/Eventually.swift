import Glibc
import Synchronization

/// Waits until `condition` holds, checking every few milliseconds; false if `within` passes
/// first.
///
/// Tests wait for what they check this way, never with a fixed sleep. The default deadline
/// is long: a loaded machine running every suite at once can hold a task up for seconds,
/// and what tests tell apart is "soon" from "minutes". The deadline is ``Duration/scaled``.
public func eventually(within deadline: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
    let end = ContinuousClock.now + deadline.scaled
    while ContinuousClock.now < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// Whether a piece of work has ended, for waiting on it with ``eventually(within:_:)``.
public final class Completion: Sendable {
    private let done = Mutex(false)

    /// Not done yet.
    public init() {}

    /// Whether ``finish()`` was called.
    public var isDone: Bool { done.withLock { $0 } }

    /// Marks the work done.
    public func finish() {
        done.withLock { $0 = true }
    }
}

/// Whether heavy suites run: only when `make test` runs them on their own
/// (`BLECTL_HEAVY_TESTS=1`), after the others, so that their load skews no one's timing.
public let heavyTestsRun = getenv("BLECTL_HEAVY_TESTS").map { String(cString: $0) == "1" } ?? false

/// Whether nothing `happened` by a point the test can see: waits until `reached` holds, then
/// asks `happened`; throws if the point is never reached.
///
/// A fixed "settle" sleep before a negative check passes on a slow machine without checking
/// anything: what would have gone wrong may simply not have happened yet. `reached` is a
/// positive sign that the code under test processed past the point in question (a round trip
/// through the same queue, a later event that must come after); only then does "nothing else
/// arrived" mean something. `point` names it for the failure.
public func nothingHappened(
    before point: String, within deadline: Duration = .seconds(30), reached: () async throws -> Bool,
    _ happened: () async throws -> Bool
) async throws -> Bool {
    var failure: (any Error)?
    let seen = await eventually(within: deadline) {
        do { return try await reached() } catch {
            failure = error
            return false
        }
    }
    guard seen else {
        let why = failure.map { " (last: \($0))" } ?? ""
        throw TestSupportError("\(point) was not reached within \(deadline.scaled)\(why): cannot tell nothing happened")
    }
    return try await !happened()
}
