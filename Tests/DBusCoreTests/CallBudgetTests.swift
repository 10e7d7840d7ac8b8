@testable import DBusCore
import TestSupport
import ConcurrencySupport
import Testing

@Suite("The budget of outstanding calls")
struct CallBudgetTests {
    @Test("places up to the limit, then FIFO with high priority first; withdrawn calls are skipped")
    func order() {
        var budget = CallBudget(limit: 2)
        let granted = [(1, CallPriority.normal), (2, .normal), (3, .normal), (4, .normal), (5, .high), (6, .normal)]
            .map { budget.request(UInt64($0.0), $0.1) }
        #expect(granted == [true, true, false, false, false, false])
        let withdrawn = [budget.withdraw(4), budget.withdraw(4)]
        #expect(withdrawn == [true, false])
        #expect(budget.waiting == 3)
        let woken = (0..<5).map { _ in budget.release() }
        #expect(woken == [[5], [3], [6], [], []])
        #expect(budget.outstanding == 0)
    }

    @Test("a refusal by the bus lowers the allowance to what it accepted; replies raise it again")
    func refusal() {
        var budget = CallBudget(limit: 4)
        let granted = (1...5).map { budget.request(UInt64($0), .normal) }
        #expect(granted == [true, true, true, true, false])
        // Call 4 was refused: three are outstanding, and that is all the bus takes.
        let afterRefusal = budget.refused()
        #expect(afterRefusal == [])
        #expect(budget.allowance == 3 && budget.outstanding == 3)
        let urgent = budget.request(6, .high)
        #expect(!urgent)
        // A reply: its place frees and the allowance grows back to 4, so both waiting calls
        // go, the high-priority one first.
        let afterReply = budget.release()
        #expect(afterReply == [6, 5])
        #expect(budget.allowance == 4 && budget.outstanding == 4)
    }

    @Test("160 calls that hang: the bus's 128 pending replies are never reached, a high-priority call goes first")
    func hangingCalls() async throws {
        try await EchoFixture.with { fixture in
            let client = try await DBusConnection.connect(to: .address(fixture.bus.address), label: "budget")
            defer { Task { await client.close() } }
            let results = Locked<[String]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<160 {
                    group.addTask {
                        let outcome = await Self.call(client, "Hold", timeout: .seconds(60))
                        results.withLock { $0.append(outcome) }
                    }
                }
                // Every place is taken and 128 calls wait.
                try await Self.eventually { await client.callLoad.waiting == 128 }
                #expect(await client.callLoad.outstanding == DBusConnection.defaultMaxOutstandingCalls)
                async let urgent = Self.slow(client, milliseconds: 1, timeout: .seconds(30), priority: .high)
                try await Self.eventually { await client.callLoad.waiting == 129 }
                // One place frees: the high-priority call takes it, ahead of the 128 normal ones
                // (behind them, it would wait until the gate opens and time out).
                await fixture.gate.release(1)
                #expect(await urgent == "ok")
                #expect(results.withLock { $0.count } <= 1, "the urgent call waited behind normal ones")
                await fixture.gate.open()
                try await group.waitForAll()
            }
            #expect(results.withLock { $0 } == Array(repeating: "ok", count: 160))
        }
    }

    @Test("a budget above the bus's 128 pending replies: the bus's refusals are back-pressure, no call fails")
    func busLimit() async throws {
        try await EchoFixture.with { fixture in
            let unbounded = try await DBusConnection.connect(
                to: .address(fixture.bus.address), label: "unbounded", maxOutstandingCalls: 150)
            defer { Task { await unbounded.close() } }
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<150 {
                    group.addTask { await Self.slow(unbounded, milliseconds: 1000, timeout: .seconds(30)) }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            // The budget (150) is above the bus's limit (128): the bus refused 22 calls, each
            // waited for a reply and went again; none failed.
            #expect(outcomes == Array(repeating: "ok", count: 150))
            #expect(await unbounded.callLoad.outstanding == 0)
        }
    }

    @Test("a call that finds no place before its deadline fails with LimitsExceeded, unsent")
    func noPlace() async throws {
        try await EchoFixture.with { fixture in
            let client = try await DBusConnection.connect(
                to: .address(fixture.bus.address), label: "small", maxOutstandingCalls: 1)
            defer { Task { await client.close() } }
            async let blocker = Self.slow(client, milliseconds: 1500, timeout: .seconds(10))
            try await Self.eventually { await client.callLoad.outstanding == 1 }
            let late = await Self.slow(client, milliseconds: 1, timeout: .milliseconds(200))
            #expect(late.hasPrefix(DBusError.Name.limitsExceeded + ": not sent"))
            #expect(await blocker == "ok")
        }
    }

    /// Checks `condition` every 10 ms until it holds; fails after `timeout`.
    static func eventually(within timeout: Duration = .seconds(10), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw TestSupportError("not so within \(timeout)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Calls `Slow`; "ok" or the error's description.
    static func slow(
        _ client: DBusConnection, milliseconds: UInt32, timeout: Duration, priority: CallPriority = .normal
    ) async -> String {
        await call(client, "Slow", [.uint32(milliseconds)], timeout: timeout, priority: priority)
    }

    /// Calls `member` of the echo object; "ok" or the error's description.
    static func call(
        _ client: DBusConnection, _ member: String, _ arguments: [DBusValue] = [], timeout: Duration,
        priority: CallPriority = .normal
    ) async -> String {
        do {
            _ = try await client.call(
                destination: EchoFixture.name, path: EchoFixture.path, interface: EchoFixture.interface,
                member: member, arguments: arguments, timeout: timeout, priority: priority)
            return "ok"
        } catch {
            return "\(error)"
        }
    }
}
