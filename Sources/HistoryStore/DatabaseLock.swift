import UnixSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The lock file next to the database: an exclusive `flock` while a store has it open,
/// and a copy of the sequence-number floor.
///
/// The floor lives here as well as in the database so that a database found damaged at
/// start can be replaced without numbering from zero again. The file reads
/// `pid 1234\nseq_floor 200000\n`; the pid makes the "already in use" error name the holder.
final class DatabaseLock {
    /// Why the lock was not taken.
    enum Failure: Error {
        /// Another open file holds it (another process, or another store in this one).
        case held(by: Int32?)
        /// The file cannot be opened or locked (a read-only directory, say).
        case system(SystemError)
    }

    private let fd: Int32
    /// The floor recorded in the file when it was locked (0 when none).
    let recordedFloor: UInt64

    /// Takes the lock at `path` without waiting.
    init(path: String) throws(Failure) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(.current("open(\(path))")) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.read(fd).pid
            close(fd)
            throw code == EWOULDBLOCK ? .held(by: holder) : .system(SystemError("flock(\(path))", code: code))
        }
        self.fd = fd
        recordedFloor = Self.read(fd).floor
        // Names the holder for the next one; the floor stays as recorded.
        try? record(floor: recordedFloor, durable: false)
    }

    deinit {
        close(fd)  // releases the flock
    }

    /// The floor recorded at `path`, read without locking (for a store that cannot take the
    /// lock, so that it numbers on from there all the same).
    static func recordedFloor(at path: String) -> UInt64 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        return read(fd).floor
    }

    /// Writes this process's pid and `floor`; `durable` waits until it is on the disk.
    func record(floor: UInt64, durable: Bool) throws(SystemError) {
        let bytes = Array("pid \(getpid())\nseq_floor \(floor)\n".utf8)
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count else {
            throw written < 0 ? .current("write(lock file)") : SystemError("write(lock file)", code: ENOSPC)
        }
        guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw .current("ftruncate(lock file)") }
        if durable, fdatasync(fd) != 0 { throw .current("fdatasync(lock file)") }
    }

    private static func read(_ fd: Int32) -> (pid: Int32?, floor: UInt64) {
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return (nil, 0) }
        var pid: Int32?
        var floor: UInt64 = 0
        for line in String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            if parts[0] == "pid" { pid = Int32(parts[1]) }
            if parts[0] == "seq_floor" { floor = UInt64(parts[1]) ?? 0 }
        }
        return (pid, floor)
    }
}
