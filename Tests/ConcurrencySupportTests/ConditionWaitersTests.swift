import TestSupport
import Testing
import ConcurrencySupport

/// An actor on a loop, owning waiters and the state they wait for, as the central and the
/// hub do.
private actor Owner {
    nonisolated let loop = EventLoop(label: "test-waiters")
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    let waiters: ConditionWaiters<String>
    var value = 0

    init() { waiters = ConditionWaiters(loop: loop) }

    func wait(timeout: Duration?, scope: String? = nil, atLeast target: Int) async -> Int? {
        await waiters.wait(timeout: timeout, scope: scope) { self.value >= target ? self.value : nil }
    }

    func set(_ new: Int, trigger: WaitTrigger<String>) {
        value = new
        waiters.evaluate(trigger)
    }

    var waiting: Int { waiters.count }
}

@Suite("Waiting for a condition on an event loop")
struct ConditionWaitersTests {
    @Test("a condition that holds at once returns at once; one that comes true returns its value")
    func comesTrue() async {
        let owner = Owner()
        #expect(await owner.wait(timeout: nil, atLeast: 0) == 0)
        async let result = owner.wait(timeout: Duration.seconds(30).scaled, atLeast: 2)
        while await owner.waiting == 0 { await Task.yield() }
        await owner.set(1, trigger: .everything)
        #expect(await owner.waiting == 1)
        await owner.set(3, trigger: .everything)
        #expect(await result == 3)
        #expect(await owner.waiting == 0)
    }

    @Test("a scoped waiter is checked after its scope's changes and global ones, not others'")
    func scopes() async {
        let owner = Owner()
        async let result = owner.wait(timeout: Duration.seconds(30).scaled, scope: "a", atLeast: 1)
        while await owner.waiting == 0 { await Task.yield() }
        await owner.set(1, trigger: .scope("b"))
        #expect(await owner.waiting == 1, "a change of another scope does not check it")
        await owner.set(1, trigger: .none)
        #expect(await owner.waiting == 1)
        await owner.set(1, trigger: .scope("a"))
        #expect(await result == 1)
    }

    @Test("the deadline ends a wait with nil, and cancellation does too")
    func deadlineAndCancellation() async {
        let owner = Owner()
        #expect(await owner.wait(timeout: .milliseconds(20), atLeast: 1) == nil)
        #expect(await owner.waiting == 0, "an expired waiter is gone")
        let task = Task { await owner.wait(timeout: nil, atLeast: 1) }
        while await owner.waiting == 0 { await Task.yield() }
        task.cancel()
        #expect(await task.value == nil)
        #expect(await owner.waiting == 0)
    }

    @Test("sleep ends after its duration, or at once with CancellationError when cancelled")
    func sleep() async throws {
        let loop = EventLoop(label: "test-sleep")
        let start = ContinuousClock.now
        try await loop.sleep(for: .milliseconds(30))
        #expect(ContinuousClock.now - start >= .milliseconds(30))
        let task = Task { try await loop.sleep(for: .seconds(60)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("run(until:) returns the work's result, or nil at the deadline without waiting for the work")
    func race() async throws {
        let loop = EventLoop(label: "test-race")
        let quick = await loop.run(until: .now + .seconds(30)) { 7 }
        #expect(try quick?.get() == 7)
        let start = ContinuousClock.now
        let stuck = await loop.run(until: .now + .milliseconds(50)) { () async throws -> Int in
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }  // never returns
            return 0
        }
        #expect(stuck == nil)
        #expect(ContinuousClock.now - start < Duration.seconds(10).scaled)
    }
}
