#if canImport(Glibc)
    public import Glibc
#endif

/// The first descriptor systemd passes on socket activation (`SD_LISTEN_FDS_START`).
public let listenFDsStart: Int32 = 3

/// The descriptors passed by socket activation, as `sd_listen_fds(0)` returns them.
///
/// Empty unless `LISTEN_PID` names this process (the variables are inherited by children
/// and are not meant for them) and `LISTEN_FDS` is a positive count. Each descriptor is
/// made close-on-exec, as sd_listen_fds does.
public func listenFDs(
    environment: [String: String] = ProcessEnvironment.current,
    processID: pid_t = getpid()
) -> [Int32] {
    guard let pidText = environment["LISTEN_PID"], pid_t(pidText) == processID,
        let countText = environment["LISTEN_FDS"], let count = Int32(countText), count > 0
    else { return [] }
    let descriptors = Array(listenFDsStart..<(listenFDsStart + count))
    for fd in descriptors {
        try? UnixSocket.setCloseOnExec(fd)
    }
    return descriptors
}
