import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// `--stdin-lifeline`: stdin is a pipe the parent holds open and never writes to; its end of
/// file means the parent closed it (its stop request) or died, even by SIGKILL.
enum StdinLifeline {
    /// Returns when stdin reaches end of file, or can no longer be read.
    static func endOfFile() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let source = DispatchSource.makeReadSource(
                fileDescriptor: STDIN_FILENO, queue: DispatchQueue(label: "blectl-mock.lifeline"))
            source.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 256)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                // Bytes are read and dropped: only the end counts.
                guard count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) else { return }
                source.cancel()  // runs on this serial queue: no later event reaches the handler
                continuation.resume()
            }
            source.resume()
        }
    }
}
