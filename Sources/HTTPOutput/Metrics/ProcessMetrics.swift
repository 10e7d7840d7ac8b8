import Glibc
import UnixSupport

/// The process's own figures from `/proc/self`, for `process_resident_memory_bytes` and
/// `process_cpu_seconds_total`.
struct ProcessMetrics: Sendable, Equatable {
    /// Resident memory, bytes.
    var residentBytes: Double
    /// User and system CPU time, seconds.
    var cpuSeconds: Double

    /// Reads them now; nil when `/proc` cannot be read or parsed.
    static func current() -> ProcessMetrics? {
        guard let statm = try? readTextFile("/proc/self/statm"), let stat = try? readTextFile("/proc/self/stat")
        else { return nil }
        return parse(
            statm: statm, stat: stat, pageSize: Double(sysconf(Int32(_SC_PAGESIZE))),
            ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// From the texts of `/proc/self/statm` (pages: size, resident, …) and `/proc/self/stat`
    /// (`utime` and `stime` in clock ticks, the 14th and 15th fields; the 2nd, the command
    /// name in parentheses, may itself hold spaces and parentheses).
    static func parse(statm: String, stat: String, pageSize: Double, ticksPerSecond: Double) -> ProcessMetrics? {
        let pages = statm.split(separator: " ")
        guard pages.count >= 2, let resident = Double(pages[1]), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        // After the name: field 3 (state) is the first.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]), ticksPerSecond > 0
        else { return nil }
        return ProcessMetrics(residentBytes: resident * pageSize, cpuSeconds: (user + system) / ticksPerSecond)
    }
}
