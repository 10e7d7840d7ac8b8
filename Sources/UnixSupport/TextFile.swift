#if canImport(Glibc)
    import Glibc
#endif

/// Reads a small text file whole; nil when it does not exist.
///
/// Files larger than `limit` bytes are an `EFBIG` error: configuration files are small,
/// and a bound keeps a mistaken path (say, a device) from eating memory.
public func readTextFile(_ path: String, limit: Int = 1 << 20) throws(SystemError) -> String? {
    let fd = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC) }
    if fd < 0 {
        if errno == ENOENT { return nil }
        throw SystemError.current("open(\(path))")
    }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
        let count = chunk.withUnsafeMutableBytes { buffer in
            retryingEINTR { read(fd, buffer.baseAddress, buffer.count) }
        }
        if count < 0 { throw SystemError.current("read(\(path))") }
        if count == 0 { break }
        bytes += chunk[..<count]
        if bytes.count > limit { throw SystemError("read(\(path))", code: EFBIG) }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The permission bits of the file at `path` (`stat`'s mode without the file type).
public func filePermissions(_ path: String) throws(SystemError) -> UInt32 {
    var status = stat()
    guard retryingEINTR({ stat(path, &status) }) == 0 else { throw SystemError.current("stat(\(path))") }
    return UInt32(status.st_mode) & 0o7777
}

/// Replaces the file at `path` with `text` through a temporary file and a rename, so a
/// crash leaves the old file or the new one, never part of one; `durable` also syncs it
/// to the disk before the rename (without, the data reaches the disk with the next writeback).
public func replaceTextFile(_ path: String, with text: String, mode: UInt32 = 0o644, durable: Bool) throws(SystemError)
{
    let temporary = path + ".tmp"
    let fd = retryingEINTR { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode)) }
    guard fd >= 0 else { throw SystemError.current("open(\(temporary))") }
    var failure: SystemError?
    Array(text.utf8).withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = retryingEINTR { write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
            guard written > 0 else { return failure = SystemError.current("write(\(temporary))") }
            offset += written
        }
    }
    if failure == nil, durable, fsync(fd) != 0 { failure = SystemError.current("fsync(\(temporary))") }
    close(fd)
    if let failure {
        unlink(temporary)
        throw failure
    }
    guard rename(temporary, path) == 0 else { throw SystemError.current("rename(\(temporary), \(path))") }
}
