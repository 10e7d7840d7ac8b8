import Glibc
import TestSupport
import Testing
import ConcurrencySupport

/// An actor on a given event loop, to check that Swift jobs run there.
private actor LoopBound {
    nonisolated let loop: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    private(set) var steps: [Int] = []

    init(loop: EventLoop) { self.loop = loop }

    func step(_ value: Int) -> Bool {
        steps.append(value)
        return loop.isCurrent
    }
}

@Suite("Event loop")
struct EventLoopTests {
    @Test("work runs in submission order on the loop's thread; sync returns its result")
    func ordering() async {
        let loop = EventLoop(label: "test-order")
        let seen = Locked<[Int]>([])
        for value in 0..<100 {
            loop.execute {
                precondition(loop.isCurrent)
                seen.withLock { $0.append(value) }
            }
        }
        #expect(!loop.isCurrent)
        #expect(loop.sync { loop.isCurrent })
        #expect(seen.withLock { $0 } == Array(0..<100))
        #expect(loop.sync { loop.sync { 42 } } == 42, "sync on the loop runs inline")
    }

    @Test("an actor on the loop runs there, and assumeIsolated holds in plain loop work")
    func executor() async {
        let actor = LoopBound(loop: EventLoop(label: "test-actor"))
        #expect(await actor.step(1))
        #expect(await actor.step(2))
        let isolated = await withCheckedContinuation { continuation in
            actor.loop.execute {
                continuation.resume(returning: actor.assumeIsolated { $0.steps })
            }
        }
        #expect(isolated == [1, 2])
    }

    @Test("assumeIsolated(passing:) runs isolated with its argument on the actor's loop")
    func passingIsolation() async {
        let actor = LoopBound(loop: EventLoop(label: "test-passing"))
        #expect(actor.loop.sync { actor.assumeIsolated(passing: 7) { $0.step($1) } })
        #expect(await actor.steps == [7])
    }

    @Test("assumeIsolated(passing:) traps off the actor's loop")
    func passingIsolationTraps() async {
        await #expect(processExitsWith: .failure) {
            let actor = LoopBound(loop: EventLoop(label: "test-trap"))
            _ = actor.assumeIsolated(passing: 1) { $0.step($1) }
        }
    }

    @Test("timers fire in deadline order; a cancelled one never fires")
    func timers() async {
        let loop = EventLoop(label: "test-timers")
        let fired = Locked<[String]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                loop.schedule(after: .milliseconds(60)) { fired.withLock { $0.append("60") } }
                let cancelled = loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("never") } }
                loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("10") } }
                loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("10 again") } }
                loop.schedule(after: .milliseconds(80)) { done.resume() }
                #expect(cancelled.isPending)
                cancelled.cancel()
                #expect(!cancelled.isPending)
            }
        }
        #expect(fired.withLock { $0 } == ["10", "10 again", "60"])
    }

    @Test("work that keeps submitting more does not starve timers", .timeLimit(.minutes(1)))
    func fairness() async {
        let loop = EventLoop(label: "test-fair")
        let spinning = Locked(true)
        @Sendable func spin() {
            if spinning.withLock({ $0 }) { loop.execute(spin) }
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                spin()
                loop.schedule(after: .milliseconds(10)) {
                    spinning.withLock { $0 = false }
                    done.resume()
                }
            }
        }
        #expect(!spinning.withLock { $0 })
    }

    @Test("a watch hears what it wants: readable data, nothing once paused, a hang-up")
    func watches() async throws {
        let loop = EventLoop(label: "test-watch")
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)
        defer { close(readEnd) }
        let heard = Locked<[String]>([])
        let watch = Locked<IOWatch?>(nil)
        loop.sync {
            let io = loop.watch(readEnd) { events in
                var byte: UInt8 = 0
                let count = read(readEnd, &byte, 1)
                heard.withLock { $0.append(count == 1 ? "byte \(byte)" : "end \(events.contains(.hangup))") }
            }
            io.wantsRead = true
            watch.withLock { $0 = io }
        }
        var byte: UInt8 = 7
        #expect(write(writeEnd, &byte, 1) == 1)
        try await waitFor { heard.withLock { $0 } == ["byte 7"] }
        loop.sync { watch.withLock { $0?.wantsRead = false } }
        byte = 8
        #expect(write(writeEnd, &byte, 1) == 1)
        let marker = LoopMarker(on: loop)
        defer { marker.close() }
        let paused = try await nothingHappened(before: "a later byte on another watch", reached: marker.send()) {
            heard.withLock { $0 } != ["byte 7"]
        }
        #expect(paused, "a paused watch is not called: \(heard.withLock { $0 })")
        loop.sync { watch.withLock { $0?.wantsRead = true } }
        try await waitFor { heard.withLock { $0 } == ["byte 7", "byte 8"] }
        close(writeEnd)
        try await waitFor { heard.withLock { $0 }.last == "end true" }
        loop.sync { watch.withLock { $0?.cancel() } }
        let count = heard.withLock { $0.count }
        let cancelled = try await nothingHappened(before: "a later byte on another watch", reached: marker.send()) {
            heard.withLock { $0.count } != count
        }
        #expect(cancelled, "a cancelled watch is not called, even on a hang-up")
    }

    @Test("a watch for hang-ups alone hears a socket's peer close, not its end of writing")
    func hangupsAlone() async throws {
        let loop = EventLoop(label: "test-hangup")
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let (ours, peer) = (fds[0], fds[1])
        defer { close(ours) }
        let heard = Locked<[IOEvents]>([])
        let watch = Locked<IOWatch?>(nil)
        loop.sync {
            let io = loop.watch(ours) { events in
                heard.withLock { $0.append(events) }
                watch.withLock { $0?.cancel() }  // a hang-up stays reported until then
            }
            io.interest = [.hangup]
            watch.withLock { $0 = io }
        }
        var byte: UInt8 = 1
        #expect(write(peer, &byte, 1) == 1)
        shutdown(peer, Int32(SHUT_WR))
        let marker = LoopMarker(on: loop)
        defer { marker.close() }
        let quiet = try await nothingHappened(before: "a later byte on another watch", reached: marker.send()) {
            !heard.withLock { $0 }.isEmpty
        }
        #expect(quiet, "data and the end of the peer's writing are no hang-up")
        close(peer)
        try await waitFor { heard.withLock { $0 }.count == 1 }
        #expect(heard.withLock { $0 }.first?.contains(.hangup) == true)
    }

    @Test("the thread ends once the loop is released")
    func threadEnds() async throws {
        var loop: EventLoop? = EventLoop(label: "test-ending")
        loop?.sync {}
        #expect(threads(named: "test-ending") == 1)
        loop = nil
        try await waitFor { threads(named: "test-ending") == 0 }
    }

    private func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }

    /// Threads of this process with `name` (from `/proc/self/task/*/comm`).
    private func threads(named name: String) -> Int {
        guard let directory = opendir("/proc/self/task") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let task = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard task.first?.isNumber == true, let file = fopen("/proc/self/task/\(task)/comm", "r") else { continue }
            var buffer = [CChar](repeating: 0, count: 64)
            if fgets(&buffer, 64, file) != nil,
                String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == name + "\n"
            {
                count += 1
            }
            fclose(file)
        }
        return count
    }
}

/// A pipe watched on a loop beside the watch under test, for telling that the loop went past a
/// point: epoll is level-triggered, so what was ready before a byte written here is reported
/// with it or earlier, and a ``EventLoop/sync(_:)`` after the byte is heard lets the loop finish
/// that turn's callbacks.
private final class LoopMarker: Sendable {
    private let loop: EventLoop
    private let readEnd: Int32
    private let writeEnd: Int32
    private let heard = Locked(0)
    private let watch = Locked<IOWatch?>(nil)

    init(on loop: EventLoop) {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0, "pipe: \(errno)")
        (self.loop, readEnd, writeEnd) = (loop, fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)
        loop.sync { [self] in
            let io = loop.watch(readEnd) { [self] _ in
                var byte: UInt8 = 0
                while read(readEnd, &byte, 1) == 1 { heard.withLock { $0 += 1 } }
            }
            io.wantsRead = true
            watch.withLock { $0 = io }
        }
    }

    /// Writes a byte; the condition returned holds once the loop heard it and finished its turn.
    func send() -> () async -> Bool {
        let target = heard.withLock { $0 } + 1
        var byte: UInt8 = 1
        precondition(write(writeEnd, &byte, 1) == 1)
        return { [self] in
            guard heard.withLock({ $0 }) >= target else { return false }
            loop.sync {}
            return true
        }
    }

    /// Stops watching and closes the pipe.
    func close() {
        loop.sync { [self] in watch.withLock { $0?.cancel() } }
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
