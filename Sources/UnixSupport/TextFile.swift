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
