@testable import Central
import Testing
import UnixSupport

@Suite struct WaitersTests {
    @Test func aWaiterThatEndsCancelsItsDeadline() throws {
        let loop = EventLoop(label: "test-waiters")
        let (pending, expired) = loop.sync { () -> (Bool, Int) in
            var waiters = Waiters()
            var ready = false
            var expired = 0
            guard let id = waiters.add(check: { ready }, expire: { expired += 1 }) else { return (true, -1) }
            let deadline = loop.schedule(after: .seconds(60)) {}
            waiters.setDeadline(id, deadline)
            ready = true
            waiters.evaluate(.everything)
            return (deadline.isPending, expired)
        }
        #expect(!pending, "the deadline of a waiter that ended is cancelled")
        #expect(expired == 0)
    }

    @Test func aWaiterThatExpiresRunsItsExpiry() {
        let loop = EventLoop(label: "test-waiters")
        let expired = loop.sync { () -> Int in
            var waiters = Waiters()
            var expired = 0
            guard let id = waiters.add(check: { false }, expire: { expired += 1 }) else { return -1 }
            waiters.setDeadline(id, loop.schedule(after: .seconds(60)) {})
            waiters.expire(id)
            waiters.expire(id)
            return expired
        }
        #expect(expired == 1)
    }
}
