import BlectlProtocol
import Dispatch
import HistoryStore
import ConcurrencySupport

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a store on an old database and reports what the upgrade took: wall and CPU time,
/// the files' size before and after, and the most the directory's database files held at
/// once while it ran (sampled every 20 ms by a second thread).
struct UpgradeRun {
    let path: String

    func run() async {
        let before = Self.databaseBytes(path)
        let peak = PeakSampler(path: path)
        let started = ContinuousClock.now
        let cpuBefore = Self.cpuSeconds()
        let store = openStore(path)
        let wall = started.duration(to: .now)
        let cpu = Self.cpuSeconds() - cpuBefore
        let status = await store.status()
        await store.close()
        say(
            "upgraded rows \(status.rows) wall_s \(Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18) cpu_s \(cpu) bytes_before \(before) "
                + "bytes_after \(Self.databaseBytes(path)) peak_bytes \(peak.stop()) last_seq \(store.lastSeq)")
    }

    /// The bytes of the database, its rebuild and their logs.
    static func databaseBytes(_ path: String) -> Int64 {
        ["", "-wal", ".upgrade", ".upgrade-wal"].reduce(0) { total, suffix in
            var info = stat()
            return stat(path + suffix, &info) == 0 ? total + Int64(info.st_size) : total
        }
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// The largest ``UpgradeRun/databaseBytes(_:)`` seen while it runs.
final class PeakSampler: Sendable {
    private let state = Locked<(peak: Int64, running: Bool)>((0, true))
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        let state = state
        let done = done
        DispatchQueue.global().async {
            while state.withLock({ $0.running }) {
                let bytes = UpgradeRun.databaseBytes(path)
                state.withLock { $0.peak = max($0.peak, bytes) }
                usleep(20_000)
            }
            done.signal()
        }
    }

    /// Stops sampling; the peak.
    func stop() -> Int64 {
        state.withLock { $0.running = false }
        done.wait()
        return state.withLock { $0.peak }
    }
}
