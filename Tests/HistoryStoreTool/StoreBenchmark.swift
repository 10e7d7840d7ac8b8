import BlectlProtocol
import HistoryStore
import UnixSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The store's figures: append cost on the caller's thread, commit time per interval at
/// 200 thermometers × 10 Hz, bytes per day of one thermometer at one reading per 5 s, and
/// what reaches the disk per hour at that rate. Prints one `name value unit` line each.
struct StoreBenchmark {
    var directory = "/var/tmp"
    var thermometers = 200
    var rate = 10
    var batches = 30
    /// Which measurement to run: `busy`, `day`, `hour`, or all.
    var part = "all"
    /// Readings per commit in the hour: 1 is the default 5 s interval at one reading per
    /// 5 s, 12 a 60 s interval.
    var commitEvery = 1

    init(arguments: [String]) {
        directory = arguments[0]
        var rest = arguments.dropFirst().makeIterator()
        while let option = rest.next() {
            let text = rest.next()
            let value = text.flatMap { Int($0) }
            switch option {
            case "--part": part = text ?? part
            case "--thermometers": thermometers = value ?? thermometers
            case "--rate": rate = value ?? rate
            case "--batches": batches = value ?? batches
            case "--commit-every": commitEvery = max(1, value ?? commitEvery)
            default:
                say("unknown option \(option)")
                exit(ExitCode.usage)
            }
        }
    }

    func run() async {
        if part == "all" || part == "busy" { await busyHub() }
        if part == "all" || part == "day" { await oneThermometerDay() }
        if part == "all" || part == "hour" { await oneThermometerHour() }
    }

    /// A fresh database path under the directory.
    private func freshPath(_ name: String) -> String {
        let path = "\(directory)/store-bench-\(getpid())-\(name).sqlite3"
        for suffix in ["", "-wal", "-shm", ".lock"] { unlink(path + suffix) }
        return path
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", ".lock"] { unlink(path + suffix) }
    }

    /// 200 thermometers × 10 Hz: what one commit interval (5 s) brings, appended as fast as
    /// the hub would, then committed; `batches` times on a growing file.
    private func busyHub() async {
        let path = freshPath("busy")
        defer { remove(path) }
        let store = open(path)
        let perBatch = thermometers * rate * 5
        var seq: UInt64 = 0
        var appendTime = Duration.zero
        var commitTimes: [Duration] = []
        var commitCPU = Duration.zero
        let clock = ContinuousClock()
        for _ in 0..<batches {
            let events = (0..<perBatch).map { index in
                seq += 1
                return reading(seq: seq, device: index % thermometers)
            }
            // CPU time of this thread, not wall time: a loaded machine does not inflate it.
            appendTime += threadCPUTime { for event in events { store.append(event) } }
            let cpuBefore = cpuTime(CLOCK_PROCESS_CPUTIME_ID)
            commitTimes.append(await clock.measure { await store.flush() })
            // The process's CPU time while it only waits for the store's thread to commit.
            commitCPU += cpuTime(CLOCK_PROCESS_CPUTIME_ID) - cpuBefore
        }
        let pageTime = await clock.measure {
            var since: UInt64 = 0
            while true {
                let page = await store.page(address: nil, since: since, limit: 1_000)
                guard page.more, let last = page.events.last?.seq else { break }
                since = last
            }
        }
        await store.close()
        let appends = Double(batches * perBatch)
        let sorted = commitTimes.sorted()
        say("pending_reading_bytes \(MemoryLayout<Event>.stride) bytes")
        say("append_ns_per_reading_cpu \(format(appendTime.seconds * 1e9 / appends)) ns")
        say("commit_ms_per_batch_\(perBatch)_median \(format(sorted[sorted.count / 2].seconds * 1000)) ms")
        say("commit_ms_per_batch_\(perBatch)_max \(format(sorted.last!.seconds * 1000)) ms")
        say("commit_cpu_ms_per_batch_\(perBatch)_mean \(format(commitCPU.seconds * 1000 / Double(batches))) ms")
        say("busy_database_bytes_after_\(Int(appends))_readings \(fileSize(path)) bytes")
        say("history_page_of_1000_ms \(format(pageTime.seconds * 1000 / (appends / 1000))) ms")
    }

    /// One day of one thermometer at one reading per 5 s (17,280), committed an hour at a
    /// time (the size does not depend on how often it commits), then checkpointed.
    private func oneThermometerDay() async {
        let path = freshPath("day")
        defer { remove(path) }
        let store = open(path)
        let start = Timestamp.now().millisecondsSince1970 - 86_400_000
        for hour in 0..<24 {
            for index in 0..<720 {
                let seq = UInt64(hour * 720 + index + 1)
                store.append(
                    reading(seq: seq, device: 1, time: Timestamp(millisecondsSince1970: start + Int64(seq) * 5_000)))
            }
            await store.flush()
        }
        await store.close()
        say("bytes_per_day_one_thermometer_5s \(fileSize(path)) bytes")
    }

    /// One hour of one thermometer at one reading per 5 s, committed every `commitEvery`
    /// readings (1: the default 5 s interval, 720 commits), run back to back; what this
    /// process wrote (`/proc/self/io`) and how many write calls it made.
    private func oneThermometerHour() async {
        let path = freshPath("hour")
        defer { remove(path) }
        let store = open(path)
        store.append(reading(seq: 1, device: 1))
        await store.flush()  // the file exists, its first pages are written
        let before = ProcessIO.read()
        for seq in 2...721 {
            store.append(reading(seq: UInt64(seq), device: 1))
            if (seq - 1) % commitEvery == 0 { await store.flush() }
        }
        let after = ProcessIO.read()
        await store.close()
        let name = "one_thermometer_5s_commit_every_\(commitEvery * 5)s"
        say("commits_per_hour_\(name) \(720 / commitEvery) commits")
        say("write_bytes_per_hour_\(name) \(after.writeBytes - before.writeBytes) bytes")
        say("write_syscalls_per_hour_\(name) \(after.writeCalls - before.writeCalls) calls")
    }

    private func open(_ path: String) -> HistoryStore {
        openStore(path, .init(commitInterval: .seconds(3600), maxBytes: nil, pendingLimit: 1_000_000))
    }
}

/// This process's I/O counters from `/proc/self/io`.
struct ProcessIO {
    /// Bytes sent to the storage layer (`write_bytes`).
    var writeBytes = 0
    /// Write system calls (`syscw`), fsyncs not counted.
    var writeCalls = 0

    static func read() -> ProcessIO {
        var io = ProcessIO()
        sync()  // what was written so far reaches the block layer and is counted
        guard let text = try? readTextFile("/proc/self/io") else { return io }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            if parts[0] == "write_bytes:" { io.writeBytes = value }
            if parts[0] == "syscw:" { io.writeCalls = value }
        }
        return io
    }
}

/// The CPU time the calling thread spends in `body`.
func threadCPUTime(_ body: () -> Void) -> Duration {
    let start = cpuTime(CLOCK_THREAD_CPUTIME_ID)
    body()
    return cpuTime(CLOCK_THREAD_CPUTIME_ID) - start
}

/// A CPU-time clock's reading (`CLOCK_THREAD_CPUTIME_ID`, `CLOCK_PROCESS_CPUTIME_ID`).
func cpuTime(_ clock: clockid_t) -> Duration {
    var spec = timespec()
    clock_gettime(clock, &spec)
    return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
}

/// The size of a file in bytes (0 when missing).
func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// A number with one decimal.
func format(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10))"
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
